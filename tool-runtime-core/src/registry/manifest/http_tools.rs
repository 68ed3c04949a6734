//! The `http_tools` section: tools that are one HTTP request each, read as
//! data (tool-builtin's `http_tools` module turns them into tools).

use marked_yaml::Node;
use serde_json::{Value, json};

use super::document::{Location, Locations, location, to_json};
use super::problem::{ManifestProblem, problem};

/// One entry of a registry file's `http_tools` list: a tool that makes one
/// HTTP request, as written (tool-builtin's `http_tools` module reads it).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpToolEntry {
    /// The tool's name: the entry's `name`.
    pub name: String,
    /// The entry as written, as JSON (`name` included).
    pub definition: Value,
    /// The JSON pointer of the entry in the file, such as `/http_tools/0`,
    /// for [`Manifest::location_of`] and [`Manifest::key_location_of`].
    ///
    /// [`Manifest::location_of`]: super::Manifest::location_of
    /// [`Manifest::key_location_of`]: super::Manifest::key_location_of
    pub pointer: String,
    /// Where the entry starts.
    pub location: Location,
}

/// The section's entries, in file order (none when it is absent).
pub(super) fn read(
    section: Option<&Node>,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Vec<HttpToolEntry> {
    let mut entries = Vec::new();
    match section {
        None => {}
        Some(Node::Sequence(tools)) => {
            for (index, item) in tools.iter().enumerate() {
                entries.extend(read_tool(index, item, locations, problems));
            }
        }
        Some(other) => problems.push(problem(
            other.span().start(),
            "`http_tools` must be a list of tools, each a mapping with `name`, `description` and `url`",
        )),
    }
    entries
}

fn read_tool(
    index: usize,
    node: &Node,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<HttpToolEntry> {
    let Node::Mapping(mapping) = node else {
        problems.push(problem(
            node.span().start(),
            "each entry of `http_tools` is a mapping with `name`, `description` and `url`",
        ));
        return None;
    };
    let Some(name) = mapping.get_scalar("name") else {
        problems.push(problem(node.span().start(), "this HTTP tool has no `name`"));
        return None;
    };
    let pointer = format!("/http_tools/{index}");
    let definition = to_json(node, &pointer, locations);
    Some(HttpToolEntry {
        name: name.as_str().to_owned(),
        definition,
        pointer,
        location: location(node.span().start()),
    })
}

/// The section's JSON Schema: a list of tools.
pub(super) fn schema() -> Value {
    json!({
        "type": "array",
        "description": "Tools that make one HTTP request each.",
        "items": tool_schema()
    })
}

/// The JSON Schema of one HTTP tool.
fn tool_schema() -> Value {
    let name = json!({"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"});
    json!({
        "type": "object",
        "description": "A tool that makes one HTTP request to the host of its URL, and nowhere else.",
        "properties": with_limits(json!({
            "name": name,
            "description": {"type": "string", "description": "What the tool does, for the model."},
            "title": {"type": "string", "description": "A human-readable title."},
            "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"], "description": "The HTTP method (default GET)."},
            "url": {"type": "string", "description": "The URL template, such as https://api.example.com/items/{id}: {name} placeholders in the path are filled with the parameters' values, percent-encoded."},
            "parameters": {
                "description": "The arguments: a list of `name: {type, description, required, default, enum}`, or a JSON Schema of an object.",
                "anyOf": [
                    {"type": "array", "items": {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": parameter_schema()}},
                    {"type": "object", "description": "A JSON Schema describing an object."}
                ]
            },
            "query": {
                "description": "Query parameters: name to a template (\"{limit}\", \"${API_KEY}\", text), or a list of parameter names sent under their own names.",
                "anyOf": [
                    {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}},
                    {"type": "array", "items": {"type": "string"}}
                ]
            },
            "headers": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}, "description": "Request headers: name to a template; ${VAR} takes a value from the environment, which is never shown in errors."},
            "body": {"description": "The JSON body: any JSON value in which a string \"{name}\" is the argument's value, and other strings are templates."}
        })),
        "required": ["name", "description", "url"],
        "additionalProperties": false
    })
}

/// The JSON Schema of one of an HTTP tool's `parameters`: its type alone,
/// or `{type, description, required, default, enum}`.
fn parameter_schema() -> Value {
    json!({
        "anyOf": [
            {"enum": ["string", "integer", "number", "boolean", "array", "object"], "description": "The parameter's type alone."},
            {
                "type": "object",
                "properties": {
                    "type": {"enum": ["string", "integer", "number", "boolean", "array", "object"], "description": "The JSON type (default string)."},
                    "description": {"type": "string", "description": "What the model should give."},
                    "required": {"type": "boolean", "description": "Whether the model must give it (default false)."},
                    "default": {"description": "The value used when the model gives none."},
                    "enum": {"type": "array", "description": "The values allowed."}
                },
                "additionalProperties": false
            }
        ]
    })
}

/// `properties` followed by the guards of one HTTP tool (or of an OpenAPI
/// document's tools): time limits, sizes and redirects.
pub(super) fn with_limits(mut properties: Value) -> Value {
    let limits = json!({
        "timeout_ms": {"type": "integer", "minimum": 1, "description": "The time limit of one call, redirects and reading the body included, in milliseconds (default 30000)."},
        "connect_timeout_ms": {"type": "integer", "minimum": 1, "description": "The time limit for opening each connection, in milliseconds (default 10000)."},
        "max_response_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of a response body read (default 1 MiB)."},
        "max_request_bytes": {"type": "integer", "minimum": 0, "description": "The largest request body sent, in bytes (default 1 MiB)."},
        "max_redirects": {"type": "integer", "minimum": 0, "maximum": 20, "description": "How many redirects one call follows, each to the tool's own host only (default 5)."}
    });
    if let (Some(object), Value::Object(limits)) = (properties.as_object_mut(), limits) {
        object.extend(limits);
    }
    properties
}
