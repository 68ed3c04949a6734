//! [`ToolTransform`]: a tool re-exposed under another name and description,
//! with its arguments renamed, hidden behind a fixed value, or given new
//! defaults and descriptions ([`ArgTransform`]); how a call's arguments
//! become the tool's (`plan.rs`), the tool's formatter speaking the new
//! names (`format.rs`), and why a transform cannot be built (`error.rs`).

mod error;
mod format;
mod plan;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

pub use error::{GivenValue, TransformError};

use crate::context::ToolContext;
use crate::spec::error::{ArgError, ToolError, ToolErrorKind};
use crate::spec::tool_spec::{SchemaSource, SourceLocation, ToolSpec};
use crate::tool::{Tool, ToolFuture, ToolRef};
use plan::Plan;

/// What becomes of one argument of a tool re-exposed with
/// [`ToolTransform`]: a new name, a new description, a new default, or
/// hidden from the model with a value the tool always gets.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::transform::ArgTransform;
///
/// let renamed = ArgTransform::new().rename("query").description("What to look for");
/// let fixed = ArgTransform::hidden(json!(10));
/// let metres = ArgTransform::new().default(json!("m"));
/// # let _ = (renamed, fixed, metres);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use = "an argument transform does nothing until given to `ToolTransform::arg`"]
pub struct ArgTransform {
    rename: Option<String>,
    description: Option<String>,
    default: Option<Value>,
    hide: Option<Option<Value>>,
}

impl ArgTransform {
    /// The argument as it is; each method below changes one thing.
    pub fn new() -> Self {
        <Self as Default>::default()
    }

    /// The argument hidden from the model: it leaves the schema, a call
    /// may not give it, and the tool always gets `value`.
    pub fn hidden(value: Value) -> Self {
        Self {
            hide: Some(Some(value)),
            ..<Self as Default>::default()
        }
    }

    /// The argument hidden from the model: it leaves the schema and a call
    /// may not give it. The tool gets the [`default`](Self::default) given
    /// here if there is one, else nothing, so the argument must not be
    /// required.
    pub fn hide(mut self) -> Self {
        if self.hide.is_none() {
            self.hide = Some(None);
        }
        self
    }

    /// The name the model gives the argument by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub fn rename(mut self, name: impl Into<String>) -> Self {
        self.rename = Some(name.into());
        self
    }

    /// What the argument means, in place of the tool's own words.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The value the tool gets when a call leaves the argument out (or
    /// gives `null`); the argument is no longer required.
    pub fn default(mut self, value: Value) -> Self {
        self.default = Some(value);
        self
    }

    /// The value a hidden argument is given: its own, else the default;
    /// `None` when the argument is not hidden, `Some(None)` when it is
    /// hidden with no value.
    fn hidden_value(&self) -> Option<Option<&Value>> {
        self.hide
            .as_ref()
            .map(|value| value.as_ref().or(self.default.as_ref()))
    }
}

