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

/// The `_meta` of a list entry, as a JSON object.
fn meta_of(meta: Option<rmcp::model::MetaObject>) -> Option<serde_json::Map<String, Value>> {
    meta.map(|meta| meta.0)
}

/// One resource a server lists (`resources/list`), in plain types: its
/// URI and name as the server wrote them (the URI is what
/// [`McpClient::read_resource`](super::McpClient::read_resource) takes).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpResource {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for people.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// The media type of its contents.
    pub mime_type: Option<String>,
    /// Its size in bytes, when the server says.
    pub size: Option<u64>,
    /// The `_meta` of its list entry.
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl McpResource {
    pub(crate) fn from_rmcp(resource: rmcp::model::Resource) -> Self {
        Self {
            uri: resource.uri,
            name: resource.name,
            title: resource.title,
            description: resource.description,
            mime_type: resource.mime_type,
            size: resource.size,
            meta: meta_of(resource.meta),
        }
    }
}

/// One resource template a server lists (`resources/templates/list`), in
/// plain types: every URI it matches is read with
/// [`McpClient::read_resource`](super::McpClient::read_resource).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpResourceTemplate {
    /// Its URI template (RFC 6570), as the server wrote it.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A title for people.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// The media type of its resources' contents.
    pub mime_type: Option<String>,
    /// The `_meta` of its list entry.
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl McpResourceTemplate {
    pub(crate) fn from_rmcp(template: rmcp::model::ResourceTemplate) -> Self {
        Self {
            uri_template: template.uri_template,
            name: template.name,
            title: template.title,
            description: template.description,
            mime_type: template.mime_type,
            meta: meta_of(template.meta),
        }
    }
}

/// One prompt a server lists (`prompts/list`), in plain types.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpPrompt {
    /// The name the server gets it by.
    pub name: String,
    /// A title for people.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments, in the server's order (without completions: ask
    /// [`McpClient::complete_prompt`](super::McpClient::complete_prompt)).
    pub arguments: Vec<crate::prompts::ArgumentSpec>,
    /// The `_meta` of its list entry.
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl McpPrompt {
    pub(crate) fn from_rmcp(prompt: rmcp::model::Prompt) -> Self {
        use crate::prompts::ArgumentSpec;
        let arguments = prompt
            .arguments
            .unwrap_or_default()
            .into_iter()
            .map(|argument| {
                let mut spec = if argument.required == Some(true) {
                    ArgumentSpec::required(argument.name)
                } else {
                    ArgumentSpec::optional(argument.name)
                };
                spec.title = argument.title.map(Into::into);
                spec.description = argument.description.map(Into::into);
                spec
            })
            .collect();
        Self {
            name: prompt.name,
            title: prompt.title,
            description: prompt.description,
            arguments,
            meta: meta_of(prompt.meta),
        }
    }
}
