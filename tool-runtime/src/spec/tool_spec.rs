//! The description of a tool: [`ToolSpec`] and [`ParamSpec`], and the JSON
//! Schema built from them.

use serde_json::Value;

/// Where a tool was defined, for messages that must point at it (such as
/// two tools with one name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The Rust module path (`my_crate::tools`).
    pub module: &'static str,
    /// The source file.
    pub file: &'static str,
    /// The line of the function.
    pub line: u32,
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}:{})", self.module, self.file, self.line)
    }
}

/// Everything a model needs to know to call one tool.
///
/// `#[tool]` emits one as the associated constant `SPEC` of the tool's
/// struct, so `cargo expand` shows it plainly:
///
/// ```
/// use tool_runtime::tool;
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(
///     /// The first number
///     a: f64,
///     /// The second number
///     #[tool(default = 0.0)]
///     b: f64,
/// ) -> f64 {
///     a + b
/// }
///
/// let spec = AddTool::SPEC;
/// assert_eq!(spec.name, "add");
/// assert_eq!(spec.description, "Adds two numbers.");
/// assert_eq!(spec.params[1].name, "b");
/// assert!(!spec.params[1].required);
/// assert_eq!(spec.params[1].default, Some("0.0"));
/// assert_eq!(spec.input_schema()["required"], serde_json::json!(["a"]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: &'static str,
    /// What the tool does, from the function's doc comment.
    pub description: &'static str,
    /// The parameters the model supplies, in declaration order (injected
    /// parameters are not listed).
    pub params: &'static [ParamSpec],
    /// Where the tool was defined.
    pub location: SourceLocation,
    /// A human-readable title (`#[tool(title = "...")]`), for MCP clients.
    pub title: Option<&'static str>,
    /// Hints about the tool's behaviour (`read_only`, `destructive`,
    /// `idempotent`, `open_world`), as MCP's tool annotations.
    pub annotations: ToolAnnotations,
    /// Whether the tool asks for OpenAI strict mode (`#[tool(strict)]`).
    pub strict: bool,
    /// How long one call may run (`#[tool(timeout = "5s")]`).
    pub timeout: Option<std::time::Duration>,
    /// Whether a sync tool runs on a blocking thread (`#[tool(blocking)]`).
    pub blocking: bool,
    /// Whether a call needs approval before it runs (`#[tool(needs_approval)]`).
    pub needs_approval: bool,
    /// Whether the tool returns a stream of intermediate items.
    pub streaming: bool,
    /// Other names the tool answers to (`#[tool(alias = "...")]`).
    pub aliases: &'static [&'static str],
    /// The tool's configuration, when it declares one (`#[tool(config = T)]`).
    pub config: Option<crate::spec::config::ConfigSpec>,
    /// Builds the input schema once and returns the cached copy.
    #[doc(hidden)]
    pub input_schema_fn: fn() -> &'static Value,
    /// Builds the output schema once, when the return type has one.
    #[doc(hidden)]
    pub output_schema_fn: fn() -> Option<&'static Value>,
}

impl ToolSpec {
    /// The JSON Schema of the tool's arguments.
    ///
    /// An object schema with `properties`, `required` and
    /// `additionalProperties: false`; parameter descriptions and defaults
    /// appear on each property, nested types under `$defs`. There is no
    /// `$schema` and no `title`. It is built on first use and cached.
    pub fn input_schema(&self) -> &'static Value {
        (self.input_schema_fn)()
    }

    /// The JSON Schema of the tool's return value, when its type implements
    /// `schemars::JsonSchema` and is not plain text. Built on first use and
    /// cached.
    pub fn output_schema(&self) -> Option<&'static Value> {
        (self.output_schema_fn)()
    }

    /// Whether any parameter has constraints beyond its type.
    pub fn has_constraints(&self) -> bool {
        self.params.iter().any(|p| !p.constraints.is_empty())
    }

    /// The parameter the model knows as `name`.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|param| param.name == name)
    }
}

/// Hints about a tool's behaviour, for clients that show or gate tools.
///
/// These are MCP's tool annotations; `None` means "not stated", which MCP
/// clients read with their own defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool reaches an open world (the web, other systems) rather than a
    /// closed set of entities.
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// No hints.
    pub const NONE: ToolAnnotations = ToolAnnotations {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    /// Whether any hint is stated.
    pub fn is_empty(&self) -> bool {
        *self == Self::NONE
    }
}

/// One parameter the model supplies.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The name in the schema (the Rust name unless renamed).
    pub name: &'static str,
    /// What the parameter means; empty when it has no description.
    pub description: &'static str,
    /// Whether the model must supply it. `Option` parameters and parameters
    /// with a default are not required.
    pub required: bool,
    /// The Rust source of the default value, when there is one.
    pub default: Option<&'static str>,
    /// Checks beyond the type (`range`, `length`, `pattern`, `one_of`,
    /// `validate`).
    pub constraints: crate::spec::constraints::Constraints,
    /// The parameter's JSON Schema (for `Option<T>`, the schema of `T`).
    #[doc(hidden)]
    pub schema_fn: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
    /// The default value as JSON, for the schema's `default` keyword.
    #[doc(hidden)]
    pub default_fn: Option<fn() -> Option<Value>>,
    /// Decodes a value of the parameter's type, to report what is wrong.
    #[doc(hidden)]
    pub check_fn: fn(&Value) -> Result<(), crate::spec::args::CheckError>,
}
