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

// The file's reading (`document`), its mistakes (`problem`), one file per
// section with its entries, how they are read and their JSON Schema, and
// the schema of the whole file. This file holds `Manifest`'s API.
mod document;
mod http_tools;
mod mcp_servers;
mod openapi;
mod problem;
mod schema;
mod section;
mod tools;

use marked_yaml::types::MarkedScalarNode;

use crate::registry::{Registry, RegistryBuilder};
use document::{Locations, parse_yaml};
use problem::problem;

pub use document::{Document, Location, pointer_token};
pub use http_tools::HttpToolEntry;
pub use mcp_servers::McpServerEntry;
pub use openapi::OpenApiEntry;
pub use problem::{ManifestError, ManifestProblem};
pub use schema::schema;

/// A parsed registry file.
#[derive(Debug, Clone)]
pub struct Manifest {
    source: String,
    entries: Vec<tools::Entry>,
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

/// The sections a registry file may have, besides `$schema`.
const SECTIONS: [&str; 4] = ["tools", "mcp_servers", "http_tools", "openapi"];

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
        let Some(root) = root.as_mapping() else {
            return Err(fail(vec![problem(
                root.span().start(),
                "the file must be a mapping with a `tools` list",
            )]));
        };
        let mut problems = Vec::new();
        let mut locations = Locations::default();
        unknown_sections(root.iter().map(|(key, _)| key), &mut problems);
        let http_tools =
            http_tools::read(root.get_node("http_tools"), &mut locations, &mut problems);
        let openapi = openapi::read(root.get_node("openapi"), &mut locations, &mut problems);
        let servers =
            mcp_servers::read(root.get_node("mcp_servers"), &mut locations, &mut problems);
        let others = SECTIONS
            .iter()
            .any(|section| root.get_node(section).is_some());
        let entries = tools::read(root, others, &mut locations, &mut problems);
        // Mistakes inside entries are kept and reported at build, with the
        // ones only the registry can find, so a file shows all at once.
        Ok(Manifest {
            source: source.to_owned(),
            entries,
            locations,
            problems,
            servers,
            http_tools,
            openapi,
        })
    }

    /// The mistakes found while reading the file (more may show at build).
    pub fn problems(&self) -> &[ManifestProblem] {
        &self.problems
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
        tools::configure(&self.entries, Registry::builder())
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
        problems.extend(tools::duplicates(&self.entries));
        match tools::configure(&self.entries, builder).build() {
            Ok(registry) if problems.is_empty() => return Ok(registry),
            Ok(_) => {}
            Err(error) => {
                for registry_problem in error.problems() {
                    problems.extend(tools::locate(
                        &self.entries,
                        &self.locations,
                        registry_problem,
                    ));
                }
            }
        }
        problems.sort_by_key(|p| p.location.map(|l| (l.line, l.column)));
        Err(ManifestError {
            source: self.source.clone(),
            problems,
        })
    }
}

/// A problem for each top-level key that is not a section (or `$schema`),
/// with the section it is closest to.
fn unknown_sections<'a>(
    keys: impl Iterator<Item = &'a MarkedScalarNode>,
    problems: &mut Vec<ManifestProblem>,
) {
    for key in keys {
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
