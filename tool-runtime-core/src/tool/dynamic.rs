//! [`DynamicTool`]: a tool whose name, description and JSON Schema are
//! known only at run time, with a closure behind it.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::context::ToolContext;
use crate::spec::error::ToolError;
use crate::spec::result::ToolOutput;
use crate::spec::tool_spec::{SchemaSource, ToolAnnotations, ToolSpec};
use crate::tool::{Tool, ToolFuture};

type SyncHandler = dyn Fn(Value, &ToolContext) -> Result<ToolOutput, ToolError> + Send + Sync;
type AsyncHandler = dyn Fn(Value, ToolContext) -> ToolFuture<'static> + Send + Sync;

#[derive(Clone)]
enum Handler {
    Sync(Arc<SyncHandler>),
    Async(Arc<AsyncHandler>),
}

/// A tool defined at run time: a name, a description, a JSON Schema for its
/// arguments and a closure, with no macro and nothing leaked.
///
/// Use it for tools whose shape is read from somewhere else: a
/// configuration file, a plugin's manifest, another process (tool-mcp
/// imports an MCP server's tools as `DynamicTool`s). It works wherever a
/// `#[tool]` function does: in registries, in every provider's rendering,
/// in strict mode (a registry refuses it, naming the rule, when its schema
/// cannot be made strict), on the command line and over MCP.
///
/// Before the closure runs, the arguments are validated against the schema
/// (with the `jsonschema` crate), and every problem is reported at once,
/// each naming its field, in the words `#[tool]` functions use. A schema
/// that is not valid JSON Schema, or that has a part no value can satisfy
/// (an `enum` of strings on an `integer`, `minimum` above `maximum`; see
/// [`schema::unsatisfiable`](crate::schema::unsatisfiable)), is an error
/// when the tool is built.
///
/// A property of the schema may carry MCP's `x-mcp-header` keyword
/// ([`ParamSpec::HEADER_KEYWORD`](crate::spec::ParamSpec::HEADER_KEYWORD)), which
/// makes it a header parameter for MCP clients over HTTP. To the tool it is
/// an annotation like any other; `tool_mcp::headers` holds MCP's rules on
/// it, and an MCP server does not serve a tool that breaks them.
///
/// ```
/// use serde_json::{json, Value};
/// use tool_runtime::{dynamic::DynamicTool, Registry, ToolContext, ToolError, ToolUse};
///
/// let shout = DynamicTool::builder(
///     "shout",
///     "Repeats a text in capitals.",
///     json!({
///         "type": "object",
///         "properties": {
///             "text": {"type": "string", "description": "What to shout"},
///             "times": {"type": "integer", "minimum": 1, "maximum": 5}
///         },
///         "required": ["text"],
///         "additionalProperties": false
///     }),
/// )
/// .handler(|args: Value, _ctx: &ToolContext| {
///     let text = args["text"].as_str().unwrap_or_default().to_uppercase();
///     let times = args["times"].as_u64().unwrap_or(1) as usize;
///     Ok::<_, ToolError>(vec![text; times].join(" "))
/// })
/// .build()
/// .unwrap();
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().tool(shout).build().unwrap();
/// let ctx = ToolContext::new();
/// let ok = registry.invoke(ToolUse::new("1", "shout", json!({"text": "hi", "times": 2})), &ctx).await;
/// assert_eq!(ok.text_content(), "HI HI");
///
/// let bad = registry.invoke(ToolUse::new("2", "shout", json!({"text": 5, "bogus": true})), &ctx).await;
/// assert_eq!(
///     bad.text_content(),
///     "invalid arguments for shout: text: expected a string, got 5; \
///      bogus: unknown field; expected one of \"text\", \"times\""
/// );
/// # });
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    spec: ToolSpec,
    validator: Arc<jsonschema::Validator>,
    handler: Handler,
}

impl DynamicTool {
    /// Starts a tool from its name (`^[a-zA-Z0-9_-]{1,64}$`), what it does,
    /// and the JSON Schema of its arguments (an object schema).
    #[track_caller]
    pub fn builder(
        name: impl Into<Cow<'static, str>>,
        description: impl Into<Cow<'static, str>>,
        input_schema: Value,
    ) -> DynamicToolBuilder {
        DynamicToolBuilder {
            spec: ToolSpec::new(name, description, Value::Null),
            input_schema,
            output_schema: None,
            handler: None,
        }
    }

    /// The arguments' validator, built from the input schema.
    pub fn validator(&self) -> &jsonschema::Validator {
        &self.validator
    }

