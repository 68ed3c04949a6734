//! A registry from a declarative file: which linked tools to enable, their
//! aliases and their configuration, in YAML (or JSON, which YAML reads too).
//!
//! ```yaml
//! # tools.yaml
//! tools:
//!   - weather_forecast          # a name alone enables the tool
//!   - name: search
//!     aliases: [web_search]     # more names for it
//!     config:                   # validated against its configuration schema
//!       max_results: 5
//! mcp_servers:                  # MCP servers whose tools are offered too
//!   everything:                 # in the shape MCP hosts use
//!     command: npx
//!     args: ["-y", "@modelcontextprotocol/server-everything"]
//!     prefix: everything_       # optional: a prefix for the tools' names
//!   remote:
//!     url: http://127.0.0.1:3001/mcp
//!     headers: {Authorization: Bearer secret}
//! http_tools:                   # tools that are one HTTP request each
//!   - name: get_item
//!     description: Fetches one item.
//!     url: https://api.example.com/items/{id}
//!     parameters:
//!       - id: {type: string, required: true}
//! openapi:                      # a tool per operation of an OpenAPI document
//!   petstore:
//!     document: petstore.json
//!     base_url: https://petstore.example.com/v2   # where its requests go
//! ```
//!
//! The runtime reads `mcp_servers`, `http_tools` and `openapi` as data
//! ([`Manifest::mcp_servers`], [`Manifest::http_tools`],
//! [`Manifest::openapi`]); an MCP client (tool-mcp's, which tool-cli uses)
//! connects to the servers, and tool-builtin's `http_tools` module (feature
//! `http-tools`) turns the other two into tools. Each reports a mistake in
//! an entry at its line and column through [`Manifest::location_of`] and
//! [`Manifest::key_location_of`].
//!
//! Every mistake (a tool no linked crate has, a tool listed twice, an alias
//! that collides, a bad configuration field, an unknown key) is reported at
//! once, each with its line and column. The file's own JSON Schema is
//! [`schema()`], published as `docs/registry-file.schema.json`.

use std::collections::HashMap;
use std::fmt;

use marked_yaml::types::{MarkedMappingNode, Marker};
use marked_yaml::{LoaderOptions, Node};
use serde_json::{Map, Value};

use crate::registry::{Registry, RegistryBuilder, RegistryProblem};

/// A parsed registry file.
#[derive(Debug, Clone)]
pub struct Manifest {
    source: String,
    entries: Vec<Entry>,
    /// Where each value and each key was written, by JSON pointer.
    locations: Locations,
    /// Mistakes found while reading, reported with those found at build.
    problems: Vec<ManifestProblem>,
    /// The `mcp_servers` section, in file order.
    servers: Vec<McpServerEntry>,
    /// The `http_tools` section, in file order.
    http_tools: Vec<HttpToolEntry>,
    /// The `openapi` section, in file order.
    openapi: Vec<OpenApiEntry>,
}

/// Where the values and keys of a YAML or JSON text were written, by the
/// JSON pointer (RFC 6901) of the value.
#[derive(Debug, Clone, Default)]
struct Locations {
    values: HashMap<String, Location>,
    keys: HashMap<String, Location>,
}

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
    pub pointer: String,
    /// Where the entry starts.
    pub location: Location,
}

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

/// A YAML or JSON document read with the line and column of every value
/// and key, for files a registry file points at (an OpenAPI document), so
/// that their mistakes can be reported where they are.
///
/// ```
/// use tool_runtime::manifest::{Document, Location};
///
/// let document = Document::parse("openapi: 3.1.0\npaths:\n  /pets/{id}:\n    get: {}\n").unwrap();
/// assert_eq!(document.value()["openapi"], "3.1.0");
/// // Pointers are RFC 6901: `/` in a key is written `~1`.
/// assert_eq!(document.location_of("/paths/~1pets~1{id}/get"), Some(Location { line: 4, column: 10 }));
/// assert_eq!(document.key_location_of("/paths/~1pets~1{id}/get"), Some(Location { line: 4, column: 5 }));
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    value: Value,
    locations: Locations,
}