/// Re-exposes a tool under a new name and description, with its arguments
/// renamed, hidden behind a fixed value, or given new defaults and
/// descriptions: what FastMCP's `Tool.from_tool` does, for any tool (a
/// `#[tool]` function, a `DynamicTool`, a tool
/// imported from an MCP server, one taken from a registry with
/// [`Registry::get_shared`](crate::Registry::get_shared)).
///
/// [`build`](Self::build) makes a [`TransformedTool`]. Its input schema is
/// the tool's own, rewritten: properties renamed, hidden ones gone from
/// `properties` and `required`, new descriptions and defaults set, and an
/// argument with a new default no longer required. A call is checked
/// against it and its mistakes are reported in the new names (an
/// unknown, missing or hidden argument before the tool is called; a
/// wrong value as the tool finds it, with its field renamed back), then
/// its arguments are given their old names, the hidden values and
/// defaults filled in, and the tool called. The spec keeps the tool's
/// other fields (title, output schema, annotations, time limit,
/// configuration, ...) except its aliases, which stay with the old name.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::{tool, transform::ArgTransform, Registry, ToolContext, transform::ToolTransform, ToolUse};
///
/// /// Looks orders up.
/// #[tool]
/// fn order_lookup(q: String, limit: u32, unit: String) -> String {
///     format!("{q} {limit} {unit}")
/// }
///
/// let find_order = ToolTransform::new(OrderLookupTool)
///     .name("find_order")
///     .description("Finds a customer's order by what they say about it.")
///     .arg("q", ArgTransform::new().rename("query").description("The customer's words"))
///     .arg("limit", ArgTransform::hidden(json!(10)))
///     .arg("unit", ArgTransform::new().default(json!("m")))
///     .build()
///     .unwrap();
/// let schema = tool_runtime::Tool::spec(&find_order).input_schema().clone();
/// assert_eq!(schema["required"], json!(["query"]));
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().tool(find_order).build().unwrap();
/// let ctx = ToolContext::new();
/// let ok = registry.invoke(ToolUse::new("1", "find_order", json!({"query": "blue"})), &ctx).await;
/// assert_eq!(ok.text_content(), "blue 10 m");
/// let bad = registry.invoke(ToolUse::new("2", "find_order", json!({"q": "blue"})), &ctx).await;
/// assert_eq!(
///     bad.text_content(),
///     "invalid arguments for find_order: q: unknown field, did you mean \"query\"?"
/// );
/// # });
/// ```
#[must_use = "a transform does nothing until `build` is called"]
pub struct ToolTransform {
    tool: ToolRef,
    name: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    title: Option<Cow<'static, str>>,
    args: Vec<(String, ArgTransform)>,
    location: SourceLocation,
}

impl ToolTransform {
    /// Starts re-exposing `tool`, such as the struct `#[tool]` emits or a
    /// `DynamicTool`.
    #[track_caller]
    pub fn new<T: Tool>(tool: T) -> Self {
        Self::of(ToolRef::new(tool))
    }

    /// Starts re-exposing a shared tool: one taken from a registry
    /// ([`Registry::get_shared`](crate::Registry::get_shared)), or a
    /// `#[toolset]` method's.
    #[track_caller]
    pub fn shared(tool: Arc<dyn Tool>) -> Self {
        Self::of(ToolRef::Shared(tool))
    }

    #[track_caller]
    pub(crate) fn of(tool: ToolRef) -> Self {
        let caller = std::panic::Location::caller();
        Self {
            tool,
            name: None,
            description: None,
            title: None,
            args: Vec::new(),
            location: SourceLocation {
                module: "",
                file: caller.file(),
                line: caller.line(),
            },
        }
    }

    /// The name the tool will have: the new one, else its own.
    pub(crate) fn target_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.tool.spec().name)
    }

    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`);
    /// the tool's own by default.
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// What the tool does, in place of its own description.
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// A human-readable title, for MCP clients, in place of the tool's own.
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Changes the argument the tool calls `name` (its name in the tool's
    /// own schema). A second transform of one argument replaces the first.
    pub fn arg(mut self, name: impl Into<String>, transform: ArgTransform) -> Self {
        let name = name.into();
        self.args.retain(|(other, _)| *other != name);
        self.args.push((name, transform));
        self
    }

    /// Makes the tool, or says why it cannot be made: a name that is not
    /// 1 to 64 letters, digits, `_` or `-`; an argument the tool does not
    /// have; an argument renamed onto the name another one has; a required
    /// argument hidden without a value; a hidden value or a default the
    /// tool would refuse for its argument ([`TransformError::InvalidValue`]:
    /// checked as a call's argument is, for a `#[tool]` function; against
    /// the tool's input schema for a tool made at run time, with the
    /// `dynamic` feature).
    ///
    /// A tool with a [formatter](crate::format::ToolFormat) keeps it: it writes
    /// the definitions of the new spec (new name, description and
    /// schema), and a call it reads in the tool's own form is given the
    /// new argument names, its hidden arguments left out.
    pub fn build(self) -> Result<TransformedTool, TransformError> {
        let inner = self.tool.spec();
        let name = self.name.unwrap_or_else(|| inner.name.clone());
        if !valid_name(&name) {
            return Err(TransformError::InvalidName {
                name: crate::quote::name(&name),
            });
        }
        let properties = inner.input_schema()["properties"].as_object();
        for (argument, _) in &self.args {
            if !properties.is_some_and(|p| p.contains_key(argument)) {
                let names = properties.into_iter().flat_map(|p| p.keys());
                return Err(TransformError::UnknownArgument {
                    tool: inner.name.to_string(),
                    argument: argument.clone(),
                    suggestion: crate::names::closest(argument, names.map(String::as_str))
                        .map(str::to_owned),
                });
            }
        }
        let (plan, new_schema) = plan::plan(inner, &self.args)?;
        let mut spec = inner.clone();
        spec.name = name;
        if let Some(description) = self.description {
            spec.description = description;
        }
        if let Some(title) = self.title {
            spec.title = Some(title);
        }
        spec.params = &[];
        spec.aliases = Cow::Borrowed(&[]);
        spec.location = self.location;
        spec.input_schema = SchemaSource::given(new_schema);
        spec.formatter = spec
            .formatter
            .take()
            .map(|formatter| format::renamed(formatter, &plan));
        Ok(TransformedTool {
            spec,
            inner: self.tool,
            plan: Arc::new(plan),
        })
    }
}

