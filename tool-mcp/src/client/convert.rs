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
/// - Otherwise the content blocks, in order: text as text; images and audio
///   as a text stand-in naming the type and size; a resource link as a
///   text line with its URI; an embedded text resource as its URI and text;
///   anything else as its JSON.
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
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(block_to_content)
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

/// One content block (as JSON) as one piece of content.
fn block_to_content(block: Value) -> Content {
    let str_of =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str) {
        Some("text") => match str_of(&block, "text") {
            Some(text) => Content::Text(text),
            None => Content::Json(block),
        },
        Some(kind @ ("image" | "audio")) => {
            let mime = str_of(&block, "mimeType").unwrap_or_else(|| "unknown type".into());
            let bytes = base64_len(block.get("data"));
            Content::Text(format!("[{kind} ({mime}, {bytes} bytes), not shown]"))
        }
        Some("resource_link") => {
            let uri = str_of(&block, "uri").unwrap_or_default();
            let mut line = format!("[resource link: {uri}");
            if let Some(name) = str_of(&block, "name") {
                line.push_str(&format!(" ({name})"));
            }
            if let Some(description) = str_of(&block, "description") {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            Content::Text(line)
        }
        Some("resource") => {
            let Some(resource) = block.get("resource") else {
                return Content::Json(block);
            };
            let uri = str_of(resource, "uri").unwrap_or_default();
            match str_of(resource, "text") {
                Some(text) => Content::Text(format!("[resource {uri}]\n{text}")),
                None => {
                    let mime =
                        str_of(resource, "mimeType").unwrap_or_else(|| "unknown type".into());
                    let bytes = base64_len(resource.get("blob"));
                    Content::Text(format!(
                        "[resource {uri} ({mime}, {bytes} bytes), not shown]"
                    ))
                }
            }
        }
        _ => Content::Json(block),
    }
}

/// The decoded size of base64 text.
fn base64_len(data: Option<&Value>) -> usize {
    let text = data
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim_end_matches('=');
    text.len() * 3 / 4
}