impl Document {
    /// Reads a YAML (or JSON) text. Plain scalars are typed as in registry
    /// files (YAML 1.2's core types); a duplicate key is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let root = parse_yaml(text)?;
        let mut locations = Locations::default();
        let value = to_json(&root, "", &mut locations);
        Ok(Document { value, locations })
    }

    /// The document as JSON.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Where the value at the JSON pointer `pointer` was written.
    pub fn location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.values.get(pointer).copied()
    }

    /// Where the key of the value at `pointer` was written.
    pub fn key_location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.keys.get(pointer).copied()
    }
}

fn parse_yaml(text: &str) -> Result<Node, String> {
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true);
    marked_yaml::parse_yaml_with_options(0, text, options).map_err(|error| error.to_string())
}

/// `token` escaped for a JSON pointer (RFC 6901): `~` as `~0`, `/` as `~1`.
pub fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

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

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    at: Location,
    aliases: Vec<(String, Location)>,
    config: Option<(Value, Location)>,
}

/// A line and column in a registry file, counting from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The line.
    pub line: usize,
    /// The column.
    pub column: usize,
}

impl From<&Marker> for Location {
    fn from(marker: &Marker) -> Self {
        Location {
            line: marker.line(),
            column: marker.column(),
        }
    }
}

impl fmt::Display for Location {
    /// `line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// One mistake in a registry file.
///
/// Its `Display` text is `line:column: message`, or the message alone when
/// the location is not known; [`ManifestError`] puts the file's name in
/// front of each.
///
/// ```
/// use tool_runtime::manifest::{Location, ManifestProblem};
///
/// let problem = ManifestProblem {
///     location: Some(Location { line: 4, column: 7 }),
///     message: "unknown key \"nmae\"".into(),
/// };
/// assert_eq!(problem.to_string(), "4:7: unknown key \"nmae\"");
/// let nowhere = ManifestProblem { location: None, ..problem };
/// assert_eq!(nowhere.to_string(), "unknown key \"nmae\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestProblem {
    /// Where it is, when known.
    pub location: Option<Location>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Every mistake found in a registry file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The file's name, as given.
    pub source: String,
    /// Each mistake, in file order where locations are known.
    pub problems: Vec<ManifestProblem>,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            // `file:line:column: message`, or `file: message`.
            let colon = if problem.location.is_some() {
                ":"
            } else {
                ": "
            };
            write!(f, "{}{colon}{problem}", self.source)?;
        }
        Ok(())
    }
}

impl std::error::Error for ManifestError {}

