//! MCP's shapes to the runtime's: a listed tool to an [`McpTool`], a
//! `CallToolResult` to a [`ToolOutput`].

use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;
use tool_runtime::{
    Content, ToolOutput, ToolResult, spec::ToolAnnotations, spec::ToolErrorKind, spec::ToolStatus,
};

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
        let Tool {
            name,
            title,
            description,
            input_schema,
            output_schema,
            annotations,
            ..
        } = tool;
        let annotations = annotations.as_ref();
        // The list was just read: the schemas are not shared, and move.
        let object = |schema: std::sync::Arc<serde_json::Map<String, Value>>| {
            Value::Object(std::sync::Arc::unwrap_or_clone(schema))
        };
        McpTool {
            title: title.or_else(|| annotations.and_then(|a| a.title.clone())),
            annotations: ToolAnnotations {
                read_only: annotations.and_then(|a| a.read_only_hint),
                destructive: annotations.and_then(|a| a.destructive_hint),
                idempotent: annotations.and_then(|a| a.idempotent_hint),
                open_world: annotations.and_then(|a| a.open_world_hint),
            },
            description: description
                .map(|text| text.into_owned())
                .unwrap_or_default(),
            input_schema: object(input_schema),
            output_schema: output_schema.map(object),
            name: name.into_owned(),
        }
    }
}

/// The schema of a scalar (or any non-object) result, when `schema` is the
/// wrapper an MCP server puts around one: `{"type": "object",
/// "properties": {"result": schema}, "required": ["result"]}` (its
/// `$defs` moved back inside), as tool-mcp's own server writes it.
pub(crate) fn wrapped_result_schema(schema: &Value) -> Option<Value> {
    let object = schema.as_object()?;
    let only_wrapper_keys = object
        .keys()
        .all(|key| matches!(key.as_str(), "type" | "properties" | "required" | "$defs"));
    if !only_wrapper_keys
        || object.get("type").and_then(Value::as_str) != Some("object")
        || object.get("required")? != &serde_json::json!([WRAPPED])
    {
        return None;
    }
    let properties = object.get("properties")?.as_object()?;
    let inner = properties.get(WRAPPED)?;
    if properties.len() != 1 || inner.get("type").and_then(Value::as_str) == Some("object") {
        return None;
    }
    let mut inner = inner.clone();
    if let (Some(definitions), Value::Object(inner)) = (object.get("$defs"), &mut inner) {
        inner.insert("$defs".into(), definitions.clone());
    }
    Some(inner)
}

/// A result of a tool whose output schema is the wrapper of a scalar:
/// `{"result": x}` becomes `x`, which the model reads as `x`'s text.
pub(crate) fn unwrap_result(output: ToolOutput) -> ToolOutput {
    match output {
        ToolOutput::Value(Value::Object(mut object))
            if object.len() == 1 && object.contains_key(WRAPPED) =>
        {
            ToolOutput::Value(object.remove(WRAPPED).unwrap_or_default())
        }
        other => other,
    }
}

/// The property a server wraps a non-object result in.
const WRAPPED: &str = tool_runtime::providers::mcp::WRAPPED_RESULT_KEY;

/// A `CallToolResult` as what a tool returns.
///
/// - A successful result with `structuredContent` is that value (JSON).
/// - Otherwise the content blocks, in order, each as the runtime's own kind:
///   text, [`Image`](tool_runtime::content::Image), [`Audio`](tool_runtime::content::Audio),
///   [`Resource`](tool_runtime::content::Resource) and
///   [`ResourceLink`](tool_runtime::content::ResourceLink); media whose data is not
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
