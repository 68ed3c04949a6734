//! The `resources` section: resources whose contents are text written in
//! the file, a file, or (a URI template) one file of a folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Location, ManifestProblem, Node, Section, SectionReader};

use super::fields::{self, Fields, Spanned};
use super::files;
use crate::completion::{CompleteRequest, Completion};
use crate::resources::{
    Body, CacheHint, Contents, ReadRequest, Resource, ResourceError, ResourceSpec, ResourceUri,
    Resources, UriParams, UriTemplate,
};
use tool_runtime::ToolContext;

/// The `resources` section of a registry file: a list of resources, each
/// a `uri` with its contents, `text` written there or a `file` (read at
/// each `resources/read`), or a URI template whose one variable names a
/// file of a folder (`dir`); with an optional `name`, `title`,
/// `description` and `mime` (the media type; for files, guessed from the
/// extension when not given).
///
/// ```
/// use tool_manifest::Manifest;
/// use tool_mcp::sections::{ResourceContent, ResourcesSection};
///
/// let text = "resources:\n  - uri: notes://{name}\n    dir: notes\n    mime: text/markdown\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&ResourcesSection]).unwrap();
/// let entries = manifest.section::<ResourcesSection>().unwrap();
/// assert_eq!(entries[0].uri, "notes://{name}");
/// assert_eq!(entries[0].content, ResourceContent::Dir("notes".into()));
///
/// let text = "resources:\n  - uri: docs://readme\n    file: README.md\n    size: 3\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&ResourcesSection]).unwrap();
/// assert_eq!(
///     manifest.problems()[0].to_string(),
///     "4:5: unknown key \"size\" in resource `docs://readme`; it takes `uri`, `name`, `title`, \
///      `description`, `mime`, `text`, `file` and `dir`"
/// );
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourcesSection;

/// One entry of a `resources` section, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceEntry {
    /// Its URI, or URI template (a `dir` entry's).
    pub uri: String,
    /// Its name (`name:`; the URI when not given).
    pub name: String,
    /// A title for people.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its media type (`mime:`).
    pub mime: Option<String>,
    /// Where its contents come from.
    pub content: ResourceContent,
    /// Where the entry starts.
    pub location: Location,
    /// Where the path of a `file` or `dir` was written.
    path_at: Location,
}

/// Where a resource's contents come from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceContent {
    /// `text:`, the contents themselves.
    Text(String),
    /// `file:`, a file read at each read, relative to the registry file.
    File(PathBuf),
    /// `dir:`, a folder whose files the template's variable names.
    Dir(PathBuf),
}

const KEYS: &[&str] = &[
    "uri",
    "name",
    "title",
    "description",
    "mime",
    "text",
    "file",
    "dir",
];

impl Section for ResourcesSection {
    type Entries = Vec<ResourceEntry>;

    fn key(&self) -> &'static str {
        "resources"
    }

    fn description(&self) -> &'static str {
        "a `resources` list"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<Vec<ResourceForm>>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<ResourceEntry> {
        let Some(items) = node.items() else {
            reader.problem(
                Some(node.location()),
                "`resources` must be a list of resources, each a `uri` with its `text`, `file` \
                 or `dir`",
            );
            return Vec::new();
        };
        let mut entries: Vec<ResourceEntry> = Vec::new();
        for item in items {
            let Some(entry) = read_entry(item, reader) else {
                continue;
            };
            if let Some(first) = entries.iter().find(|e| e.uri == entry.uri) {
                reader.problem(
                    Some(entry.location),
                    format!(
                        "resource `{}` is at line {} already: give each resource its own URI",
                        entry.uri, first.location.line
                    ),
                );
                continue;
            }
            entries.push(entry);
        }
        entries
    }
}

/// One entry, when it is well formed (its mistakes reported).
fn read_entry(node: Node<'_>, reader: &mut SectionReader<'_>) -> Option<ResourceEntry> {
    let uri = node.get("uri").and_then(Node::as_text);
    let what = match uri {
        Some(uri) => format!("resource `{uri}`"),
        None => "a resource".to_owned(),
    };
    let fields = Fields::read(node, &what, KEYS, reader)?;
    let uri = fields.required_text("uri", reader, "the URI clients read it at")?;
    let name = fields.text("name", reader);
    let title = fields.text("title", reader);
    let description = fields.text("description", reader);
    let mime = fields.text("mime", reader);
    let (content, path_at) = read_content(&fields, reader)?;
    check_uri(&fields, &uri, &content, reader)?;
    Some(ResourceEntry {
        name: name.map_or_else(|| uri.text.clone(), |name| name.text),
        uri: uri.text,
        title: title.map(|t| t.text),
        description: description.map(|d| d.text),
        mime: mime.map(|m| m.text),
        content,
        location: fields.at,
        path_at,
    })
}

