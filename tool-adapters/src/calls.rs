//! What every adapter shares: a call read from a client, run through the
//! registry, and the tool definitions each adapter builds from the
//! registry's own OpenAI rendering.

use serde_json::{Map, Value};
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolResult, ToolUse, spec::ArgError, spec::ArgErrorKind,
};

/// One tool call as a client gave it, ready to run or already answered.
#[derive(Debug, Clone)]
pub(crate) enum Call {
    /// To run through the registry.
    Run(ToolUse),
    /// Answered without running: its arguments were not JSON. The tool use
    /// holds the text that came, as a JSON string.
    Answered(ToolUse, ToolResult),
}

impl Call {
    /// A call whose arguments came as JSON text, as OpenAI sends them.
    ///
    /// Empty text is `{}` (a call to a tool without parameters), as for
    /// tool-runtime's own parsing. Text that is JSON but not an object runs
    /// anyway, so that the registry words the problem as for any other
    /// call; text that is not JSON at all is answered here with an
    /// `invalid arguments` error naming the tool, which the model reads.
    pub(crate) fn from_text(id: impl Into<String>, name: impl Into<String>, text: &str) -> Self {
        let (id, name) = (id.into(), name.into());
        if text.trim().is_empty() {
            return Call::Run(ToolUse::new(id, name, Value::Object(Map::new())));
        }
        match serde_json::from_str::<Value>(text) {
            Ok(input) => Call::Run(ToolUse::new(id, name, input)),
            Err(error) => {
                let problem = ArgError {
                    field: String::new(),
                    kind: ArgErrorKind::NotJson,
                    message: format!("the arguments are not valid JSON: {error}"),
                };
                let error = ToolError::invalid_arguments(&name, vec![problem]);
                let result = ToolResult::from_error(id.clone(), &error);
                Call::Answered(
                    ToolUse::new(id, name, Value::String(text.to_owned())),
                    result,
                )
            }
        }
    }
}

/// Runs `calls` concurrently under the registry's limits (its concurrency
/// limit, each tool's time limit, its policies) and pairs each with its
/// result, in the order given.
pub(crate) async fn run(
    registry: &Registry,
    calls: Vec<Call>,
    ctx: &ToolContext,
) -> Vec<(ToolUse, ToolResult)> {
    let to_run: Vec<ToolUse> = calls
        .iter()
        .filter_map(|call| match call {
            Call::Run(tool_use) => Some(tool_use.clone()),
            Call::Answered(..) => None,
        })
        .collect();
    let mut results = registry.invoke_all(to_run, ctx).await.into_iter();
    calls
        .into_iter()
        .map(|call| match call {
            Call::Run(tool_use) => {
                // `invoke_all` gives one result per call; should it not,
                // the call is still answered.
                let result = results.next().unwrap_or_else(|| {
                    ToolResult::error(tool_use.id.clone(), "the call was not run")
                });
                (tool_use, result)
            }
            Call::Answered(tool_use, result) => (tool_use, result),
        })
        .collect()
}

/// One tool as the registry offers it: its name, description, the
/// parameters schema the model is shown and whether that schema is strict.
#[cfg_attr(
    not(any(feature = "rig", feature = "async-openai", feature = "genai")),
    allow(dead_code)
)]
pub(crate) struct Definition {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
    // rig's tool definitions have no strict flag.
    #[cfg_attr(
        not(any(feature = "async-openai", feature = "genai")),
        allow(dead_code)
    )]
    pub(crate) strict: bool,
}

/// The registry's tools as it renders them for OpenAI Chat Completions
/// (cached by the registry), in name order.
///
/// The adapters whose clients take a plain name, description and schema
/// read them from here rather than from the specs: a tool the registry
/// renders strict (marked `#[tool(strict)]`, or every tool of a registry
/// built with `.strict(true)`) comes with tool-runtime's strict schema, and
/// the registry reads the arguments of such a tool back from the strict
/// form when it is called.
#[cfg_attr(
    not(any(feature = "rig", feature = "async-openai", feature = "genai")),
    allow(dead_code)
)]
pub(crate) fn definitions(registry: &Registry) -> Vec<Definition> {
    let rendered = registry.render(Provider::OpenAiChat);
    rendered
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|tool| {
            let function = tool.get("function")?;
            Some(Definition {
                name: function.get("name")?.as_str()?.to_owned(),
                description: function
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                parameters: function.get("parameters").cloned().unwrap_or_default(),
                strict: function.get("strict").and_then(Value::as_bool) == Some(true),
            })
        })
        .collect()
}