impl Manifest {
    /// Reads a registry file from disk.
    pub fn from_path(path: impl AsRef<std::path::Path>) -> Result<Self, ManifestError> {
        let path = path.as_ref();
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| ManifestError {
            source: source.clone(),
            problems: vec![ManifestProblem {
                location: None,
                message: format!("cannot read the file: {error}"),
            }],
        })?;
        Self::parse(&source, &text)
    }

    /// Parses a registry file's text; `source` names it in messages.
    pub fn parse(source: &str, text: &str) -> Result<Self, ManifestError> {
        let fail = |problems: Vec<ManifestProblem>| ManifestError {
            source: source.to_owned(),
            problems,
        };
        let root = parse_yaml(text).map_err(|error| {
            fail(vec![ManifestProblem {
                location: None,
                message: format!("not valid YAML: {error}"),
            }])
        })?;
        let mut problems = Vec::new();
        let mut manifest = Manifest {
            source: source.to_owned(),
            entries: Vec::new(),
            locations: Locations::default(),
            problems: Vec::new(),
            servers: Vec::new(),
            http_tools: Vec::new(),
            openapi: Vec::new(),
        };
        let Some(root) = root.as_mapping() else {
            return Err(fail(vec![problem(
                root.span().start(),
                "the file must be a mapping with a `tools` list",
            )]));
        };
        const SECTIONS: [&str; 4] = ["tools", "mcp_servers", "http_tools", "openapi"];
        for (key, _) in root.iter() {
            if !SECTIONS.contains(&key.as_str()) && key.as_str() != "$schema" {
                let suggestion = crate::names::closest(key.as_str(), SECTIONS.into_iter())
                    .map(|s| format!("did you mean \"{s}\"? "))
                    .unwrap_or_default();
                problems.push(problem(
                    key.span().start(),
                    format!(
                        "unknown key \"{}\"; {suggestion}the file has a `tools` list, an `mcp_servers` mapping, an `http_tools` list and an `openapi` mapping (and optionally `$schema`)",
                        crate::quote::name(key.as_str())
                    ),
                ));
            }
        }
        match root.get_node("http_tools") {
            None => {}
            Some(Node::Sequence(tools)) => {
                for (index, item) in tools.iter().enumerate() {
                    manifest.read_http_tool(index, item, &mut problems);
                }
            }
            Some(other) => problems.push(problem(
                other.span().start(),
                "`http_tools` must be a list of tools, each a mapping with `name`, `description` and `url`",
            )),
        }
        match root.get_node("openapi") {
            None => {}
            Some(Node::Mapping(documents)) => {
                for (name, entry) in documents.iter() {
                    manifest.read_openapi(name.as_str(), entry, &mut problems);
                }
            }
            Some(other) => problems.push(problem(
                other.span().start(),
                "`openapi` must be a mapping from a name to an OpenAPI document's entry (`document`, `base_url`, ...)",
            )),
        }
        match root.get_node("mcp_servers") {
            None => {}
            Some(Node::Mapping(servers)) => {
                for (name, server) in servers.iter() {
                    manifest.read_server(name.as_str(), server, &mut problems);
                }
            }
            Some(other) => problems.push(problem(
                other.span().start(),
                "`mcp_servers` must be a mapping from each server's name to how to reach it",
            )),
        }
        match root.get_node("tools") {
            None if SECTIONS
                .iter()
                .any(|section| root.get_node(section).is_some()) => {}
            None => problems.push(problem(root.span().start(), "missing the `tools` list")),
            Some(Node::Sequence(tools)) => {
                for (index, item) in tools.iter().enumerate() {
                    manifest.read_entry(index, item, &mut problems);
                }
            }
            Some(other) => problems.push(problem(other.span().start(), "`tools` must be a list")),
        }
        // Mistakes inside entries are kept and reported at build, with the
        // ones only the registry can find, so a file shows all at once.
        manifest.problems = problems;
        Ok(manifest)
    }

    /// The mistakes found while reading the file (more may show at build).
    pub fn problems(&self) -> &[ManifestProblem] {
        &self.problems
    }

    fn read_entry(&mut self, index: usize, node: &Node, problems: &mut Vec<ManifestProblem>) {
        let at = location(node.span().start());
        let mapping: &MarkedMappingNode = match node {
            Node::Scalar(name) => {
                self.entries.push(Entry {
                    name: name.as_str().to_owned(),
                    at,
                    aliases: Vec::new(),
                    config: None,
                });
                return;
            }
            Node::Mapping(mapping) => mapping,
            Node::Sequence(_) => {
                problems.push(problem(
                    node.span().start(),
                    "each entry is a tool name or a mapping with `name`",
                ));
                return;
            }
        };
        for (key, _) in mapping.iter() {
            if !matches!(key.as_str(), "name" | "aliases" | "config") {
                let suggestion =
                    crate::names::closest(key.as_str(), ["name", "aliases", "config"].into_iter())
                        .map(|s| format!("did you mean \"{s}\"? "))
                        .unwrap_or_default();
                problems.push(problem(
                    key.span().start(),
                    format!("unknown key \"{}\"; {suggestion}an entry has `name`, `aliases` and `config`", key.as_str()),
                ));
            }
        }
        let Some(name) = mapping.get_scalar("name") else {
            problems.push(problem(node.span().start(), "this entry has no `name`"));
            return;
        };
        let mut entry = Entry {
            name: name.as_str().to_owned(),
            at: location(name.span().start()),
            aliases: Vec::new(),
            config: None,
        };
        match mapping.get_node("aliases") {
            None => {}
            Some(Node::Sequence(aliases)) => {
                for alias in aliases.iter() {
                    match alias.as_scalar() {
                        Some(text) => entry
                            .aliases
                            .push((text.as_str().to_owned(), location(text.span().start()))),
                        None => problems.push(problem(alias.span().start(), "an alias is a name")),
                    }
                }
            }
            Some(Node::Scalar(alias)) => entry
                .aliases
                .push((alias.as_str().to_owned(), location(alias.span().start()))),
            Some(other) => problems.push(problem(
                other.span().start(),
                "`aliases` is a list of names",
            )),
        }
        if let Some(config) = mapping.get_node("config") {
            let pointer = format!("/tools/{index}/config");
            let value = to_json(config, &pointer, &mut self.locations);
            entry.config = Some((value, location(config.span().start())));
        }
        self.entries.push(entry);
    }

    fn read_server(&mut self, name: &str, node: &Node, problems: &mut Vec<ManifestProblem>) {
        let Some(at) = keyed_entry(
            "MCP server",
            name,
            "a server's name is 1 to 64 letters, digits, `_` or `-`",
            ": `command` (with `args`, `env`) or `url` (with `headers`)",
            node,
            problems,
        ) else {
            return;
        };
        let pointer = format!("/mcp_servers/{name}");
        let mut config = to_json(node, &pointer, &mut self.locations);
        let prefix = match config.as_object_mut().and_then(|c| c.remove("prefix")) {
            None => None,
            Some(Value::String(prefix)) => Some(prefix),
            Some(_) => {
                problems.push(ManifestProblem {
                    location: self.location_of(&format!("{pointer}/prefix")),
                    message: format!("MCP server \"{name}\": `prefix` is text"),
                });
                None
            }
        };
        self.servers.push(McpServerEntry {
            name: name.to_owned(),
            config,
            prefix,
            location: at,
        });
    }

    fn read_http_tool(&mut self, index: usize, node: &Node, problems: &mut Vec<ManifestProblem>) {
        let Node::Mapping(mapping) = node else {
            problems.push(problem(
                node.span().start(),
                "each entry of `http_tools` is a mapping with `name`, `description` and `url`",
            ));
            return;
        };
        let Some(name) = mapping.get_scalar("name") else {
            problems.push(problem(node.span().start(), "this HTTP tool has no `name`"));
            return;
        };
        let pointer = format!("/http_tools/{index}");
        let definition = to_json(node, &pointer, &mut self.locations);
        self.http_tools.push(HttpToolEntry {
            name: name.as_str().to_owned(),
            definition,
            pointer,
            location: location(node.span().start()),
        });
    }

    fn read_openapi(&mut self, name: &str, node: &Node, problems: &mut Vec<ManifestProblem>) {
        let Some(at) = keyed_entry(
            "OpenAPI entry",
            name,
            "a name is 1 to 64 letters, digits, `_` or `-`",
            " with `document` (a path or URL), and optionally `base_url`, `include`, `exclude`, `auth`",
            node,
            problems,
        ) else {
            return;
        };
        let pointer = format!("/openapi/{name}");
        let definition = to_json(node, &pointer, &mut self.locations);
        self.openapi.push(OpenApiEntry {
            name: name.to_owned(),
            definition,
            pointer,
            location: at,
        });
    }

    /// The file's `mcp_servers` entries, in file order.
    pub fn mcp_servers(&self) -> &[McpServerEntry] {
        &self.servers
    }

    /// The file's `http_tools` entries, in file order.
    pub fn http_tools(&self) -> &[HttpToolEntry] {
        &self.http_tools
    }

    /// The file's `openapi` entries, in file order.
    pub fn openapi(&self) -> &[OpenApiEntry] {
        &self.openapi
    }

    /// Where the value at `pointer` was written: a JSON pointer (RFC 6901)
    /// into the file as JSON, such as `/mcp_servers/everything/args/0` or
    /// `/tools/2/config/max_results`.
    pub fn location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.values.get(pointer).copied()
    }

    /// Where the key of the value at `pointer` was written (`/http_tools/0/url`
    /// gives where `url:` is), for a mistake in the key itself.
    pub fn key_location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.keys.get(pointer).copied()
    }

    /// The name the file goes by in messages (its path).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The names of the tools the file enables, in file order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|entry| entry.name.as_str())
    }

    /// A builder holding the file's tools, aliases and configurations, for
    /// more setup in code before [`RegistryBuilder::build`]. Locations are
    /// lost on this path; [`build`](Self::build) keeps them.
    pub fn builder(&self) -> RegistryBuilder {
        self.builder_with(Registry::builder())
    }

    fn builder_with(&self, mut builder: RegistryBuilder) -> RegistryBuilder {
        builder = builder.global_named(self.entries.iter().map(|e| e.name.clone()));
        for entry in &self.entries {
            for (alias, _) in &entry.aliases {
                builder = builder.alias(alias.clone(), entry.name.clone());
            }
            if let Some((config, _)) = &entry.config {
                builder = builder.configure_from_file(entry.name.clone(), config.clone());
            }
        }
        builder
    }

    /// Builds the registry the file describes, reporting every mistake with
    /// its location.
    pub fn build(&self) -> Result<Registry, ManifestError> {
        self.build_with(Registry::builder())
    }

    /// Like [`build`](Self::build), starting from a builder set up in code
    /// (state, policies, configuration the file may override).
    pub fn build_with(&self, builder: RegistryBuilder) -> Result<Registry, ManifestError> {
        let mut problems = self.problems.clone();
        let mut seen: HashMap<&str, Location> = HashMap::new();
        for entry in &self.entries {
            if let Some(first) = seen.get(entry.name.as_str()) {
                problems.push(ManifestProblem {
                    location: Some(entry.at),
                    message: format!(
                        "tool \"{}\" is listed twice (first at line {}); remove one entry",
                        entry.name, first.line
                    ),
                });
            } else {
                seen.insert(&entry.name, entry.at);
            }
        }
        match self.builder_with(builder).build() {
            Ok(registry) if problems.is_empty() => return Ok(registry),
            Ok(_) => {}
            Err(error) => {
                for registry_problem in error.problems() {
                    problems.extend(self.locate(registry_problem));
                }
            }
        }
        problems.sort_by_key(|p| p.location.map(|l| (l.line, l.column)));
        Err(ManifestError {
            source: self.source.clone(),
            problems,
        })
    }

    /// Finds where in the file a registry problem comes from.
    fn locate(&self, registry_problem: &RegistryProblem) -> Vec<ManifestProblem> {
        let entry_named = |name: &str| self.entries.iter().position(|e| e.name == name);
        match registry_problem {
            RegistryProblem::UnknownName { name, .. } => vec![ManifestProblem {
                location: entry_named(name).map(|i| self.entries[i].at),
                message: registry_problem.to_string(),
            }],
            RegistryProblem::InvalidConfig { tool, problems, .. } => {
                let Some(index) = entry_named(tool) else {
                    return vec![ManifestProblem {
                        location: None,
                        message: registry_problem.to_string(),
                    }];
                };
                let entry = &self.entries[index];
                problems
                    .iter()
                    .map(|arg| {
                        let pointer =
                            format!("/tools/{index}/config/{}", arg.field.replace('.', "/"));
                        let location = self
                            .locations
                            .values
                            .get(&pointer)
                            .copied()
                            .or(entry.config.as_ref().map(|(_, at)| *at))
                            .unwrap_or(entry.at);
                        ManifestProblem {
                            location: Some(location),
                            message: format!("configuration of \"{tool}\": {arg}"),
                        }
                    })
                    .collect()
            }
            RegistryProblem::NameCollision { name, .. } => {
                let at = self.entries.iter().find_map(|entry| {
                    entry
                        .aliases
                        .iter()
                        .find(|(alias, _)| alias == name)
                        .map(|(_, at)| *at)
                });
                vec![ManifestProblem {
                    location: at,
                    message: registry_problem.to_string(),
                }]
            }
            RegistryProblem::UnexpectedConfig { tool, .. } => vec![ManifestProblem {
                location: entry_named(tool)
                    .and_then(|i| self.entries[i].config.as_ref().map(|(_, at)| *at)),
                message: registry_problem.to_string(),
            }],
            other => vec![ManifestProblem {
                location: None,
                message: other.to_string(),
            }],
        }
    }
}

