//! Skills: MCP's skills extension (`io.modelcontextprotocol/skills`),
//! folders of instructions and files an agent loads when a task calls for
//! them, served as resources.
//!
//! A skill is a folder holding a `SKILL.md` — Markdown that begins with a
//! YAML frontmatter giving at least the skill's `name` (the folder's name)
//! and `description` — and any other files (references, scripts,
//! templates). [`Skills::from_dir`] reads every skill below a directory;
//! [`Skills::builder`] takes skills given in memory too. Given to
//! [`ResourcesBuilder::skills`](crate::resources::ResourcesBuilder::skills)
//! and served with
//! [`McpServer::with_resources`](crate::server::McpServer::with_resources),
//! the server
//!
//! - declares the extension (`capabilities.extensions` names
//!   `io.modelcontextprotocol/skills`, with `directoryRead`);
//! - answers `skills/list` (every skill, on one page) and `skills/get` (one,
//!   by the URI of its `SKILL.md`): each skill's frontmatter as JSON and the
//!   manifest of its files, each with its size and SHA-256 digest;
//! - serves each file at `skill://<path>/<file>` with `resources/read` (text
//!   for textual media types, else bytes) and lists each `SKILL.md` in
//!   `resources/list` (named and described by its frontmatter; the other
//!   files are not listed, so hosts do not fetch them before they are
//!   needed);
//! - answers `resources/directory/read` for a skill's folder and its
//!   subfolders: their files and subfolders (`mimeType`
//!   `inode/directory`).
//!
//! ```
//! use tool_mcp::resources::Resources;
//! use tool_mcp::resources::skills::Skills;
//!
//! let skills = Skills::builder()
//!     .skill(
//!         "pdf-forms",
//!         [
//!             (
//!                 "SKILL.md",
//!                 "---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\n# PDF forms\nRead references/fields.md first.\n",
//!             ),
//!             ("references/fields.md", "# Fields\n"),
//!         ],
//!     )
//!     .build()
//!     .unwrap();
//! let skill = skills.get("skill://pdf-forms/SKILL.md").unwrap();
//! assert_eq!(skill.name(), "pdf-forms");
//! assert_eq!(skill.files().len(), 2);
//! assert!(skill.files()[0].digest().starts_with("sha256:"));
//!
//! let resources = Resources::builder().skills(skills).build().unwrap();
//! assert!(resources.resolves("skill://pdf-forms/references/fields.md"));
//! ```
//!
//! A directory is read once, when [`from_dir`](Skills::from_dir) is called
//! (blocking: from async code, in `tokio::task::spawn_blocking`), and its
//! bytes are kept: a read gives the bytes the manifest's digests describe,
//! whatever happens to the files later. Entries whose names start with `.`
//! are left out; a symbolic link, a special file or a name that is not
//! UTF-8 in a skill is an error, and nothing outside the directory is ever
//! opened. A mistake in a `SKILL.md` (no frontmatter, bad YAML, a missing
//! `name` or `description`, a `name` that is not the folder's) is an error
//! naming the file and line. A skill of more than
//! [`DEFAULT_MAX_FILES`](Skills::DEFAULT_MAX_FILES) files or
//! [`DEFAULT_MAX_BYTES`](Skills::DEFAULT_MAX_BYTES) bytes (the extension's
//! limits; [`SkillsBuilder::max_files`], [`SkillsBuilder::max_bytes`]) is
//! left out with a warning (`tracing`, and [`Skills::skipped`]): hosts need
//! not load one.

mod frontmatter;
mod load;
mod manifest;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::resources::{Body, Contents, ReadRequest, Resource, ResourceError, ResourceSpec};

/// The extension's name, in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// The media type of a folder in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// A skill's entry point, in its folder.
pub const SKILL_MD: &str = "SKILL.md";

/// Skills to serve: a cheap-clone handle (see the [module](self)).
#[derive(Clone)]
pub struct Skills {
    inner: Arc<Catalog>,
}

/// What [`Skills`] holds.
#[derive(Default)]
struct Catalog {
    /// Every skill, in URI order.
    skills: Vec<Skill>,
    /// Every file of every skill, by URI.
    files: BTreeMap<String, Arc<SkillFile>>,
    /// Every folder of every skill, by URI: its children.
    directories: BTreeMap<String, Vec<Value>>,
    /// The skills left out, and why.
    skipped: Vec<Skipped>,
}

