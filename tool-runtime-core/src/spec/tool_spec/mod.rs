//! The description of a tool: [`ToolSpec`] and [`ParamSpec`], and the JSON
//! Schema built from them.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

pub(crate) mod format;

/// Where a tool was defined, for messages that must point at it (such as
/// two tools with one name).
///
/// Its `Display` text is `module (file:line)` for a `#[tool]`, and
/// `file:line` for a spec made at run time, which has no module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The Rust module path (`my_crate::tools`); empty for a spec made at
    /// run time ([`ToolSpec::new`]).
    pub module: &'static str,
    /// The source file: for a spec made at run time, that of the code
    /// that made it.
    pub file: &'static str,
    /// The line of the function, or of the code that made the spec.
    pub line: u32,
}

impl SourceLocation {
    /// Whether this is where a spec was made at run time
    /// ([`ToolSpec::new`]) rather than a `#[tool]` definition: it has no
    /// module.
    pub fn is_run_time(&self) -> bool {
        self.module.is_empty()
    }
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.module, self.file) {
            ("", "") => f.write_str("an unknown place"),
            ("", file) => write!(f, "{file}:{}", self.line),
            (module, file) => write!(f, "{module} ({file}:{})", self.line),
        }
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
///
/// A spec made at run time owns its text and schemas ([`ToolSpec::new`]),
/// with nothing leaked; one from `#[tool]` borrows static data and costs
/// nothing to make or clone.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: Cow<'static, str>,
    /// What the tool does, from the function's doc comment.
    pub description: Cow<'static, str>,
    /// The parameters the model supplies, in declaration order (injected
    /// parameters are not listed). Empty for a tool defined at run time,
    /// whose input schema alone describes its arguments.
    pub params: &'static [ParamSpec],
    /// Where the tool was defined.
    pub location: SourceLocation,
    /// A human-readable title (`#[tool(title = "...")]`), for MCP clients.
    pub title: Option<Cow<'static, str>>,
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
    pub aliases: Cow<'static, [Cow<'static, str>]>,
    /// The tool's configuration, when it declares one (`#[tool(config = T)]`).
    pub config: Option<crate::spec::config::ConfigSpec>,
    /// Whether a call may run as a task, answered at once with the task's
    /// id and read later (`#[tool(task)]`, `#[tool(task = "required")]`).
    pub task_support: TaskSupport,
    /// The tool's version (`#[tool(version = "2.0.0")]`), a semantic
    /// version. A registry may hold several versions of one name.
    pub version: Option<Cow<'static, str>>,
    /// Why the tool is deprecated and what to use instead
    /// (`#[tool(deprecated = "use convert_length_v3")]`). A deprecated tool
    /// stays callable; its calls carry a warning.
    pub deprecated: Option<Cow<'static, str>>,
    /// What the tool needs before it is offered (`#[tool(requires(..))]`).
    pub requires: crate::spec::requires::Requirements,
    /// Whether a call is a barrier among calls made together
    /// (`#[tool(sequential)]`): calls before it finish first, calls after it
    /// start after it.
    pub sequential: bool,
    /// The OAuth scopes a caller needs to call the tool and to see it
    /// listed (`#[tool(scopes("files:write"))]`), each one scope token
    /// (RFC 6749 §3.3: printable ASCII but space, `"` and `\`).
    ///
    /// They are checked against the [`Caller`](crate::context::Caller) on
    /// the call's context: a caller granted every one calls the tool; one
    /// lacking any gets an
    /// [`InsufficientScope`](crate::spec::ToolErrorKind::InsufficientScope)
    /// error naming what it lacks, the tool not run, and
    /// [`Registry::specs_for`](crate::Registry::specs_for) leaves the tool
    /// out. A call without a caller is anonymous and not checked: a server
    /// that authenticates no one trusts whoever reaches it (a stdio
    /// server's parent process, a loopback listener), and a server that
    /// does authenticate sets a caller on every call. Empty (the default):
    /// anyone who may reach the tool may call it.
    pub scopes: Cow<'static, [Cow<'static, str>]>,
    /// The most of a result the model sees (`#[tool(result_limit = "64KB")]`);
    /// `None` leaves it to the registry's limit.
    pub result_limit: Option<crate::spec::limit::ResultLimit>,
    /// The tool's own formatting of its definition and results
    /// (`#[tool(format = ..)]`); `None` keeps the defaults.
    pub formatter: Option<format::Formatter>,
    /// The JSON Schema of the arguments (see [`input_schema`](Self::input_schema)).
    pub input_schema: SchemaSource,
    /// The JSON Schema of the result, when there is one (see
    /// [`output_schema`](Self::output_schema)).
    pub output_schema: SchemaSource,
}

