//! The `mcp_servers` section: MCP servers whose tools the registry offers
//! beside its own (an MCP client, such as tool-mcp's, connects to them).

use marked_yaml::Node;
use serde_json::{Value, json};

use super::document::{Location, Locations, to_json};
use super::problem::{ManifestProblem, problem};
use super::section::keyed_entry;

/// One entry of a registry file's `mcp_servers` section: an MCP server
/// whose tools the registry offers beside its own.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerEntry {
    /// The server's name: its key in `mcp_servers`.
    pub name: String,
    /// How to reach it, as written, less `prefix`: `{command, args, env}`
    /// for a server to spawn, `{url, headers}` for one reached over
    /// streamable HTTP (the shape MCP hosts use; an MCP client checks it).
    pub config: Value,
    /// A prefix for the names of the server's tools (`prefix:`), if any.
    pub prefix: Option<String>,
    /// Where the entry starts.
    pub location: Location,
}

/// The section's entries, in file order (none when it is absent).
pub(super) fn read(
    section: Option<&Node>,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Vec<McpServerEntry> {
    let mut entries = Vec::new();
    match section {
        None => {}
        Some(Node::Mapping(servers)) => {
            for (name, server) in servers.iter() {
                entries.extend(read_server(name.as_str(), server, locations, problems));
            }
        }
        Some(other) => problems.push(problem(
            other.span().start(),
            "`mcp_servers` must be a mapping from each server's name to how to reach it",
        )),
    }
    entries
}

fn read_server(
    name: &str,
    node: &Node,
    locations: &mut Locations,
    problems: &mut Vec<ManifestProblem>,
) -> Option<McpServerEntry> {
    let at = keyed_entry(
        "MCP server",
        name,
        "a server's name is 1 to 64 letters, digits, `_` or `-`",
        ": `command` (with `args`, `env`) or `url` (with `headers`)",
        node,
        problems,
    )?;
    let pointer = format!("/mcp_servers/{name}");
    let mut config = to_json(node, &pointer, locations);
    let prefix = match config.as_object_mut().and_then(|c| c.remove("prefix")) {
        None => None,
        Some(Value::String(prefix)) => Some(prefix),
        Some(_) => {
            problems.push(ManifestProblem {
                location: locations.values.get(&format!("{pointer}/prefix")).copied(),
                message: format!("MCP server \"{name}\": `prefix` is text"),
            });
            None
        }
    };
    Some(McpServerEntry {
        name: name.to_owned(),
        config,
        prefix,
        location: at,
    })
}

/// The section's JSON Schema: servers by name, each spawned or reached
/// over streamable HTTP.
pub(super) fn schema() -> Value {
    json!({
        "type": "object",
        "description": "MCP servers whose tools the registry offers too, by name, in the shape MCP hosts use.",
        "propertyNames": {"pattern": "^[a-zA-Z0-9_-]{1,64}$"},
        "additionalProperties": {
            "anyOf": [
                {
                    "type": "object",
                    "description": "A server to spawn, speaking MCP on its stdin and stdout.",
                    "properties": with_settings(json!({
                        "type": {"enum": ["stdio"]},
                        "command": {"type": "string", "description": "The program to run."},
                        "args": {"type": "array", "items": {"type": "string"}, "description": "Its arguments."},
                        "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables set for it."},
                        "prefix": {"type": "string", "description": "A prefix for the names of its tools."}
                    })),
                    "required": ["command"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "description": "A server reached over streamable HTTP.",
                    "properties": with_settings(json!({
                        "type": {"enum": ["http", "streamable-http", "streamableHttp"]},
                        "url": {"type": "string", "description": "The endpoint, such as http://127.0.0.1:3001/mcp."},
                        "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "HTTP headers sent with every request."},
                        "prefix": {"type": "string", "description": "A prefix for the names of its tools."}
                    })),
                    "required": ["url"],
                    "additionalProperties": false
                }
            ]
        }
    })
}

/// `properties` followed by how the proxy treats a server: its time limit
/// to answer, and what it takes in from it (tool-mcp's `McpLimits`).
fn with_settings(mut properties: Value) -> Value {
    let settings = json!({
        "connect_timeout_ms": {"type": "integer", "minimum": 1, "description": "How long starting or reaching the server, its handshake and its first tool listing may take, in milliseconds (default 10000). `serve` does not wait for it."},
        "max_tools": {"type": "integer", "minimum": 1, "description": "The most tools the server may list; a longer list is refused, paging stops there (default 1000)."},
        "max_list_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes its whole tool list may take, as JSON; a larger list is refused, paging stops there (default 16 MiB)."},
        "max_schema_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of one tool's input or output schema, as JSON; a tool over it is left out (default 256 KiB)."},
        "max_schema_depth": {"type": "integer", "minimum": 1, "maximum": 64, "description": "How deep one tool's input or output schema may nest; a deeper tool is left out (default 32)."},
        "max_result_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of one message from the server, such as a call's answer or a page of its tool list; a call whose answer is larger fails at once (default 4 MiB)."}
    });
    if let (Some(object), Value::Object(settings)) = (properties.as_object_mut(), settings) {
        object.extend(settings);
    }
    properties
}