impl Skills {
    /// The most files a skill has unless
    /// [`max_files`](SkillsBuilder::max_files) says otherwise: 512, the
    /// extension's limit. A skill with more is left out.
    pub const DEFAULT_MAX_FILES: usize = 512;

    /// The most bytes a skill's files have together unless
    /// [`max_bytes`](SkillsBuilder::max_bytes) says otherwise: 16 MiB, the
    /// extension's limit. A skill with more is left out.
    pub const DEFAULT_MAX_BYTES: u64 = 16 << 20;

    /// A builder of skills.
    pub fn builder() -> SkillsBuilder {
        SkillsBuilder {
            pending: Vec::new(),
            max_files: Self::DEFAULT_MAX_FILES,
            max_bytes: Self::DEFAULT_MAX_BYTES,
            skipped: Vec::new(),
        }
    }

    /// Every skill below the directory `root`, each a folder with a
    /// `SKILL.md`, at `skill://<its path from root>/SKILL.md`; a skill's
    /// files are every file below its folder (a skill nested in another
    /// is listed on its own, and its files belong to both). Reads every
    /// file, blocking. The same as
    /// `Skills::builder().dir(root)?.build()`.
    pub fn from_dir(root: impl Into<PathBuf>) -> Result<Skills, SkillsError> {
        Skills::builder().dir(root)?.build()
    }

    /// Every skill, in URI order.
    pub fn list(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<&Skill> {
        self.inner.skills.iter().find(|skill| skill.uri == uri)
    }

    /// The file at `uri`, of any skill.
    pub fn file(&self, uri: &str) -> Option<&Arc<SkillFile>> {
        self.inner.files.get(uri)
    }

    /// The children of the folder at `uri` (a skill's folder or one of its
    /// subfolders), as `resources/directory/read` gives them; `None` when
    /// `uri` is no such folder.
    pub fn directory(&self, uri: &str) -> Option<&[Value]> {
        self.inner.directories.get(uri).map(Vec::as_slice)
    }

    /// The skills left out (over the limits), and why.
    pub fn skipped(&self) -> &[Skipped] {
        &self.inner.skipped
    }
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.inner.skills.iter().map(|skill| &skill.uri))
            .finish()
    }
}

/// Builds [`Skills`] (see [`Skills::builder`]).
pub struct SkillsBuilder {
    pending: Vec<manifest::Pending>,
    max_files: usize,
    max_bytes: u64,
    skipped: Vec<Skipped>,
}

impl SkillsBuilder {
    /// Adds the skill at `path` (`skill://<path>/SKILL.md`; the last
    /// segment of `path` is its name) with `files`: each a path in the
    /// skill's folder (`/`-separated, `SKILL.md` among them) and its
    /// bytes.
    pub fn skill<P, B>(
        mut self,
        path: impl Into<String>,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Self
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let files = files
            .into_iter()
            .map(|(path, bytes)| (path.into(), Arc::<[u8]>::from(bytes.into())))
            .collect();
        self.pending.push(manifest::Pending {
            path: path.into(),
            files,
            origin: None,
        });
        self
    }

    /// Adds every skill below the directory `root` (see
    /// [`Skills::from_dir`]), reading its files now, within the limits set
    /// so far: set [`max_files`](Self::max_files) and
    /// [`max_bytes`](Self::max_bytes) first.
    pub fn dir(mut self, root: impl Into<PathBuf>) -> Result<Self, SkillsError> {
        let limits = manifest::Limits {
            files: self.max_files,
            bytes: self.max_bytes,
        };
        let (pending, skipped) = load::read_dir(&root.into(), limits)?;
        self.pending.extend(pending);
        self.skipped.extend(skipped);
        Ok(self)
    }

    /// The most files a skill has; one with more is left out with a
    /// warning. The default is [`Skills::DEFAULT_MAX_FILES`].
    pub fn max_files(mut self, files: usize) -> Self {
        self.max_files = files;
        self
    }

    /// The most bytes a skill's files have together; one with more is
    /// left out with a warning. The default is
    /// [`Skills::DEFAULT_MAX_BYTES`].
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The skills; refused for a mistake in a skill (see [`SkillsError`]).
    pub fn build(self) -> Result<Skills, SkillsError> {
        let limits = manifest::Limits {
            files: self.max_files,
            bytes: self.max_bytes,
        };
        let catalog = manifest::catalog(self.pending, limits, self.skipped)?;
        Ok(Skills {
            inner: Arc::new(catalog),
        })
    }
}