impl fmt::Debug for ToolTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolTransform")
            .field("tool", &self.tool.spec().name)
            .field("name", &self.name)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// Whether `name` is a valid tool or argument name: 1 to 64 letters,
/// digits, `_` or `-`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A tool re-exposed by [`ToolTransform`]: its own spec, and a call that
/// checks and renames the arguments and calls the tool behind it.
#[derive(Clone)]
pub struct TransformedTool {
    spec: ToolSpec,
    inner: ToolRef,
    plan: Arc<Plan>,
}

impl TransformedTool {
    /// The tool behind this one.
    pub fn inner(&self) -> &dyn Tool {
        &*self.inner
    }

    /// An error of the tool behind this one as a call of this one reads
    /// it: its argument problems under the new names.
    fn outward(&self, error: ToolError) -> ToolError {
        if error.kind() != ToolErrorKind::InvalidArguments || error.argument_errors().is_empty() {
            return error;
        }
        let problems = error
            .argument_errors()
            .iter()
            .map(|problem| ArgError {
                field: self.plan.outward(&problem.field),
                ..problem.clone()
            })
            .collect();
        ToolError::invalid_arguments(&self.spec.name, problems)
    }
}

impl fmt::Debug for TransformedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransformedTool")
            .field("spec", &self.spec)
            .field("inner", &self.inner.spec().name)
            .finish_non_exhaustive()
    }
}

impl Tool for TransformedTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn takes_context(&self) -> bool {
        self.inner.takes_context()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        match self.plan.arguments(input, self.spec.input_schema()) {
            Err(problems) => {
                ToolFuture::ready(Err(ToolError::invalid_arguments(&self.spec.name, problems)))
            }
            Ok(arguments) => ToolFuture::pending(async move {
                let outcome = self.inner.call(&arguments, ctx).await;
                outcome.map_err(|error| self.outward(error))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use serde_json::json;

    use super::*;
    use crate::spec::error::ArgErrorKind;
    use crate::spec::result::ToolOutput;

    /// A tool that gives back the arguments it was called with, or fails
    /// with a problem at `q.sub[0]` when `q` is `"bad"`.
    struct Echo(ToolSpec);

    impl Tool for Echo {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }

        fn call<'a>(&'a self, input: &'a Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
            if input["q"] == "bad" {
                let problem = ArgError {
                    field: "q.sub[0]".into(),
                    kind: ArgErrorKind::InvalidValue,
                    message: "expected a number, got \"x\"".into(),
                };
                return ToolFuture::ready(Err(ToolError::invalid_arguments("echo", vec![problem])));
            }
            ToolFuture::ready(Ok(ToolOutput::Value(input.clone())))
        }
    }

    fn echo(schema: Value) -> Echo {
        Echo(ToolSpec::new("echo", "Echoes.", schema))
    }

    fn call(tool: &TransformedTool, input: Value) -> Result<Value, ToolError> {
        let ctx = ToolContext::new();
        let mut future = std::pin::pin!(tool.call(&input, &ctx));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(outcome) => outcome.map(|output| output.into_value().unwrap()),
            std::task::Poll::Pending => panic!("the call is not done"),
        }
    }

