//! [`ToolTransform`]: a tool re-exposed under another name and description,
//! with its arguments renamed, hidden behind a fixed value, or given new
//! defaults and descriptions ([`ArgTransform`]).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::context::ToolContext;
use crate::spec::error::{ArgError, ArgErrorKind, ToolError, ToolErrorKind};
use crate::spec::tool_spec::{SchemaSource, SourceLocation, ToolSpec};
use crate::tool::{Tool, ToolFuture, ToolRef};

/// What becomes of one argument of a tool re-exposed with
/// [`ToolTransform`]: a new name, a new description, a new default, or
/// hidden from the model with a value the tool always gets.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::ArgTransform;
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
/// use tool_runtime::{tool, ArgTransform, Registry, ToolContext, ToolTransform, ToolUse};
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
    /// argument hidden without a value.
    pub fn build(self) -> Result<TransformedTool, TransformError> {
        let inner = self.tool.spec();
        let tool = inner.name.to_string();
        let name = self.name.unwrap_or_else(|| inner.name.clone());
        if !valid_name(&name) {
            return Err(TransformError::InvalidName {
                name: crate::quote::name(&name),
            });
        }
        let schema = inner.input_schema();
        let empty = Map::new();
        let properties = schema["properties"].as_object().unwrap_or(&empty);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (argument, _) in &self.args {
            if !properties.contains_key(argument) {
                return Err(TransformError::UnknownArgument {
                    tool,
                    argument: argument.clone(),
                    suggestion: crate::names::closest(
                        argument,
                        properties.keys().map(String::as_str),
                    )
                    .map(str::to_owned),
                });
            }
        }
        let change = |old: &str| {
            self.args
                .iter()
                .find(|(name, _)| name == old)
                .map(|(_, change)| change)
        };
        let mut plan = Plan::default();
        let mut new_properties = Map::new();
        let mut taken: Vec<(String, String)> = Vec::new();
        for (old, property) in properties {
            let change = change(old);
            if let Some(hidden) = change.and_then(ArgTransform::hidden_value) {
                if hidden.is_none() && required.contains(&old.as_str()) {
                    return Err(TransformError::HiddenRequired {
                        tool,
                        argument: old.clone(),
                    });
                }
                taken.push((old.clone(), old.clone()));
                plan.hidden.push((old.clone(), hidden.cloned()));
                continue;
            }
            let new = change
                .and_then(|change| change.rename.clone())
                .unwrap_or_else(|| old.clone());
            if !valid_name(&new) {
                return Err(TransformError::InvalidName {
                    name: crate::quote::name(&new),
                });
            }
            let mut property = property.clone();
            let default = change.and_then(|change| change.default.clone());
            if let Some(object) = property.as_object_mut() {
                if let Some(text) = change.and_then(|change| change.description.clone()) {
                    object.insert("description".to_owned(), Value::String(text));
                }
                if let Some(default) = &default {
                    object.insert("default".to_owned(), default.clone());
                }
            }
            if required.contains(&old.as_str()) && default.is_none() {
                plan.required.push(new.clone());
            }
            taken.push((new.clone(), old.clone()));
            new_properties.insert(new.clone(), property);
            plan.visible.push(Visible {
                new,
                old: old.clone(),
                default,
            });
        }
        for (i, (name, old)) in taken.iter().enumerate() {
            if let Some((_, first)) = taken[..i].iter().find(|(other, _)| other == name) {
                let argument = if first == name { old } else { first };
                return Err(TransformError::NameTaken {
                    tool,
                    argument: argument.clone(),
                    name: name.clone(),
                });
            }
        }
        plan.closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let mut new_schema = schema.clone();
        if let Some(object) = new_schema.as_object_mut() {
            object.insert("properties".to_owned(), Value::Object(new_properties));
            let listed: Vec<Value> = plan.required.iter().cloned().map(Value::String).collect();
            if listed.is_empty() {
                object.remove("required");
            } else {
                object.insert("required".to_owned(), Value::Array(listed));
            }
        }
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

/// How a call's arguments become the tool's.
#[derive(Debug, Default)]
struct Plan {
    /// Each argument the model sees, in the schema's order.
    visible: Vec<Visible>,
    /// The hidden arguments (old names) and the value each always gets.
    hidden: Vec<(String, Option<Value>)>,
    /// The new names a call must give.
    required: Vec<String>,
    /// Whether the schema takes no other properties.
    closed: bool,
}

/// One argument the model sees.
#[derive(Debug)]
struct Visible {
    new: String,
    old: String,
    default: Option<Value>,
}

impl Plan {
    fn by_new(&self, name: &str) -> Option<&Visible> {
        self.visible.iter().find(|arg| arg.new == name)
    }

    /// The call's arguments in the tool's names, with the hidden values and
    /// the defaults; or every mistake in them, in the new names.
    fn arguments(&self, input: &Value, schema: &Value) -> Result<Value, Vec<ArgError>> {
        let empty = Map::new();
        let given = match input {
            Value::Object(object) => object,
            Value::Null => &empty,
            other => {
                return Err(vec![ArgError {
                    field: String::new(),
                    kind: ArgErrorKind::NotAnObject,
                    message: format!(
                        "the arguments must be a JSON object, got {}",
                        crate::quote::value(other)
                    ),
                }]);
            }
        };
        let mut out = Map::new();
        let mut unknown = Vec::new();
        for (key, value) in given {
            if let Some(arg) = self.by_new(key) {
                if !(value.is_null() && arg.default.is_some()) {
                    out.insert(arg.old.clone(), value.clone());
                }
                continue;
            }
            let message = if self.hidden.iter().any(|(old, _)| old == key) {
                "the tool sets this argument itself; leave it out".to_owned()
            } else if let Some(arg) = self.visible.iter().find(|arg| arg.old == *key) {
                format!("unknown field, did you mean \"{}\"?", arg.new)
            } else if !self.closed {
                out.insert(key.clone(), value.clone());
                continue;
            } else {
                self.unknown_message(key)
            };
            unknown.push(ArgError {
                field: crate::quote::name(key),
                kind: ArgErrorKind::Unknown,
                message,
            });
        }
        let mut problems: Vec<ArgError> = self
            .required
            .iter()
            .filter(|name| !given.contains_key(name.as_str()))
            .map(|name| ArgError {
                field: name.clone(),
                kind: ArgErrorKind::Missing,
                message: match kind_of(&schema["properties"][name.as_str()]) {
                    Some(kind) => format!("missing required field ({kind})"),
                    None => "missing required field".to_owned(),
                },
            })
            .collect();
        // A misspelt argument is one problem, not a missing and an unknown one.
        problems.retain(|missing| {
            !unknown.iter().any(|u| {
                u.message
                    .contains(&format!("did you mean \"{}\"?", missing.field))
            })
        });
        problems.extend(unknown);
        if !problems.is_empty() {
            return Err(problems);
        }
        for arg in &self.visible {
            if let Some(default) = &arg.default
                && !out.contains_key(&arg.old)
            {
                out.insert(arg.old.clone(), default.clone());
            }
        }
        for (old, value) in &self.hidden {
            if let Some(value) = value {
                out.insert(old.clone(), value.clone());
            }
        }
        Ok(Value::Object(out))
    }

    /// An unknown argument's message: the closest name the model may give,
    /// or the names it may.
    fn unknown_message(&self, key: &str) -> String {
        let names = || self.visible.iter().map(|arg| arg.new.as_str());
        if let Some(close) = crate::names::closest(key, names()) {
            return format!("unknown field, did you mean \"{close}\"?");
        }
        if self.visible.is_empty() {
            return "unknown field; this tool takes no arguments".to_owned();
        }
        let listed: Vec<String> = names().map(|name| format!("\"{name}\"")).collect();
        format!("unknown field; expected one of {}", listed.join(", "))
    }

    /// `field`, a path in the tool's names, in the names the model gives.
    fn outward(&self, field: &str) -> String {
        let end = field.find(['.', '[']).unwrap_or(field.len());
        let (head, rest) = field.split_at(end);
        match self.visible.iter().find(|arg| arg.old == head) {
            Some(arg) => format!("{}{rest}", arg.new),
            None => field.to_owned(),
        }
    }
}

/// A property's type in words, for a missing argument's message, when its
/// schema states one plainly.
fn kind_of(property: &Value) -> Option<&'static str> {
    Some(match property.get("type")?.as_str()? {
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "true or false",
        "array" => "an array",
        "object" => "an object",
        _ => return None,
    })
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

/// Why a [`ToolTransform`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransformError {
    /// A tool's or an argument's new name is not 1 to 64 letters, digits,
    /// `_` or `-`.
    InvalidName {
        /// The name, quoted and cut short.
        name: String,
    },
    /// An argument was named that the tool does not have.
    UnknownArgument {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument named.
        argument: String,
        /// The tool's closest argument name, if any is close.
        suggestion: Option<String>,
    },
    /// An argument was renamed onto the name another argument keeps (or
    /// another was renamed to).
    NameTaken {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument renamed (its name in the tool).
        argument: String,
        /// The name taken twice.
        name: String,
    },
    /// A required argument was hidden with no value to give the tool.
    HiddenRequired {
        /// The tool transformed (its own name).
        tool: String,
        /// The argument.
        argument: String,
    },
}

impl fmt::Display for TransformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransformError::InvalidName { name } => write!(
                f,
                "invalid name \"{name}\": a tool or argument name is 1 to 64 letters, digits, `_` \
                 or `-`"
            ),
            TransformError::UnknownArgument {
                tool,
                argument,
                suggestion,
            } => {
                write!(f, "tool {tool} has no argument \"{argument}\"")?;
                match suggestion {
                    Some(close) => write!(f, "; did you mean \"{close}\"?"),
                    None => Ok(()),
                }
            }
            TransformError::NameTaken {
                tool,
                argument,
                name,
            } => write!(
                f,
                "argument \"{argument}\" of tool {tool} cannot be renamed \"{name}\": another \
                 argument has that name; rename that one too, or choose another name"
            ),
            TransformError::HiddenRequired { tool, argument } => write!(
                f,
                "argument \"{argument}\" of tool {tool} is required, so hiding it needs a value: \
                 use ArgTransform::hidden(value)"
            ),
        }
    }
}

impl std::error::Error for TransformError {}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use serde_json::json;

    use super::*;
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
}
