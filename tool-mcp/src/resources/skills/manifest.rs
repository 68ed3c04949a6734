//! Skills made from their files: each skill's entry (frontmatter, and the
//! manifest of its files with their SHA-256 digests and sizes), each file
//! a resource, each folder's children.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::{
    Catalog, DIRECTORY_MIME_TYPE, SKILL_MD, Skill, SkillFile, SkillsError, Skipped, frontmatter,
};
use crate::resources::{CacheHint, ResourceSpec};

/// The URI scheme of skills.
const SCHEME: &str = "skill://";

/// A skill given, not yet checked: its path (`/`-separated), its files
/// (paths in its folder, and bytes), and the folder it was read from.
pub(super) struct Pending {
    pub(super) path: String,
    pub(super) files: Vec<(String, Arc<[u8]>)>,
    pub(super) origin: Option<PathBuf>,
}

/// The most files and bytes a skill has.
#[derive(Clone, Copy)]
pub(super) struct Limits {
    pub(super) files: usize,
    pub(super) bytes: u64,
}

impl Limits {
    /// Why a skill of `files` files and `bytes` bytes is left out, if it is.
    pub(super) fn exceeded(self, files: usize, bytes: u64) -> Option<String> {
        (files > self.files || bytes > self.bytes).then(|| {
            format!(
                "{files} files of {bytes} bytes, over the limit of {} files or {} bytes a skill \
                 has (hosts need not load a larger one)",
                self.files, self.bytes
            )
        })
    }
}

/// A skill left out, with a warning.
pub(super) fn skip(path: &str, reason: String) -> Skipped {
    tracing::warn!(skill = %path, "skill left out: {reason}");
    Skipped {
        path: path.to_owned(),
        reason,
    }
}

/// The catalog of `pending` skills, those over `limits` left out (added to
/// `skipped`).
pub(super) fn catalog(
    mut pending: Vec<Pending>,
    limits: Limits,
    mut skipped: Vec<Skipped>,
) -> Result<Catalog, SkillsError> {
    // The deepest first: a nested skill's SKILL.md is made (named by its
    // frontmatter) before the skills above it take it as one of theirs.
    pending.sort_by_key(|skill| std::cmp::Reverse(skill.path.split('/').count()));
    let mut catalog = Catalog::default();
    let mut directories: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    for skill in pending {
        let bytes: u64 = skill
            .files
            .iter()
            .map(|(_, bytes)| bytes.len() as u64)
            .sum();
        if let Some(reason) = limits.exceeded(skill.files.len(), bytes) {
            skipped.push(skip(&skill.path, reason));
            continue;
        }
        let skill = make(skill, &mut catalog, &mut directories)?;
        if catalog.skills.iter().any(|other| other.uri == skill.uri) {
            return Err(SkillsError::Duplicate(skill.uri));
        }
        catalog.skills.push(skill);
    }
    catalog.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
    catalog.directories = directories
        .into_iter()
        .map(|(uri, children)| (uri, children.into_values().collect()))
        .collect();
    catalog.skipped = skipped;
    Ok(catalog)
}

/// The skill `pending`, its files added to `catalog` and its folders to
/// `directories`.
fn make(
    pending: Pending,
    catalog: &mut Catalog,
    directories: &mut BTreeMap<String, BTreeMap<String, Value>>,
) -> Result<Skill, SkillsError> {
    let Pending {
        path,
        mut files,
        origin,
    } = pending;
    check_path(&path, &path)?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (at, (file, _)) in files.iter().enumerate() {
        check_path(&format!("{path}/{file}"), file)?;
        if at > 0 && files[at - 1].0 == *file {
            return Err(entry(
                format!("{path}/{file}"),
                "the skill has this file twice",
            ));
        }
    }
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((_, manifest)) = files.iter().find(|(file, _)| file == SKILL_MD) else {
        return Err(entry(path, "a skill has a SKILL.md in its folder"));
    };
    let frontmatter = frontmatter::parse(manifest, name).map_err(|mistake| {
        let file = match &origin {
            Some(folder) => folder.join(SKILL_MD).display().to_string(),
            None => format!("{path}/{SKILL_MD}"),
        };
        SkillsError::Skill {
            file,
            line: mistake.line,
            message: mistake.message,
        }
    })?;
    let base = format!("{SCHEME}{}", encode(&path));
    let uri = format!("{base}/{SKILL_MD}");
    let mut made = Vec::with_capacity(files.len());
    for (file, bytes) in files {
        let file_uri = format!("{base}/{}", encode(&file));
        let made_file = match catalog.files.get(&file_uri) {
            Some(existing) if *existing.bytes == *bytes => Arc::clone(existing),
            Some(_) => return Err(SkillsError::Duplicate(file_uri)),
            None => {
                let listed = (file == SKILL_MD).then_some(&frontmatter);
                let made_file = Arc::new(skill_file(file_uri.clone(), &file, bytes, listed));
                catalog.files.insert(file_uri, Arc::clone(&made_file));
                made_file
            }
        };
        add_to_folders(&base, &file, &made_file, directories);
        made.push(made_file);
    }
    made.sort_by(|a, b| a.uri.cmp(&b.uri));
    Ok(Skill {
        uri,
        frontmatter,
        files: made,
    })
}

