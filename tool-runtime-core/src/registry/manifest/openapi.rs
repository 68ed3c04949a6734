//! The `openapi` section: OpenAPI documents whose operations become tools,
//! read as data (tool-builtin's `http_tools` module turns them into tools).

use marked_yaml::Node;
use serde_json::{Value, json};

use super::document::{Location, Locations, to_json};
use super::http_tools::with_limits;
use super::problem::{ManifestProblem, problem};
use super::section::keyed_entry;

/// One entry of a registry file's `openapi` mapping: an OpenAPI document
/// whose operations become tools, as written (tool-builtin's `http_tools`
/// module reads it).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenApiEntry {
    /// The entry's name: its key in `openapi`.
    pub name: String,
    /// The entry as written, as JSON (`document`, `base_url`, ...).
    pub definition: Value,
    /// The JSON pointer of the entry in the file, such as `/openapi/petstore`.
    pub pointer: String,
    /// Where the entry starts.
    pub location: Location,
}

/// The section's entries, in file order (none when it is absent).
pub(super) fn read(
    section: Option<&Node>,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Vec<OpenApiEntry> {
    let mut entries = Vec::new();
    match section {
        None => {}
        Some(Node::Mapping(documents)) => {
            for (name, entry) in documents.iter() {
                entries.extend(read_entry(name.as_str(), entry, locations, problems));
            }
        }
        Some(other) => problems.push(problem(
            other.span().start(),
            "`openapi` must be a mapping from a name to an OpenAPI document's entry (`document`, `base_url`, ...)",
        )),
    }
    entries
}

fn read_entry(
    name: &str,
    node: &Node,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<OpenApiEntry> {
    let at = keyed_entry(
        "OpenAPI entry",
        name,
        "a name is 1 to 64 letters, digits, `_` or `-`",
        " with `document` (a path or URL), and optionally `base_url`, `include`, `exclude`, `auth`",
        node,
        problems,
    )?;
    let pointer = format!("/openapi/{name}");
    let definition = to_json(node, &pointer, locations);
    Some(OpenApiEntry {
        name: name.to_owned(),
        definition,
        pointer,
        location: at,
    })
}

/// The section's JSON Schema: documents by name.
pub(super) fn schema() -> Value {
    json!({
        "type": "object",
        "description": "OpenAPI documents, by name, whose operations become tools.",
        "propertyNames": {"pattern": "^[a-zA-Z0-9_-]{1,64}$"},
        "additionalProperties": entry_schema()
    })
}

/// The JSON Schema of one document's entry.
fn entry_schema() -> Value {
    json!({
        "type": "object",
        "description": "An OpenAPI 3.0 or 3.1 document whose operations become tools.",
        "properties": with_limits(json!({
            "document": {"type": "string", "description": "The document: a path (relative to this file) or an http(s) URL, JSON or YAML."},
            "base_url": {"type": "string", "description": "The URL the operations' paths are put after, and the only origin their requests (and credentials) go to. Required for a document read from a file; for a document fetched from a URL, the default is that URL's origin with the path of the document's first server."},
            "allowed_origins": {"type": "array", "items": {"type": "string"}, "description": "Origins (scheme, host and optional port, such as https://api.example.com:8443) other than its own that a document fetched from a URL may name in its first `servers` entry; without it, such a server is refused."},
            "include": {"type": "array", "items": {"type": "string"}, "description": "Only the operations with these operationIds or tags."},
            "exclude": {"type": "array", "items": {"type": "string"}, "description": "Not the operations with these operationIds or tags."},
            "prefix": {"type": "string", "description": "A prefix for the tools' names."},
            "auth": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Credentials by security scheme name (of components.securitySchemes), such as ${PETSTORE_KEY}."},
            "headers": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}, "description": "Headers sent with every call; ${VAR} takes a value from the environment."}
        })),
        "required": ["document"],
        "additionalProperties": false
    })
}
