//! The two sections of a registry file this module makes tools of:
//! [`HttpTools`] (`http_tools`, a list of tools that are one HTTP request
//! each) and [`OpenApi`] (`openapi`, OpenAPI documents by name), read with
//! the place of every value; and their JSON Schemas, derived from the
//! entries' form (`forms`).

use serde_json::Value;
use tool_manifest::{AnySection, Location, Node, Section, SectionReader};

mod forms;

/// The sections this module reads, for
/// [`Manifest::parse_with`](tool_manifest::Manifest::parse_with):
/// [`HttpTools`] and [`OpenApi`].
pub const SECTIONS: &[&dyn AnySection] = &[&HttpTools, &OpenApi];

/// The `http_tools` section of a registry file: a list of tools that make
/// one HTTP request each ([`HttpToolEntry`]), read as written with the
/// place of every value; [`load`](super::load) makes them tools.
#[derive(Debug, Clone, Copy, Default)]
pub struct HttpTools;

/// The `openapi` section of a registry file: OpenAPI documents by name
/// whose operations become tools ([`OpenApiEntry`]), read as written with
/// the place of every value; [`load`](super::load) makes them tools.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenApi;

/// One entry of a registry file's `http_tools` list: a tool that makes one
/// HTTP request, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpToolEntry {
    /// The tool's name: the entry's `name`.
    pub name: String,
    /// The entry as written, as JSON (`name` included).
    pub definition: Value,
    /// The JSON pointer of the entry in the file, such as `/http_tools/0`,
    /// for [`Manifest::location_of`] and [`Manifest::key_location_of`].
    ///
    /// [`Manifest::location_of`]: tool_manifest::Manifest::location_of
    /// [`Manifest::key_location_of`]: tool_manifest::Manifest::key_location_of
    pub pointer: String,
    /// Where the entry starts.
    pub location: Location,
}

/// One entry of a registry file's `openapi` mapping: an OpenAPI document
/// whose operations become tools, as written.
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

impl Section for HttpTools {
    type Entries = Vec<HttpToolEntry>;

    fn key(&self) -> &'static str {
        "http_tools"
    }

    fn description(&self) -> &'static str {
        "an `http_tools` list"
    }

    fn schema(&self) -> Value {
        forms::http_tools()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<HttpToolEntry> {
        let Some(tools) = node.items() else {
            reader.problem(
                Some(node.location()),
                "`http_tools` must be a list of tools, each a mapping with `name`, `description` and `url`",
            );
            return Vec::new();
        };
        let mut entries = Vec::new();
        for (index, item) in tools.enumerate() {
            if !item.is_mapping() {
                reader.problem(
                    Some(item.location()),
                    "each entry of `http_tools` is a mapping with `name`, `description` and `url`",
                );
                continue;
            }
            let Some(name) = item.get("name").and_then(Node::as_text) else {
                reader.problem(Some(item.location()), "this HTTP tool has no `name`");
                continue;
            };
            let pointer = format!("/http_tools/{index}");
            let definition = reader.to_json(item, &pointer);
            entries.push(HttpToolEntry {
                name: name.to_owned(),
                definition,
                pointer,
                location: item.location(),
            });
        }
        entries
    }
}

impl Section for OpenApi {
    type Entries = Vec<OpenApiEntry>;

    fn key(&self) -> &'static str {
        "openapi"
    }

    fn description(&self) -> &'static str {
        "an `openapi` mapping"
    }

    fn schema(&self) -> Value {
        forms::openapi()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<OpenApiEntry> {
        let Some(documents) = node.entries() else {
            reader.problem(
                Some(node.location()),
                "`openapi` must be a mapping from a name to an OpenAPI document's entry (`document`, `base_url`, ...)",
            );
            return Vec::new();
        };
        let mut entries = Vec::new();
        for (name, entry) in documents {
            let name = name.as_str();
            let at = entry.location();
            if !tool_manifest::is_entry_name(name) {
                reader.problem(
                    Some(at),
                    format!(
                        "OpenAPI entry \"{}\": a name is 1 to 64 letters, digits, `_` or `-`",
                        tool_runtime::__private::quote::name(name)
                    ),
                );
                continue;
            }
            if !entry.is_mapping() {
                reader.problem(
                    Some(at),
                    format!(
                        "OpenAPI entry \"{name}\" must be a mapping with `document` (a path or URL), \
                         and optionally `base_url`, `include`, `exclude`, `auth`"
                    ),
                );
                continue;
            }
            let pointer = format!("/openapi/{name}");
            let definition = reader.to_json(entry, &pointer);
            entries.push(OpenApiEntry {
                name: name.to_owned(),
                definition,
                pointer,
                location: at,
            });
        }
        entries
    }
}