/// Where `node`, the entry `name` of a section keyed by names (`what`:
/// "MCP server", "OpenAPI entry"), starts, when its name is valid and it
/// is a mapping; otherwise the problem (`name_rule` broken, or not a
/// mapping of `shape`) is pushed.
fn keyed_entry(
    what: &str,
    name: &str,
    name_rule: &str,
    shape: &str,
    node: &Node,
    problems: &mut Vec<ManifestProblem>,
) -> Option<Location> {
    let at = location(node.span().start());
    let message = if !valid_name(name) {
        format!("{what} \"{}\": {name_rule}", crate::quote::name(name))
    } else if !matches!(node, Node::Mapping(_)) {
        format!("{what} \"{name}\" must be a mapping{shape}")
    } else {
        return Some(at);
    };
    problems.push(ManifestProblem {
        location: Some(at),
        message,
    });
    None
}

/// Whether `name` is 1 to 64 letters, digits, `_` or `-`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn location(marker: Option<&Marker>) -> Location {
    marker
        .map(Location::from)
        .unwrap_or(Location { line: 1, column: 1 })
}

fn problem(marker: Option<&Marker>, message: impl Into<String>) -> ManifestProblem {
    ManifestProblem {
        location: marker.map(Location::from),
        message: message.into(),
    }
}