/// Whether a tool's calls may run as tasks: started at once, answered with
/// the task's id, and read later by that id (MCP's tasks extension;
/// the `tool-tasks` crate runs calls as tasks).
///
/// A server decides, call by call, within what the tool allows: a tool that
/// forbids tasks always answers in the request; one that requires them
/// cannot be called by a client that does not take tasks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Calls always run in the request that makes them (the default).
    #[default]
    Forbidden,
    /// A call may run as a task when the client takes tasks
    /// (`#[tool(task)]`).
    Optional,
    /// Calls run as tasks only: a client that does not take tasks cannot
    /// call the tool (`#[tool(task = "required")]`).
    Required,
    /// Calls run as tasks only, once the tool has the input it asks for
    /// first (`#[tool(task = "after_input")]`): in MCP's stateless revision
    /// a call without answers runs in the request, as rounds of
    /// `input_required` results, and the call that brings the answers
    /// becomes a task that runs the tool with them. MCP calls it
    /// `"required"`.
    AfterInput,
}

impl TaskSupport {
    /// The name MCP gives it: `"forbidden"`, `"optional"` or `"required"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required | TaskSupport::AfterInput => "required",
        }
    }

    /// Whether calls may run as tasks (any setting but forbidden).
    pub fn allows_tasks(self) -> bool {
        !matches!(self, TaskSupport::Forbidden)
    }
}

/// Where a spec's JSON Schema comes from.
#[derive(Clone, Default)]
pub enum SchemaSource {
    /// Built by the code `#[tool]` generates, on first use, and kept for the
    /// program's life; `None` when the tool has no such schema.
    ///
    /// Only `#[tool]` makes these: a registry takes two specs whose input
    /// schemas are generated, with one name and one location, for one
    /// definition added twice (by name and by value, say) and keeps one.
    Generated(fn() -> Option<&'static Value>),
    /// A schema given at run time.
    Given(Arc<Value>),
    /// No schema. An input schema that is absent reads as an object with no
    /// properties.
    #[default]
    None,
}

impl SchemaSource {
    /// A schema given at run time.
    pub fn given(schema: Value) -> Self {
        SchemaSource::Given(Arc::new(schema))
    }

    /// The schema, when there is one (building it on first use).
    pub fn get(&self) -> Option<&Value> {
        match self {
            SchemaSource::Generated(build) => build(),
            SchemaSource::Given(schema) => Some(schema),
            SchemaSource::None => None,
        }
    }
}

impl fmt::Debug for SchemaSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaSource::Generated(_) => f.write_str("Generated"),
            SchemaSource::Given(schema) => f.debug_tuple("Given").field(schema).finish(),
            SchemaSource::None => f.write_str("None"),
        }
    }
}

/// A spec with every field empty or unset: what `ToolSpec::new` and the
/// specs `#[tool]` emits (through `__private::SPEC_DEFAULTS`) start from.
pub const UNSET: ToolSpec = ToolSpec {
    name: Cow::Borrowed(""),
    description: Cow::Borrowed(""),
    params: &[],
    location: SourceLocation {
        module: "",
        file: "",
        line: 0,
    },
    title: None,
    annotations: ToolAnnotations::NONE,
    strict: false,
    timeout: None,
    blocking: false,
    needs_approval: false,
    streaming: false,
    aliases: Cow::Borrowed(&[]),
    config: None,
    task_support: TaskSupport::Forbidden,
    version: None,
    deprecated: None,
    requires: crate::spec::requires::Requirements::NONE,
    sequential: false,
    scopes: Cow::Borrowed(&[]),
    result_limit: None,
    formatter: None,
    input_schema: SchemaSource::None,
    output_schema: SchemaSource::None,
};

/// The input schema of a tool that gives none: an object with no properties.
static NO_ARGUMENTS: LazyLock<Value> = LazyLock::new(
    || serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}),
);