    /// Every problem with `input`, worded as in an `InvalidArguments` error;
    /// empty when the arguments are valid.
    pub fn check(&self, input: &Value) -> Vec<crate::spec::ArgError> {
        let input = self.arguments(input);
        if self.validator.is_valid(&input) {
            return Vec::new();
        }
        crate::spec::args::json_schema::problems(&self.validator, self.spec.input_schema(), &input)
    }

    /// The arguments as the closure sees them. As for `#[tool]` functions,
    /// no arguments at all read as an empty object, and `null` given for an
    /// optional argument whose schema does not take `null` reads as absent
    /// (strict mode makes every argument required and sends `null` for
    /// those left out).
    fn arguments<'a>(&self, input: &'a Value) -> Cow<'a, Value> {
        let object = match input {
            Value::Null => return Cow::Owned(Value::Object(serde_json::Map::new())),
            Value::Object(object) => object,
            _ => return Cow::Borrowed(input),
        };
        let schema = self.spec.input_schema();
        let absent = |(key, value): (&String, &Value)| {
            value.is_null()
                && !schema["required"]
                    .as_array()
                    .is_some_and(|required| required.iter().any(|r| r == key.as_str()))
                && !takes_null(&schema["properties"][key.as_str()])
        };
        if !object.iter().any(absent) {
            return Cow::Borrowed(input);
        }
        let kept = object
            .iter()
            .filter(|entry| !absent(*entry))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        Cow::Owned(Value::Object(kept))
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("spec", &self.spec)
            .field(
                "handler",
                &match self.handler {
                    Handler::Sync(_) => "sync",
                    Handler::Async(_) => "async",
                },
            )
            .finish_non_exhaustive()
    }
}

impl Tool for DynamicTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        let input = self.arguments(input);
        if !self.validator.is_valid(&input) {
            let problems = crate::spec::args::json_schema::problems(
                &self.validator,
                self.spec.input_schema(),
                &input,
            );
            return ToolFuture::ready(Err(ToolError::invalid_arguments(&self.spec.name, problems)));
        }
        let input = input.into_owned();
        match &self.handler {
            Handler::Sync(handler) => ToolFuture::ready(handler(input, ctx)),
            Handler::Async(handler) => handler(input, ctx.clone()),
        }
    }
}

/// Whether a property's schema accepts `null` (by its `type`, or a branch
/// of its `anyOf`/`oneOf`).
fn takes_null(schema: &Value) -> bool {
    match &schema["type"] {
        Value::String(kind) => kind == "null",
        Value::Array(kinds) => kinds.iter().any(|kind| kind == "null"),
        _ => ["anyOf", "oneOf"].iter().any(|key| {
            schema[*key]
                .as_array()
                .is_some_and(|branches| branches.iter().any(takes_null))
        }),
    }
}

/// Builds a [`DynamicTool`]; see [`DynamicTool::builder`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct DynamicToolBuilder {
    spec: ToolSpec,
    input_schema: Value,
    output_schema: Option<Value>,
    handler: Option<Handler>,
}