/// The entry's one source of contents.
fn read_content(
    fields: &Fields<'_>,
    reader: &mut SectionReader<'_>,
) -> Option<(ResourceContent, Location)> {
    let given: Vec<&str> = ["text", "file", "dir"]
        .into_iter()
        .filter(|key| fields.has(key))
        .collect();
    match given.as_slice() {
        ["text"] => {
            let text = fields.text("text", reader)?;
            Some((ResourceContent::Text(text.text), text.value))
        }
        [key] => {
            let (path, spanned) = fields::relative_path(fields, key, reader)?;
            let content = match *key {
                "file" => ResourceContent::File(path),
                _ => ResourceContent::Dir(path),
            };
            Some((content, spanned.value))
        }
        [] => {
            reader.problem(
                Some(fields.at),
                format!(
                    "{} needs its contents: `text`, `file` (a path) or `dir` (a folder, for a \
                     URI template)",
                    fields.what
                ),
            );
            None
        }
        [_, second, ..] => {
            let at = fields.get(second).map(|(at, _)| at);
            reader.problem(
                at,
                format!(
                    "{} takes one of `text`, `file` and `dir`, not {}",
                    fields.what,
                    given.join(" and ")
                ),
            );
            None
        }
    }
}

/// A `dir` entry's URI is a template of one variable; the others' a URI.
fn check_uri(
    fields: &Fields<'_>,
    uri: &Spanned,
    content: &ResourceContent,
    reader: &mut SectionReader<'_>,
) -> Option<()> {
    let template = match UriTemplate::parse(&uri.text) {
        Ok(template) => template,
        Err(error) => {
            reader.problem(
                Some(uri.value),
                format!("`uri` of {}: {error}", fields.what),
            );
            return None;
        }
    };
    let variables: Vec<&str> = template.variables().collect();
    let problem = match (content, variables.as_slice()) {
        (ResourceContent::Dir(_), [_])
        | (ResourceContent::Text(_) | ResourceContent::File(_), []) => {
            return Some(());
        }
        (ResourceContent::Dir(_), []) => {
            "a `dir` resource's `uri` is a template whose one variable is a file's name, such \
             as notes://{name}"
                .to_owned()
        }
        (ResourceContent::Dir(_), _) => format!(
            "a `dir` resource's `uri` has one variable, a file's name; this one has {}",
            variables.len()
        ),
        (_, _) => format!(
            "`uri` has the template variable `{}`: a template names the files of a folder \
             (`dir`), not one `file` or `text`",
            variables[0]
        ),
    };
    reader.problem(Some(uri.value), format!("{}: {problem}", fields.what));
    None
}

impl ResourceEntry {
    /// The resource, its `file` or `dir` found below `base`; a missing
    /// one is a mistake at its place.
    pub(super) fn load(&self, base: &Path) -> Result<Arc<dyn Resource>, ManifestProblem> {
        let mut spec = match &self.content {
            ResourceContent::Dir(_) => {
                let template = UriTemplate::parse(&self.uri)
                    .map_err(|error| super::file_problem(self.location, error.to_string()))?;
                ResourceSpec::template(template, self.name.clone())
            }
            _ => ResourceSpec::fixed(self.uri.clone(), self.name.clone()),
        };
        spec.title = self.title.clone().map(Into::into);
        spec.description = self.description.clone().map(Into::into);
        let guessed = match &self.content {
            ResourceContent::File(path) => path.to_str().and_then(files::mime_of),
            _ => None,
        };
        spec.mime_type = self
            .mime
            .clone()
            .map(Into::into)
            .or(guessed.map(Into::into));
        let content = match &self.content {
            ResourceContent::Text(text) => {
                spec.size = Some(text.len() as u64);
                spec.cache = CacheHint::STATIC;
                Source::Text(text.clone())
            }
            ResourceContent::File(path) => {
                Source::File(self.found(base, path, "file", |m| m.is_file())?)
            }
            ResourceContent::Dir(path) => {
                Source::Dir(self.found(base, path, "folder", |m| m.is_dir())?)
            }
        };
        Ok(Arc::new(FileResource { spec, content }))
    }

    /// `path` below `base`, when it is a `kind` there.
    fn found(
        &self,
        base: &Path,
        path: &Path,
        kind: &str,
        is: impl Fn(&std::fs::Metadata) -> bool,
    ) -> Result<PathBuf, ManifestProblem> {
        let full = super::resolve(base, path);
        let problem = match std::fs::metadata(&full) {
            Ok(metadata) if is(&metadata) => return Ok(full),
            Ok(_) => format!("is not a {kind}"),
            Err(error) => error.to_string(),
        };
        Err(super::file_problem(
            self.path_at,
            format!(
                "resource `{}`: the {kind} {} ({}): {problem}",
                self.uri,
                path.display(),
                full.display()
            ),
        ))
    }
}

