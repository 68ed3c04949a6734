//! MCP's shapes to the runtime's: a listed tool to an [`McpTool`], a
//! `CallToolResult` to a [`ToolOutput`].

use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;
use tool_runtime::{Content, ToolAnnotations, ToolErrorKind, ToolOutput, ToolResult, ToolStatus};

/// One tool a server lists (`tools/list`), in plain types.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpTool {
    /// The name the server calls the tool by.
    pub name: String,
    /// A human-readable title (the tool's `title`, else its annotations').
    pub title: Option<String>,
    /// What the tool does (empty when the server gives no description).
    pub description: String,
    /// The JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    /// The JSON Schema of `structuredContent`, when the tool declares one.
    pub output_schema: Option<Value>,
    /// The behaviour hints (`readOnlyHint` and the rest).
    pub annotations: ToolAnnotations,
}

impl McpTool {
    pub(crate) fn from_rmcp(tool: Tool) -> Self {
        let annotations = tool.annotations.as_ref();
        McpTool {
            title: tool
                .title
                .clone()
                .or_else(|| annotations.and_then(|a| a.title.clone())),
            annotations: ToolAnnotations {
                read_only: annotations.and_then(|a| a.read_only_hint),
                destructive: annotations.and_then(|a| a.destructive_hint),
                idempotent: annotations.and_then(|a| a.idempotent_hint),
                open_world: annotations.and_then(|a| a.open_world_hint),
            },
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input_schema: Value::Object((*tool.input_schema).clone()),
            output_schema: tool
                .output_schema
                .as_ref()
                .map(|schema| Value::Object((**schema).clone())),
            name: tool.name.into_owned(),
        }
    }
}

/// A `CallToolResult` as what a tool returns.
///
/// - A successful result with `structuredContent` is that value (JSON).
/// - Otherwise the content blocks, in order, each as the runtime's own kind:
///   text, [`Image`](tool_runtime::Image), [`Audio`](tool_runtime::Audio),
///   [`Resource`](tool_runtime::Resource) and
///   [`ResourceLink`](tool_runtime::ResourceLink); media whose data is not
///   valid base64, and anything else, as its JSON.
/// - `isError: true` is an error result with the same content (the remote's
///   text), of kind [`Failed`](ToolErrorKind::Failed).
pub(crate) fn to_output(result: CallToolResult) -> ToolOutput {
    let is_error = result.is_error == Some(true);
    if !is_error && let Some(structured) = result.structured_content {
        return ToolOutput::Value(structured);
    }
    let content: Vec<Content> = result
        .content
        .iter()
        .map(crate::content::from_mcp)
        .collect();
    let mut output = ToolResult::success("", content);
    if is_error {
        output.status = ToolStatus::Error;
        output.error_kind = Some(ToolErrorKind::Failed);
        if output.content.is_empty() {
            output
                .content
                .push(Content::Text("the tool failed and said nothing".into()));
        }
    }
    ToolOutput::Result(output)
}