impl DynamicToolBuilder {
    /// A human-readable title, for MCP clients.
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.spec.title = Some(title.into());
        self
    }

    /// The JSON Schema of the tool's result (MCP's `outputSchema`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Hints about the tool's behaviour, as MCP's tool annotations.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.spec.annotations = annotations;
        self
    }

    /// Another name the tool answers to; may be given several times.
    pub fn alias(mut self, alias: impl Into<Cow<'static, str>>) -> Self {
        self.spec.aliases.to_mut().push(alias.into());
        self
    }

    /// How long one call may run before it ends with a timeout error.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.spec.timeout = Some(limit);
        self
    }

    /// Whether each call needs approval before it runs (see
    /// [`Approver`](crate::context::Approver)).
    pub fn needs_approval(mut self, needs: bool) -> Self {
        self.spec.needs_approval = needs;
        self
    }

    /// Whether calls may run as tasks (see [`TaskSupport`](crate::spec::TaskSupport));
    /// forbidden by default.
    pub fn task_support(mut self, support: crate::spec::TaskSupport) -> Self {
        self.spec.task_support = support;
        self
    }

    /// The most of a result the model sees, over the registry's limit (see
    /// [`ResultLimit`](crate::limits::ResultLimit)); none by default.
    pub fn result_limit(mut self, limit: crate::spec::limit::ResultLimit) -> Self {
        self.spec.result_limit = Some(limit);
        self
    }

    /// The tool's own formatting of its definition and results (see
    /// [`ToolFormat`](crate::format::ToolFormat)); the defaults otherwise.
    pub fn formatter(mut self, formatter: impl crate::spec::tool_spec::format::ToolFormat) -> Self {
        let formatter = std::sync::Arc::new(formatter);
        self.spec.formatter = Some(crate::spec::tool_spec::format::Formatter::Shared(formatter));
        self
    }

    /// Whether the tool asks for OpenAI strict mode.
    pub fn strict(mut self, strict: bool) -> Self {
        self.spec.strict = strict;
        self
    }

    /// Whether a registry runs the synchronous handler on a blocking thread
    /// (for handlers that do blocking I/O or long computation).
    pub fn blocking(mut self, blocking: bool) -> Self {
        self.spec.blocking = blocking;
        self
    }

    /// The tool's version, a semantic version (`2.0.0`): a registry may
    /// hold several versions of one name and offers the newest that is not
    /// deprecated (see [`Registry::versions`](crate::Registry::versions)).
    /// One that does not parse is an error when the registry is built.
    pub fn version(mut self, version: impl Into<Cow<'static, str>>) -> Self {
        self.spec.version = Some(version.into());
        self
    }

    /// Marks the tool deprecated, with why and what to use instead
    /// (`"use convert_length_v3"`): it stays callable, its description
    /// starts with [`deprecation_prefix`](crate::__private::deprecation_prefix), and
    /// each call warns.
    pub fn deprecated(mut self, note: impl Into<Cow<'static, str>>) -> Self {
        self.spec.deprecated = Some(note.into());
        self
    }

    /// What the tool needs before a registry offers it: environment
    /// variables, programs on the `PATH`, features (see
    /// [`Registry::report`](crate::Registry::report)).
    pub fn requires(mut self, requirements: crate::spec::requires::Requirements) -> Self {
        self.spec.requires = requirements;
        self
    }

    /// Whether a call is a barrier among calls made together: the calls
    /// before it finish first, it runs alone, and the calls after it start
    /// once it has finished (see [`Registry::is_sequential`](crate::Registry::is_sequential)).
    pub fn sequential(mut self, sequential: bool) -> Self {
        self.spec.sequential = sequential;
        self
    }

    /// The OAuth scopes a caller needs to call the tool and to have it
    /// offered (see [`ToolSpec::scopes`], which says why an anonymous call
    /// is not checked), replacing any given before: each a scope token,
    /// such as `files:write`, which [`build`](Self::build) checks.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.spec.scopes = Cow::Owned(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// The spec as it stands, for the fields no method sets (`location`).
    pub fn spec_mut(&mut self) -> &mut ToolSpec {
        &mut self.spec
    }

    /// A synchronous handler: validated arguments and the call's context in,
    /// anything a tool may return out (text, a serialisable value through
    /// [`ToolOutput::Value`], a [`ToolResult`](crate::ToolResult)).
    pub fn handler<F, O>(mut self, handler: F) -> Self
    where
        F: Fn(Value, &ToolContext) -> Result<O, ToolError> + Send + Sync + 'static,
        O: Into<ToolOutput>,
    {
        self.handler = Some(Handler::Sync(Arc::new(move |args, ctx| {
            handler(args, ctx).map(Into::into)
        })));
        self
    }

    /// An asynchronous handler. It takes the context by value (a cheap
    /// clone), so the future it returns owns all it needs.
    pub fn async_handler<F, Fut, O>(mut self, handler: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: Into<ToolOutput>,
    {
        self.handler = Some(Handler::Async(Arc::new(move |args, ctx| {
            let future = handler(args, ctx);
            ToolFuture::pending(async move { future.await.map(Into::into) })
        })));
        self
    }

    /// Checks the name and the schemas and makes the tool.
    ///
    /// Fails when the name is not 1 to 64 letters, digits, `_` or `-`, when
    /// a schema is not valid JSON Schema (2020-12 unless it names another
    /// draft in `$schema`), when a part of a schema no value can satisfy
    /// ([`DynamicToolError::Unsatisfiable`]: an `enum` of strings on an
    /// `integer` or an `array`, `minimum` above `maximum`, ...), when the
    /// input schema does not describe an object, when a scope is not a
    /// scope token (empty, or with a space, `"` or `\`), or when no handler
    /// was given.
    pub fn build(self) -> Result<DynamicTool, DynamicToolError> {
        let mut spec = self.spec;
        let name = spec.name.to_string();
        if name.is_empty()
            || name.len() > 64
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(DynamicToolError::InvalidName {
                name: crate::quote::name(&name),
            });
        }
        if let Some((scope, problem)) = spec.scopes.iter().find_map(|scope| {
            crate::spec::tool_spec::scope_problem(scope).map(|problem| (scope, problem))
        }) {
            return Err(DynamicToolError::InvalidScope {
                tool: name,
                scope: crate::quote::name(scope),
                problem,
            });
        }
        let error = |which: &'static str, message: String| DynamicToolError::InvalidSchema {
            tool: name.clone(),
            which,
            message,
        };
        let mut input = self.input_schema;
        crate::schema::normalize(&mut input);
        match input.get("type") {
            Some(Value::String(kind)) if kind == "object" => {}
            _ => {
                return Err(error(
                    "input",
                    "an input schema must describe an object (\"type\": \"object\")".into(),
                ));
            }
        }
        let validator = jsonschema::validator_for(&input)
            .map_err(|problem| error("input", problem.to_string()))?;
        satisfiable(&name, "input", &input)?;
        if let Some(mut output) = self.output_schema {
            crate::schema::normalize(&mut output);
            jsonschema::validator_for(&output)
                .map_err(|problem| error("output", problem.to_string()))?;
            satisfiable(&name, "output", &output)?;
            spec.output_schema = SchemaSource::given(output);
        }
        spec.input_schema = SchemaSource::given(input);
        let handler = self
            .handler
            .ok_or(DynamicToolError::NoHandler { tool: name.clone() })?;
        Ok(DynamicTool {
            spec,
            validator: Arc::new(validator),
            handler,
        })
    }
}