/// Converts a YAML node to JSON (plain scalars typed as YAML 1.2 core
/// schema: null, booleans, numbers; quoted scalars stay strings), recording
/// where each value and each key was written.
fn to_json(node: &Node, pointer: &str, locations: &mut Locations) -> Value {
    locations
        .values
        .insert(pointer.to_owned(), location(node.span().start()));
    match node {
        Node::Scalar(scalar) => {
            let text = scalar.as_str();
            if !scalar.may_coerce() {
                return Value::String(text.to_owned());
            }
            match text {
                "null" | "Null" | "NULL" | "~" | "" => Value::Null,
                _ => scalar
                    .as_bool()
                    .map(Value::Bool)
                    .or_else(|| scalar.as_i64().map(Value::from))
                    .or_else(|| scalar.as_u64().map(Value::from))
                    .or_else(|| {
                        scalar
                            .as_f64()
                            .filter(|f| f.is_finite())
                            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
                    })
                    .unwrap_or_else(|| Value::String(text.to_owned())),
            }
        }
        Node::Sequence(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| to_json(item, &format!("{pointer}/{i}"), locations))
                .collect(),
        ),
        Node::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping.iter() {
                let child = format!("{pointer}/{}", pointer_token(key.as_str()));
                locations
                    .keys
                    .insert(child.clone(), location(key.span().start()));
                object.insert(key.as_str().to_owned(), to_json(value, &child, locations));
            }
            Value::Object(object)
        }
    }
}