impl ToolSpec {
    /// A spec made at run time: a name, a description and the JSON Schema of
    /// the arguments, every other field at its default (no title, output
    /// schema, annotations, aliases, time limit or configuration). Set the
    /// public fields to change them.
    ///
    /// The schema is taken as it is; `DynamicTool`
    /// (feature `dynamic`) also checks it and validates each call's
    /// arguments against it.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_runtime::ToolSpec;
    ///
    /// let mut spec = ToolSpec::new(
    ///     format!("lookup_{}", "orders"),
    ///     "Looks an order up.",
    ///     json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}),
    /// );
    /// spec.title = Some("Order lookup".into());
    /// assert_eq!(spec.name, "lookup_orders");
    /// assert_eq!(spec.input_schema()["required"][0], "id");
    /// assert!(spec.output_schema().is_none());
    /// ```
    #[track_caller]
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> Self {
        let caller = std::panic::Location::caller();
        ToolSpec {
            name: name.into(),
            description: description.into(),
            location: SourceLocation {
                module: "",
                file: caller.file(),
                line: caller.line(),
            },
            input_schema: SchemaSource::given(input_schema),
            ..UNSET
        }
    }

    /// The JSON Schema of the tool's arguments.
    ///
    /// For a `#[tool]` function: an object schema with `properties`,
    /// `required` and `additionalProperties: false`; parameter descriptions
    /// and defaults appear on each property, nested types under `$defs`.
    /// There is no `$schema` and no `title`. It is built on first use and
    /// cached.
    pub fn input_schema(&self) -> &Value {
        self.input_schema.get().unwrap_or(&NO_ARGUMENTS)
    }

    /// The JSON Schema of the tool's return value: for a `#[tool]`
    /// function, when its type implements `schemars::JsonSchema` and is not
    /// plain text. Built on first use and cached.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.get()
    }

    /// Whether the spec is the one `#[tool]` wrote for a definition at
    /// compile time (its input schema is [generated](SchemaSource::Generated)),
    /// not one made at run time: the same definition always has the same
    /// name and location.
    pub(crate) fn is_generated(&self) -> bool {
        matches!(self.input_schema, SchemaSource::Generated(_))
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

/// What is wrong with `scope` as an OAuth scope token (RFC 6749 §3.3: one
/// or more characters of printable ASCII but space, `"` and `\`), if
/// anything, as a phrase (`it is empty`) to put after the scope.
pub fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some("it is empty".to_owned());
    }
    let token = |c: char| matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E');
    let bad = scope.chars().find(|c| !token(*c))?;
    Some(if bad.is_whitespace() {
        format!("it holds {bad:?}: a scope is one word, so give each scope separately")
    } else {
        format!("{bad:?} is not allowed in a scope")
    })
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
    /// The name under which an MCP client also sends the parameter's value
    /// as an HTTP header (`#[tool(header)]`, `#[tool(header = "Region")]`).
    /// It becomes the property's [`HEADER_KEYWORD`](Self::HEADER_KEYWORD)
    /// (`x-mcp-header`) in the input schema; the core keeps it as data
    /// only, and `tool_mcp::headers` holds MCP's rules on it and the HTTP
    /// mapping. `None` for an ordinary parameter.
    pub header: Option<&'static str>,
    /// The parameter's JSON Schema (for `Option<T>`, the schema of `T`),
    /// made with the `schemars` generator a tool's whole schema is built
    /// with (given as `Any`, so the spec's fields name no `schemars` type).
    #[doc(hidden)]
    pub schema_fn: fn(&mut dyn std::any::Any) -> Value,
    /// The default value as JSON, for the schema's `default` keyword.
    #[doc(hidden)]
    pub default_fn: Option<fn() -> Option<Value>>,
    /// Decodes a value of the parameter's type, to report what is wrong.
    #[doc(hidden)]
    pub check_fn: fn(&Value) -> Result<(), crate::spec::error::CheckError>,
}

impl ParamSpec {
    /// The keyword of MCP's that marks a property of an input schema as a
    /// header parameter, its value the header's name: a parameter's
    /// [`header`](Self::header) in the schema a tool renders, and what a
    /// `DynamicTool`'s schema writes itself.
    pub const HEADER_KEYWORD: &'static str = "x-mcp-header";
}