/// An error naming every part of the `which` schema of the tool `tool` no
/// value can satisfy, if it has any.
fn satisfiable(tool: &str, which: &'static str, schema: &Value) -> Result<(), DynamicToolError> {
    let problems = crate::schema::unsatisfiable(schema);
    if problems.is_empty() {
        return Ok(());
    }
    Err(DynamicToolError::Unsatisfiable {
        tool: tool.to_owned(),
        which,
        problems,
    })
}

/// Why a [`DynamicTool`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DynamicToolError {
    /// The name is not 1 to 64 letters, digits, `_` or `-`.
    InvalidName {
        /// The name, quoted and cut short.
        name: String,
    },
    /// A schema is not valid JSON Schema, or the input schema does not
    /// describe an object.
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// What is wrong, as the validator says.
        message: String,
    },
    /// A schema is valid JSON Schema, but a part of it no value can
    /// satisfy (see [`schema::unsatisfiable`](crate::schema::unsatisfiable)):
    /// an `enum` of strings on an `integer`, `minimum` above `maximum`, a
    /// required property the schema forbids, ... A tool whose input schema
    /// has one could never be called as it says (or an argument never
    /// given).
    Unsatisfiable {
        /// The tool.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// Each part no value can satisfy: its keyword, where it is, and
        /// why.
        problems: Vec<crate::schema::SchemaProblem>,
    },
    /// A scope given to [`scopes`](DynamicToolBuilder::scopes) is not an
    /// OAuth scope token: empty, or with a space, `"`, `\` or a character
    /// outside printable ASCII.
    InvalidScope {
        /// The tool.
        tool: String,
        /// The scope, quoted and cut short.
        scope: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Neither [`handler`](DynamicToolBuilder::handler) nor
    /// [`async_handler`](DynamicToolBuilder::async_handler) was called.
    NoHandler {
        /// The tool.
        tool: String,
    },
}

impl fmt::Display for DynamicToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynamicToolError::InvalidName { name } => write!(
                f,
                "invalid tool name \"{name}\": a name is 1 to 64 letters, digits, `_` or `-`"
            ),
            DynamicToolError::InvalidSchema {
                tool,
                which,
                message,
            } => write!(f, "tool {tool}: invalid {which} schema: {message}"),
            DynamicToolError::Unsatisfiable {
                tool,
                which,
                problems,
            } => {
                write!(
                    f,
                    "tool {tool}: no value can satisfy a part of its {which} schema: "
                )?;
                for (i, problem) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{problem}")?;
                }
                Ok(())
            }
            DynamicToolError::InvalidScope {
                tool,
                scope,
                problem,
            } => write!(f, "tool {tool}: invalid scope \"{scope}\": {problem}"),
            DynamicToolError::NoHandler { tool } => write!(
                f,
                "tool {tool} has no handler: call `handler` or `async_handler` before `build`"
            ),
        }
    }
}

impl std::error::Error for DynamicToolError {}
