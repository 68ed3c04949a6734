//! The `code_mode` tool: its spec (the description lists the tools as
//! Python functions), its argument, and what a run returns.

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_runtime::search::ToolIndex;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, spec::SchemaSource,
    spec::ToolErrorKind, spec::ToolFuture,
};

use super::CodeModeOptions;
use super::bridge::Inner;
use super::prelude::PyTool;
use super::run::CodeModeRun;

/// How much longer than the script's time limit the `code_mode` call's
/// own limit is: time to stop the script and gather its output.
const TIMEOUT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The `code_mode` tool made by [`CodeMode::build`](super::CodeMode::build).
#[derive(Clone)]
pub struct CodeModeTool {
    spec: ToolSpec,
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CodeModeTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.inner.tools.iter().map(|tool| &*tool.name).collect();
        f.debug_struct("CodeModeTool")
            .field("tools", &names)
            .field("options", &self.inner.options)
            .finish()
    }
}

impl CodeModeTool {
    /// The tool over `tools` of `registry`, which needs `scopes`: those
    /// the tools need, each once.
    pub(super) fn new(
        registry: Arc<Registry>,
        options: CodeModeOptions,
        tools: Vec<PyTool>,
        index: Option<ToolIndex>,
        scopes: Vec<std::borrow::Cow<'static, str>>,
    ) -> Self {
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (tool.name.clone(), i))
            .collect();
        let inner = Inner {
            registry,
            options,
            tools,
            by_name,
            index,
        };
        let mut spec = ToolSpec::new("code_mode", describe(&inner), input_schema(&inner));
        spec.title = Some("Python script calling tools".into());
        spec.output_schema = SchemaSource::given(output_schema());
        // Its description shows every tool: a caller sees it only when it
        // may call them all.
        spec.scopes = scopes.into();
        // As python_exec's: the script may do what Python can.
        spec.annotations.destructive = Some(true);
        spec.annotations.open_world = Some(true);
        // The script's own limit comes first, with its clear result; a
        // registry's default time limit does not cut it short.
        let timeout = std::time::Duration::from_millis(inner.options.timeout_ms);
        spec.timeout = Some(timeout.saturating_add(TIMEOUT_GRACE));
        Self {
            spec,
            inner: Arc::new(inner),
        }
    }

    /// The Python signature (with its docstring) of each tool a script may
    /// call, in order.
    pub fn signatures(&self) -> impl Iterator<Item = String> + '_ {
        self.inner.tools.iter().map(PyTool::signature)
    }

    /// The registry whose tools a script calls.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.inner.registry
    }
}

impl Tool for CodeModeTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        let script = match script(input, self.inner.options.max_script_bytes) {
            Ok(script) => script,
            Err(error) => return ToolFuture::ready(Err(error)),
        };
        let inner = Arc::clone(&self.inner);
        ToolFuture::pending(async move {
            let run = super::bridge::run(inner, script, ctx).await?;
            let value = serde_json::to_value(run)
                .map_err(|error| ToolError::internal(format!("the run's result: {error}")))?;
            Ok(ToolOutput::Value(value))
        })
    }
}

/// The script from the arguments: `{"script": "..."}` and nothing else.
fn script(input: &Value, max_bytes: u64) -> Result<String, ToolError> {
    let invalid = |message: String| ToolError::with_kind(ToolErrorKind::InvalidArguments, message);
    let Some(object) = input.as_object() else {
        return Err(invalid(
            "the arguments must be an object: {\"script\": \"...\"}".to_owned(),
        ));
    };
    if let Some(other) = object.keys().find(|key| *key != "script") {
        return Err(invalid(format!(
            "unknown argument \"{}\"; code_mode takes only \"script\"",
            tool_runtime::__private::quote::name(other)
        )));
    }
    let Some(script) = object.get("script").and_then(Value::as_str) else {
        return Err(invalid(
            "missing argument \"script\": the Python code to run, as a string".to_owned(),
        ));
    };
    if script.len() as u64 > max_bytes {
        return Err(invalid(format!(
            "the script is {} bytes, more than the limit of {max_bytes} bytes",
            script.len()
        )));
    }
    if script.contains('\0') {
        return Err(invalid("the script contains a NUL byte".to_owned()));
    }
    Ok(script.to_owned())
}

fn input_schema(inner: &Inner) -> Value {
    json!({
        "type": "object",
        "properties": {
            "script": {
                "type": "string",
                "description": "Python 3 code that calls the tools as functions and prints what it finds.",
                "minLength": 1,
                "maxLength": inner.options.max_script_bytes,
            }
        },
        "required": ["script"],
        "additionalProperties": false,
    })
}

fn output_schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(CodeModeRun)).unwrap_or_default();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

/// The description: what the tool does, its limits, and the functions.
fn describe(inner: &Inner) -> String {
    let options = &inner.options;
    let mut text = String::from(
        "Runs a Python 3 script in which the tools below are functions. Call them, \
         combine their results in Python and print what you want to see: only \
         standard output and standard error come back, with a list of the calls made. \
         A tool returns a dict or list (JSON results) or a str (text); a failed call \
         raises ToolCallError (attributes: tool, kind), which the script may catch. \
         Pass arguments by name. Only the standard library is certain to be available.",
    );
    let _ = write!(
        text,
        "\n\nLimits: {} tool calls, {} at once, {} s in all, {} bytes of output.",
        options.max_calls,
        options.max_concurrent_calls,
        options.timeout_ms.div_ceil(1000),
        options.max_output_bytes
    );
    let shown = if inner.index.is_some() {
        options.shown_tools.min(inner.tools.len())
    } else {
        inner.tools.len()
    };
    text.push_str("\n\n```python\n");
    for tool in &inner.tools[..shown] {
        text.push_str(&tool.signature());
        text.push('\n');
    }
    if inner.index.is_some() {
        let _ = write!(
            text,
            "def search_tools(query: str, limit: int = 5) -> list[dict]:\n    \
             \"\"\"The {} tools not shown above, and these, by relevance to query: \
             each a dict with name, signature and description.\"\"\"\n",
            inner.tools.len() - shown
        );
    }
    text.push_str("```");
    text
}