/// One skill: its `SKILL.md`'s URI and frontmatter, and its files.
#[derive(Debug, Clone)]
pub struct Skill {
    uri: String,
    frontmatter: Map<String, Value>,
    files: Vec<Arc<SkillFile>>,
}

impl Skill {
    /// The URI of its `SKILL.md` (`skill://<path>/SKILL.md`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its name (the frontmatter's, its folder's).
    pub fn name(&self) -> &str {
        self.text("name")
    }

    /// Its description (the frontmatter's).
    pub fn description(&self) -> &str {
        self.text("description")
    }

    /// The frontmatter's text at `key` (`name` and `description` are
    /// checked to be there).
    fn text(&self, key: &str) -> &str {
        self.frontmatter
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Its `SKILL.md`'s frontmatter, as JSON (YAML's core types: plain
    /// `true` is a boolean, `3` a number, quoted scalars strings).
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }

    /// Its files, `SKILL.md` among them, in URI order.
    pub fn files(&self) -> &[Arc<SkillFile>] {
        &self.files
    }

    /// Its entry in `skills/list` and `skills/get`: `{uri, frontmatter,
    /// resources: [{uri, digest, size}]}`.
    pub(crate) fn to_json(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|file| json!({"uri": file.uri(), "digest": file.digest, "size": file.bytes.len()}))
            .collect();
        json!({"uri": self.uri, "frontmatter": self.frontmatter, "resources": resources})
    }
}

/// One file of a skill, a resource: its bytes, their digest, its media
/// type.
#[derive(Debug)]
pub struct SkillFile {
    spec: ResourceSpec,
    uri: String,
    bytes: Arc<[u8]>,
    digest: String,
}

impl SkillFile {
    /// Its URI (`skill://<skill path>/<file path>`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its bytes, as read.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// `sha256:` and the SHA-256 of its bytes, in 64 lowercase hex digits.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Its media type (by its extension; `application/octet-stream` when
    /// unknown).
    pub fn mime_type(&self) -> &str {
        self.spec.mime_type.as_deref().unwrap_or_default()
    }

    /// Its contents, as `resources/read` gives them: text when its media
    /// type is textual and its bytes are UTF-8, else bytes.
    pub fn contents(&self) -> Contents {
        let text = manifest::is_textual(self.mime_type())
            .then(|| std::str::from_utf8(&self.bytes).ok())
            .flatten();
        let body = match text {
            Some(text) => Body::Text(text.to_owned()),
            None => Body::Blob(self.bytes.to_vec()),
        };
        Contents {
            uri: self.uri.clone(),
            mime_type: Some(self.mime_type().to_owned()),
            body,
            meta: None,
        }
    }
}

impl Resource for SkillFile {
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        let _ = request;
        let contents = self.contents();
        Box::pin(async move { Ok(vec![contents]) })
    }
}

/// A skill left out: where it is, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The skill's path (`skill://<path>/SKILL.md`).
    pub path: String,
    /// Why it was left out.
    pub reason: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the skill {} is left out: {}", self.path, self.reason)
    }
}

/// Why skills could not be read or built.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkillsError {
    /// A file or folder could not be read.
    Io {
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A mistake in a skill's `SKILL.md`.
    Skill {
        /// The file: a path on disk, or `<skill path>/SKILL.md` for a
        /// skill given in memory.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An entry that is not served: a symbolic link, a special file, a
    /// name that is not UTF-8, a path that leaves the skill's folder, a
    /// `SKILL.md` outside a folder.
    Entry {
        /// Where.
        path: String,
        /// Why.
        reason: String,
    },
    /// Two skills at one URI.
    Duplicate(String),
}

impl fmt::Display for SkillsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillsError::Io { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            SkillsError::Skill {
                file,
                line,
                message,
            } => write!(f, "{file}:{line}: {message}"),
            SkillsError::Entry { path, reason } => write!(f, "{path}: {reason}"),
            SkillsError::Duplicate(uri) => {
                write!(f, "two skills are at {uri}: give each its own folder")
            }
        }
    }
}

impl std::error::Error for SkillsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SkillsError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