/// Where a [`FileResource`]'s contents are.
enum Source {
    Text(String),
    File(PathBuf),
    Dir(PathBuf),
}

/// A resource of the section: its text, or read from disk at each read.
struct FileResource {
    spec: ResourceSpec,
    content: Source,
}

impl FileResource {
    fn contents(&self, uri: String, body: Body, name: &str) -> Contents {
        let mime = self
            .spec
            .mime_type
            .as_deref()
            .or_else(|| files::mime_of(name))
            .unwrap_or(match body {
                Body::Text(_) => "text/plain",
                Body::Blob(_) => "application/octet-stream",
            });
        Contents {
            uri,
            mime_type: Some(mime.to_owned()),
            body,
            meta: None,
        }
    }
}

impl Resource for FileResource {
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        let limit = Resources::DEFAULT_MAX_READ_BYTES;
        Box::pin(async move {
            let (body, name) = match &self.content {
                Source::Text(text) => (Body::Text(text.clone()), String::new()),
                Source::File(path) => {
                    let path = path.clone();
                    let body = blocking(move || files::read_file(&path, limit)).await?;
                    (body, String::new())
                }
                Source::Dir(dir) => {
                    let dir = dir.clone();
                    let name = request.params.iter().next().map_or("", |(_, v)| v);
                    let name = name.to_owned();
                    let file = name.clone();
                    (
                        blocking(move || files::read_in(&dir, &file, limit)).await?,
                        name,
                    )
                }
            };
            Ok(vec![self.contents(request.uri, body, &name)])
        })
    }

    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        let dir = match &self.content {
            Source::Dir(dir) => Some(dir.clone()),
            Source::File(_) | Source::Text(_) => None,
        };
        Box::pin(async move {
            let Some(dir) = dir else {
                return Ok(Completion::none());
            };
            let names = blocking(move || Ok(files::names_in(&dir, &request.value))).await?;
            Ok(Completion::of(names))
        })
    }

    /// A folder's files, for `resources/list`: the plain files directly in
    /// it (the names a read takes, of its first 1,000 entries), in name
    /// order, each with its size and media type.
    fn list(&self, ctx: ToolContext) -> BoxFuture<'_, Result<Vec<ResourceSpec>, ResourceError>> {
        let _ = ctx;
        Box::pin(async move {
            let (Source::Dir(dir), ResourceUri::Template(template)) =
                (&self.content, &self.spec.uri)
            else {
                return Ok(Vec::new());
            };
            let dir = dir.clone();
            let files = blocking(move || {
                let names = files::names_in(&dir, "");
                Ok(names
                    .into_iter()
                    .map(|name| {
                        let size = std::fs::symlink_metadata(dir.join(&name)).map(|m| m.len());
                        (name, size.ok())
                    })
                    .collect::<Vec<_>>())
            })
            .await?;
            let Some(variable) = template.variables().next() else {
                return Ok(Vec::new());
            };
            let members = files.into_iter().filter_map(|(name, size)| {
                let mut params = UriParams::new();
                params.insert(variable, name.as_str());
                let uri = template.expand(&params);
                // Only a URI that reads back as this file.
                let back = template.matches(&uri)?;
                (back.get(variable) == Some(name.as_str())).then(|| {
                    let mime = self
                        .spec
                        .mime_type
                        .clone()
                        .or_else(|| files::mime_of(&name).map(std::borrow::Cow::Borrowed));
                    let mut member = ResourceSpec::fixed(uri, name);
                    member.mime_type = mime;
                    member.size = size;
                    member
                })
            });
            Ok(members.collect())
        })
    }
}

/// `work`, which reads files, on a thread where blocking is allowed.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ResourceError> + Send + 'static,
) -> Result<T, ResourceError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ResourceError::Failed(error.to_string()))?
}

// The section's form, for its schema: each doc comment is a description.

/// A resource clients read at its URI.
#[derive(JsonSchema)]
#[schemars(
    deny_unknown_fields,
    extend("oneOf" = [{"required": ["text"]}, {"required": ["file"]}, {"required": ["dir"]}])
)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct ResourceForm {
    /// Its URI, such as docs://readme; for `dir`, a URI template whose one
    /// variable is a file's name, such as notes://{name}.
    uri: String,
    /// Its name (default: the URI).
    name: Option<String>,
    /// A title for people.
    title: Option<String>,
    /// What it is.
    description: Option<String>,
    /// Its media type, such as text/markdown (for files, guessed from the
    /// extension when not given).
    mime: Option<String>,
    /// Its contents.
    text: Option<String>,
    /// A file, read at each read, relative to the registry file's folder.
    file: Option<String>,
    /// A folder, relative to the registry file's folder, whose files the
    /// template's variable names (not `.`, `..`, links, or names with /).
    dir: Option<String>,
}