    #[test]
    fn an_open_schema_passes_other_keys_on_but_not_old_or_hidden_names() {
        let schema = json!({"type": "object", "properties": {"q": {}, "k": {}}});
        let tool = ToolTransform::new(echo(schema))
            .arg("q", ArgTransform::new().rename("query"))
            .arg("k", ArgTransform::hidden(json!(1)))
            .build()
            .unwrap();
        let passed = call(&tool, json!({"query": "a", "extra": true})).unwrap();
        assert_eq!(passed, json!({"q": "a", "extra": true, "k": 1}));
        let old = call(&tool, json!({"q": "a"})).unwrap_err();
        assert_eq!(old.argument_errors()[0].field, "q");
        let hidden = call(&tool, json!({"query": "a", "k": 2})).unwrap_err();
        assert_eq!(hidden.argument_errors()[0].field, "k");
        let not_object = call(&tool, json!([1])).unwrap_err();
        assert_eq!(
            not_object.argument_errors()[0].kind,
            ArgErrorKind::NotAnObject
        );
    }

    #[test]
    fn a_problem_inside_a_value_is_renamed_at_its_first_step() {
        let schema = json!({"type": "object", "properties": {"q": {}}, "required": ["q"]});
        let tool = ToolTransform::new(echo(schema))
            .name("find")
            .arg("q", ArgTransform::new().rename("query"))
            .build()
            .unwrap();
        let error = call(&tool, json!({"query": "bad"})).unwrap_err();
        assert_eq!(
            error.message(),
            "invalid arguments for find: query.sub[0]: expected a number, got \"x\""
        );
        let missing = call(&tool, json!({})).unwrap_err();
        assert_eq!(
            missing.message(),
            "invalid arguments for find: query: missing required field"
        );
    }

    #[cfg(feature = "dynamic")]
    #[test]
    fn a_hidden_value_or_default_is_checked_against_a_run_time_tools_schema() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 0, "maximum": 255},
            "unit": {"enum": ["m", "ft"]},
            "note": {"type": "string"}
        }, "required": ["n"]});
        let hidden = ToolTransform::new(echo(schema.clone()))
            .arg("n", ArgTransform::hidden(json!(300)))
            .build()
            .unwrap_err();
        let TransformError::InvalidValue {
            argument,
            value,
            problems,
            ..
        } = &hidden
        else {
            panic!("{hidden:?}");
        };
        assert_eq!((argument.as_str(), *value), ("n", GivenValue::Hidden));
        assert_eq!(problems[0].field, "n");
        assert_eq!(
            hidden.to_string(),
            "the hidden value of argument \"n\" of tool echo is not a value the tool takes: \
             expected a number of at most 255, got 300"
        );
        let default = ToolTransform::new(echo(schema.clone()))
            .arg("unit", ArgTransform::new().default(json!("km")))
            .build()
            .unwrap_err();
        assert!(
            matches!(
                &default,
                TransformError::InvalidValue {
                    value: GivenValue::Default,
                    ..
                }
            ),
            "{default:?}"
        );
        // A hidden argument without a value of its own gets the default,
        // which is checked as such; `null` for an optional one is absence.
        let hidden_default = ToolTransform::new(echo(schema.clone()))
            .arg("unit", ArgTransform::new().default(json!(3)).hide())
            .build()
            .unwrap_err();
        assert!(
            matches!(
                &hidden_default,
                TransformError::InvalidValue {
                    value: GivenValue::Default,
                    ..
                }
            ),
            "{hidden_default:?}"
        );
        let fine = ToolTransform::new(echo(schema))
            .arg("n", ArgTransform::hidden(json!(255)))
            .arg("unit", ArgTransform::new().default(json!("ft")))
            .arg("note", ArgTransform::hidden(Value::Null))
            .build();
        assert!(fine.is_ok(), "{fine:?}");
    }
}