/// The JSON Schema of a registry file.
pub fn schema() -> Value {
    use serde_json::json;
    let name = json!({"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"});
    // The guards of one HTTP tool (or of an OpenAPI document's tools).
    let limits = json!({
        "timeout_ms": {"type": "integer", "minimum": 1, "description": "The time limit of one call, redirects and reading the body included, in milliseconds (default 30000)."},
        "connect_timeout_ms": {"type": "integer", "minimum": 1, "description": "The time limit for opening each connection, in milliseconds (default 10000)."},
        "max_response_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of a response body read (default 1 MiB)."},
        "max_request_bytes": {"type": "integer", "minimum": 0, "description": "The largest request body sent, in bytes (default 1 MiB)."},
        "max_redirects": {"type": "integer", "minimum": 0, "maximum": 20, "description": "How many redirects one call follows, each to the tool's own host only (default 5)."}
    });
    let with_limits = |properties: Value| {
        let mut properties = properties;
        if let (Some(object), Some(limits)) = (properties.as_object_mut(), limits.as_object()) {
            object.extend(limits.clone());
        }
        properties
    };
    let parameter = json!({
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
    });
    let http_tool = json!({
        "type": "object",
        "description": "A tool that makes one HTTP request to the host of its URL, and nowhere else.",
        "properties": with_limits(json!({
            "name": name.clone(),
            "description": {"type": "string", "description": "What the tool does, for the model."},
            "title": {"type": "string", "description": "A human-readable title."},
            "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "get", "post", "put", "patch", "delete"], "description": "The HTTP method (default GET)."},
            "url": {"type": "string", "description": "The URL template, such as https://api.example.com/items/{id}: {name} placeholders in the path are filled with the parameters' values, percent-encoded."},
            "parameters": {
                "description": "The arguments: a list of `name: {type, description, required, default, enum}`, or a JSON Schema of an object.",
                "anyOf": [
                    {"type": "array", "items": {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": parameter}},
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
    });
    // How the proxy treats an MCP server: its time limit to answer, and
    // what it takes in from it (tool-mcp's `McpLimits`).
    let server_settings = json!({
        "connect_timeout_ms": {"type": "integer", "minimum": 1, "description": "How long starting or reaching the server, its handshake and its first tool listing may take, in milliseconds (default 10000). `serve` does not wait for it."},
        "max_tools": {"type": "integer", "minimum": 1, "description": "The most tools the server may list; a longer list is refused, paging stops there (default 1000)."},
        "max_list_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes its whole tool list may take, as JSON; a larger list is refused, paging stops there (default 16 MiB)."},
        "max_schema_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of one tool's input or output schema, as JSON; a tool over it is left out (default 256 KiB)."},
        "max_schema_depth": {"type": "integer", "minimum": 1, "maximum": 64, "description": "How deep one tool's input or output schema may nest; a deeper tool is left out (default 32)."},
        "max_result_bytes": {"type": "integer", "minimum": 1, "description": "The most bytes of one message from the server, such as a call's answer or a page of its tool list; a call whose answer is larger fails at once (default 4 MiB)."}
    });
    let merged = |properties: Value, more: &Value| {
        let mut properties = properties;
        if let (Some(object), Some(more)) = (properties.as_object_mut(), more.as_object()) {
            object.extend(more.clone());
        }
        properties
    };
    let openapi = json!({
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
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tool-runtime.invalid/registry-file.schema.json",
        "title": "Tool registry file",
        "description": "Which linked #[tool]s to enable, their aliases and their configuration; the MCP servers whose tools are offered too; tools that are HTTP requests, declared one by one or generated from OpenAPI documents.",
        "type": "object",
        "properties": {
            "$schema": {"type": "string", "description": "The schema this file follows, for editors."},
            "mcp_servers": {
                "type": "object",
                "description": "MCP servers whose tools the registry offers too, by name, in the shape MCP hosts use.",
                "propertyNames": {"pattern": "^[a-zA-Z0-9_-]{1,64}$"},
                "additionalProperties": {
                    "anyOf": [
                        {
                            "type": "object",
                            "description": "A server to spawn, speaking MCP on its stdin and stdout.",
                            "properties": merged(json!({
                                "type": {"enum": ["stdio"]},
                                "command": {"type": "string", "description": "The program to run."},
                                "args": {"type": "array", "items": {"type": "string"}, "description": "Its arguments."},
                                "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables set for it."},
                                "prefix": {"type": "string", "description": "A prefix for the names of its tools."}
                            }), &server_settings),
                            "required": ["command"],
                            "additionalProperties": false
                        },
                        {
                            "type": "object",
                            "description": "A server reached over streamable HTTP.",
                            "properties": merged(json!({
                                "type": {"enum": ["http", "streamable-http", "streamableHttp"]},
                                "url": {"type": "string", "description": "The endpoint, such as http://127.0.0.1:3001/mcp."},
                                "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "HTTP headers sent with every request."},
                                "prefix": {"type": "string", "description": "A prefix for the names of its tools."}
                            }), &server_settings),
                            "required": ["url"],
                            "additionalProperties": false
                        }
                    ]
                }
            },
            "http_tools": {
                "type": "array",
                "description": "Tools that make one HTTP request each.",
                "items": http_tool
            },
            "openapi": {
                "type": "object",
                "description": "OpenAPI documents, by name, whose operations become tools.",
                "propertyNames": {"pattern": "^[a-zA-Z0-9_-]{1,64}$"},
                "additionalProperties": openapi
            },
            "tools": {
                "type": "array",
                "description": "The tools to enable.",
                "items": {
                    "anyOf": [
                        {"type": "string", "description": "A tool's name (or alias), enabled with no further setup."},
                        {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "description": "The tool's name (or alias)."},
                                "aliases": {
                                    "type": "array",
                                    "items": {"type": "string"},
                                    "description": "More names the tool answers to."
                                },
                                "config": {
                                    "type": "object",
                                    "description": "The tool's configuration, checked against its configuration schema."
                                }
                            },
                            "required": ["name"],
                            "additionalProperties": false
                        }
                    ]
                }
            }
        },
        "anyOf": [
            {"required": ["tools"]},
            {"required": ["mcp_servers"]},
            {"required": ["http_tools"]},
            {"required": ["openapi"]}
        ],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_reads_line_column_and_message() {
        let problem = ManifestProblem {
            location: Some(Location {
                line: 12,
                column: 5,
            }),
            message: "tool \"search\" is listed twice (first at line 4); remove one entry".into(),
        };
        assert_eq!(
            problem.to_string(),
            "12:5: tool \"search\" is listed twice (first at line 4); remove one entry"
        );
        let unplaced = ManifestProblem {
            location: None,
            message: "cannot read the file: not found".into(),
        };
        assert_eq!(unplaced.to_string(), "cannot read the file: not found");
        let error = ManifestError {
            source: "tools.yaml".into(),
            problems: vec![problem, unplaced],
        };
        assert_eq!(
            error.to_string(),
            "tools.yaml:12:5: tool \"search\" is listed twice (first at line 4); remove one entry\n\
             tools.yaml: cannot read the file: not found"
        );
    }
}
