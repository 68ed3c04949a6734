//! Registry files for [`tool-runtime`](https://docs.rs/tool-runtime): a
//! YAML (or JSON, which YAML reads too) file that says which tools a
//! registry offers, their aliases, their configuration and the scopes a
//! caller needs.
//!
//! ```yaml
//! # tools.yaml
//! tools:
//!   - weather_forecast          # a name alone enables the tool
//!   - name: search
//!     aliases: [web_search]     # more names for it
//!     config:                   # validated against its configuration schema
//!       max_results: 5
//!     scopes: [search:run]      # OAuth scopes a caller needs to call it
//! ```
//!
//! [`Manifest`] reads the file and builds the [`Registry`] it describes,
//! from the tools the program links (`#[tool]`) or offers in a catalogue
//! ([`RegistryBuilder::catalog`]). Every mistake (a tool no linked crate
//! has, a tool listed twice, an alias that collides, a bad configuration
//! field, an unknown key) is reported at once, each at its line and column
//! (with `tool-runtime = "0.1"` and `tool-manifest = "0.1"` in
//! `Cargo.toml`):
//!
//! ```
//! use tool_manifest::Manifest;
//! use tool_runtime::{tool, Registry, Tool};
//!
//! /// Converts meters to feet.
//! #[tool(register = false)]
//! fn to_feet(meters: f64) -> f64 {
//!     meters * 3.28084
//! }
//!
//! const CATALOG: &[&dyn Tool] = &[&ToFeetTool];
//! let text = "tools:\n  - name: to_feet\n    aliases: [feet]\n";
//! let registry = Manifest::parse("tools.yaml", text)?
//!     .build_with(Registry::builder().catalog(CATALOG))?;
//! assert_eq!(registry.names().collect::<Vec<_>>(), ["to_feet"]);
//! assert_eq!(registry.resolve("feet").unwrap().spec().name, "to_feet");
//!
//! let text = "tools:\n  - to_fet\n  - name: to_feet\n    alias: feet\n";
//! let error = Manifest::parse("tools.yaml", text)?
//!     .build_with(Registry::builder().catalog(CATALOG))
//!     .unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "tools.yaml:2:5: no linked tool is named \"to_fet\"; did you mean \"to_feet\"?\n\
//!      tools.yaml:4:5: unknown key \"alias\"; did you mean \"aliases\"? an entry has `name`, \
//!      `aliases`, `config`, `requires`, `scopes`, and `from`, `description` and `arguments` \
//!      to re-expose a tool"
//! );
//! # Ok::<(), tool_manifest::ManifestError>(())
//! ```
//!
//! A file may have more sections, which the crates that use them provide
//! (tool-mcp's `mcp_servers`, tool-builtin's `http_tools`, `openapi` and
//! `code_mode`): each is a [`Section`], which reads its value with the line
//! and column of every part ([`SectionReader`]) and gives typed entries,
//! and states its own JSON Schema. A program names the sections it reads
//! ([`Manifest::parse_with`], [`Manifest::from_path_with`]) and gets their
//! entries back with [`Manifest::section`]; any other key is a mistake. The
//! crates that make something of a section report a mistake in an entry
//! at its line and column through [`Manifest::location_of`] and
//! [`Manifest::key_location_of`].
//!
//! The file's own JSON Schema is [`schema()`], or [`schema_with`] the
//! sections a program reads. [`Document`] reads other YAML or JSON files
//! (an API description a section names) with the same locations.
//!
//! [`Registry`]: tool_runtime_core::Registry
//! [`RegistryBuilder::catalog`]: tool_runtime_core::RegistryBuilder::catalog

#![warn(missing_docs)]

// The file's reading with locations (`document`), its mistakes
// (`problem`), the `tools` section (`tools`) and its entries that
// re-expose a tool (`transform`), the seam for the sections other crates
// provide (`section`), the schema of the whole file (`schema`), and
// `Manifest`'s API (`manifest`).
mod document;
mod manifest;
mod problem;
mod schema;
mod section;
mod tools;
mod transform;

pub use document::{Document, Location, pointer_token};
pub use manifest::Manifest;
pub use problem::{ManifestError, ManifestProblem};
pub use schema::{is_entry_name, schema, schema_with, section_schema};
pub use section::{AnySection, Key, Node, Section, SectionReader};