/// The file at `uri` (`path` in its skill) with `bytes`; a `SKILL.md`
/// named and described by its skill's `frontmatter`.
fn skill_file(
    uri: String,
    path: &str,
    bytes: Arc<[u8]>,
    frontmatter: Option<&Map<String, Value>>,
) -> SkillFile {
    let file_name = path.rsplit('/').next().unwrap_or(path).to_owned();
    let mut spec = ResourceSpec::fixed(uri.clone(), file_name)
        .with_mime_type(mime_type_of(path))
        .with_cache(CacheHint::STATIC);
    spec.size = Some(bytes.len() as u64);
    if let Some(frontmatter) = frontmatter {
        let text = |key: &str| {
            let text = frontmatter.get(key).and_then(Value::as_str);
            text.unwrap_or_default().to_owned()
        };
        spec.name = text("name").into();
        spec = spec.with_description(text("description"));
    }
    SkillFile {
        spec,
        uri,
        digest: digest(&bytes),
        bytes,
    }
}

/// Adds `file` (at `path` in the skill at `base`) to its folder's
/// children, and each folder on its way to its parent's.
fn add_to_folders(
    base: &str,
    path: &str,
    file: &SkillFile,
    directories: &mut BTreeMap<String, BTreeMap<String, Value>>,
) {
    let mut child = json!({
        "uri": file.uri,
        "name": path.rsplit('/').next().unwrap_or(path),
        "mimeType": file.mime_type(),
        "size": file.bytes.len(),
    });
    let mut child_path = path;
    loop {
        let (folder, uri) = match child_path.rsplit_once('/') {
            Some((folder, _)) => (folder, format!("{base}/{}", encode(folder))),
            None => ("", base.to_owned()),
        };
        let children = directories.entry(uri.clone()).or_default();
        let child_uri = child["uri"].as_str().unwrap_or_default().to_owned();
        children.insert(child_uri, child);
        if folder.is_empty() {
            return;
        }
        child = json!({
            "uri": uri,
            "name": folder.rsplit('/').next().unwrap_or(folder),
            "mimeType": DIRECTORY_MIME_TYPE,
        });
        child_path = folder;
    }
}

/// Refuses a path (of a skill, or of a file in it) that is empty, absolute,
/// or has an empty, `.` or `..` segment or a backslash; `shown` is where
/// it is, for the error.
fn check_path(shown: &str, path: &str) -> Result<(), SkillsError> {
    let bad = path.is_empty()
        || path.contains(['\\', '\0'])
        || path
            .split('/')
            .any(|segment| matches!(segment, "" | "." | ".."));
    if bad {
        return Err(entry(
            shown,
            "a path in a skill is relative, with `/` between non-empty segments, none `.` or `..`",
        ));
    }
    Ok(())
}

fn entry(path: impl Into<String>, reason: &str) -> SkillsError {
    SkillsError::Entry {
        path: path.into(),
        reason: reason.to_owned(),
    }
}

/// `path` in a URI: each byte but the unreserved ones and `/`
/// percent-encoded.
fn encode(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

/// `sha256:` and the SHA-256 of `bytes` in lowercase hex.
pub(super) fn digest(bytes: &[u8]) -> String {
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in Sha256::digest(bytes).iter() {
        let _ = write!(digest, "{byte:02x}");
    }
    digest
}

/// The media type of the file at `path`, by its extension.
pub(super) fn mime_type_of(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("js" | "mjs") => "text/javascript",
        Some("py") => "text/x-python",
        Some("rs") => "text/x-rust",
        Some("sh") => "text/x-shellscript",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        _ => "application/octet-stream",
    }
}

/// Whether a file of media type `mime` is read as text (when its bytes are
/// UTF-8).
pub(super) fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || matches!(
            mime,
            "application/json"
                | "application/yaml"
                | "application/toml"
                | "application/xml"
                | "image/svg+xml"
        )
}
