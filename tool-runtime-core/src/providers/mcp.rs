//! The Model Context Protocol, revision 2025-06-18: `tools/list` entries,
//! `tools/call` requests and `CallToolResult`s.
//!
//! A tool is `{"name", "title"?, "description", "inputSchema",
//! "outputSchema"?, "annotations"?}`:
//!
//! - `title` when the tool has one (`#[tool(title = "...")]`); it is also
//!   repeated as `annotations.title`, where clients of the 2025-03-26
//!   revision look for it.
//! - `annotations` holds the hints the tool states, under MCP's names
//!   (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
//!   `openWorldHint`); a hint not stated is left out, and so is
//!   `annotations` when nothing is stated.
//! - `outputSchema` when the tool's return type has a schema. MCP requires
//!   it to describe an object, and `structuredContent` to be one. A tool
//!   returning an object type uses its schema as it is; any other return
//!   type (a number, a list, an enum, an `Option`) is wrapped:
//!   `outputSchema` becomes `{"type": "object", "properties": {"result":
//!   schema}, "required": ["result"]}` and `structuredContent`
//!   `{"result": value}`.
//!
//! A result's text and JSON become text blocks (JSON as compact JSON text,
//! which is also what MCP asks servers to send next to `structuredContent`
//! for older clients); images, audio, embedded resources and resource links
//! become MCP's `image`, `audio`, `resource` and `resource_link` blocks.
//! `isError` is always stated.
//!
//! A parameter marked `#[tool(header)]` (or a property of a run-time
//! tool's schema with `x-mcp-header`) keeps its `x-mcp-header` keyword in
//! `inputSchema`: a client on the streamable HTTP transport of revision
//! 2026-07-28 then also sends its value as an HTTP header, which
//! `tool_mcp::headers` writes and checks.

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// The protocol revision these shapes follow.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The property a non-object return value is wrapped in.
pub const WRAPPED_RESULT_KEY: &str = "result";

/// The `_meta` key of a `tools/list` entry that holds the tool's version
/// (MCP asks that such keys carry a reverse-DNS prefix of their owner's).
pub const META_VERSION: &str = "io.github.tool-runtime/version";

/// The `_meta` key of a `tools/list` entry that holds why the tool is
/// deprecated and what to use instead.
pub const META_DEPRECATED: &str = "io.github.tool-runtime/deprecated";

/// A `tools/list` entry. A tool with a version or a deprecation note has
/// them in its `_meta`, under [`META_VERSION`] and [`META_DEPRECATED`].
pub fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), spec.name.as_ref().into());
    if let Some(title) = &spec.title {
        tool.insert("title".into(), title.as_ref().into());
    }
    tool.insert("description".into(), super::description(spec).into());
    tool.insert("inputSchema".into(), spec.input_schema().clone());
    if let Some(schema) = output_schema(spec) {
        tool.insert("outputSchema".into(), schema);
    }
    let mut annotations = Map::new();
    if let Some(title) = &spec.title {
        annotations.insert("title".into(), title.as_ref().into());
    }
    let hints = [
        ("readOnlyHint", spec.annotations.read_only),
        ("destructiveHint", spec.annotations.destructive),
        ("idempotentHint", spec.annotations.idempotent),
        ("openWorldHint", spec.annotations.open_world),
    ];
    for (name, hint) in hints {
        if let Some(hint) = hint {
            annotations.insert(name.into(), hint.into());
        }
    }
    if !annotations.is_empty() {
        tool.insert("annotations".into(), Value::Object(annotations));
    }
    let mut meta = Map::new();
    if let Some(version) = &spec.version {
        meta.insert(META_VERSION.into(), version.as_ref().into());
    }
    if let Some(note) = &spec.deprecated {
        meta.insert(META_DEPRECATED.into(), note.as_ref().into());
    }
    if !meta.is_empty() {
        tool.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(tool)
}

/// The tool's `outputSchema`: its output schema when that describes an
/// object, else the output schema wrapped in an object under `"result"`.
/// `None` when the tool's return type has no schema (text).
pub fn output_schema(spec: &ToolSpec) -> Option<Value> {
    let schema = spec.output_schema()?;
    if describes_object(schema) {
        return Some(schema.clone());
    }
    let mut inner = schema.clone();
    let definitions = inner
        .as_object_mut()
        .and_then(|object| object.remove("$defs"));
    let mut wrapped = json!({
        "type": "object",
        "properties": {WRAPPED_RESULT_KEY: inner},
        "required": [WRAPPED_RESULT_KEY],
    });
    if let (Some(definitions), Value::Object(object)) = (definitions, &mut wrapped) {
        // References inside stay `#/$defs/...`: the definitions move to the
        // new root with them.
        object.insert("$defs".into(), definitions);
    }
    Some(wrapped)
}

/// Whether a schema's root is an object schema (`"type": "object"`, not
/// nullable, not a union).
fn describes_object(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("object"))
}

/// A `tools/call` request read from the client.
#[derive(Debug, Clone, PartialEq)]
pub struct McpCall {
    /// The JSON-RPC request id, a string or a number, for the response.
    pub request_id: Value,
    /// The call; its id is the request id as text (`7` becomes `"7"`).
    pub tool_use: ToolUse,
}

/// One `tools/call` request:
/// `{"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name", "arguments"?}}`.
///
/// A missing `arguments` is `{}`. The id must be a string or a number (a
/// request without one is a notification, which cannot be answered).
pub fn parse_request(request: &Value) -> Result<McpCall, ProviderError> {
    parse_request_at(At::root(Provider::Mcp, request))
}

fn parse_request_at(request: At<'_>) -> Result<McpCall, ProviderError> {
    if let Some(version) = request.get("jsonrpc")
        && version.string()? != "2.0"
    {
        return Err(version.error(format!(
            "expected \"2.0\", got {}",
            super::describe_value(version.value)
        )));
    }
    let method = request.field("method")?;
    if method.string()? != "tools/call" {
        return Err(method.error(format!(
            "expected \"tools/call\", got {}",
            super::describe_value(method.value)
        )));
    }
    let id = request.field("id")?;
    let id_text = match id.value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        other => {
            return Err(id.error(format!(
                "expected a string or a number, got {}",
                super::describe_value(other)
            )));
        }
    };
    let tool_use = parse_params_at(&request.field("params")?, id_text)?;
    Ok(McpCall {
        request_id: id.value.clone(),
        tool_use,
    })
}

/// The `params` of a `tools/call` request (`{"name", "arguments"?}`), for
/// a request whose envelope was read elsewhere; `id` becomes the call's id.
pub fn parse_params(params: &Value, id: impl Into<String>) -> Result<ToolUse, ProviderError> {
    parse_params_at(&At::root(Provider::Mcp, params), id.into())
}

fn parse_params_at(params: &At<'_>, id: String) -> Result<ToolUse, ProviderError> {
    let name = params.field("name")?.name()?;
    let input = match params.get("arguments") {
        Some(arguments) => arguments.arguments_object()?,
        None => Value::Object(Map::new()),
    };
    Ok(ToolUse::new(id, name, input))
}

/// One `tools/call` request, or an array of them (messages received one
/// after another; the 2025-06-18 revision has no JSON-RPC batches).
pub fn parse_requests(body: &Value) -> Result<Vec<McpCall>, ProviderError> {
    let root = At::root(Provider::Mcp, body);
    match body {
        Value::Array(_) => root.array()?.into_iter().map(parse_request_at).collect(),
        _ => Ok(vec![parse_request_at(root)?]),
    }
}

/// The calls of one `tools/call` request or an array of them (see
/// [`parse_requests`]); each id is its request id as text.
pub fn parse_tool_calls(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    Ok(parse_requests(body)?
        .into_iter()
        .map(|call| call.tool_use)
        .collect())
}

/// A `CallToolResult`:
/// `{"content": [{"type": "text", "text"}], "structuredContent"?, "isError"}`.
///
/// `structuredContent` is added when the call succeeded, `spec` has an
/// output schema, and the result holds one value (its one block, or the
/// value kept beside a formatter's text: see [`structured_content`]): the
/// value itself when it is an object and the output schema describes one,
/// else `{"result": value}` (see [`output_schema`]).
pub fn call_tool_result(result: &ToolResult, spec: Option<&ToolSpec>) -> Value {
    let content: Vec<Value> = result.content.iter().map(content_block).collect();
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if let Some(structured) = structured_content(result, spec) {
        out.insert("structuredContent".into(), structured);
    }
    out.insert("isError".into(), result.is_error().into());
    Value::Object(out)
}

/// One block of a `CallToolResult`'s `content`, in MCP's shape: `text`
/// (JSON as compact JSON text), `image`, `audio`, `resource` or
/// `resource_link`.
pub fn content_block(part: &Content) -> Value {
    match part {
        Content::Text(text) => json!({"type": "text", "text": text}),
        Content::Json(value) => json!({"type": "text", "text": value.to_string()}),
        Content::Image(image) => {
            json!({"type": "image", "data": image.base64(), "mimeType": image.mime_type()})
        }
        Content::Audio(audio) => {
            json!({"type": "audio", "data": audio.base64(), "mimeType": audio.mime_type()})
        }
        Content::Resource(resource) => {
            let mut contents = Map::new();
            contents.insert("uri".into(), resource.uri.clone().into());
            if let Some(mime) = &resource.mime_type {
                contents.insert("mimeType".into(), mime.clone().into());
            }
            match &resource.contents {
                ResourceContents::Text(text) => contents.insert("text".into(), text.clone().into()),
                ResourceContents::Blob(data) => contents.insert("blob".into(), data.clone().into()),
            };
            json!({"type": "resource", "resource": contents})
        }
        Content::ResourceLink(link) => {
            let mut block = Map::new();
            block.insert("type".into(), "resource_link".into());
            if let Ok(Value::Object(fields)) = serde_json::to_value(link) {
                block.extend(fields);
            }
            Value::Object(block)
        }
    }
}

/// A result's `structuredContent` (see [`call_tool_result`]): the result's
/// [value](ToolResult::value), which is its structured content when a
/// formatter wrote its text (the text block is the formatter's, the value
/// unchanged), or the object a text block holds as JSON text. `None` when
/// the call failed, `spec` is unknown or has no output schema, or the
/// result does not hold exactly one value.
pub fn structured_content(result: &ToolResult, spec: Option<&ToolSpec>) -> Option<Value> {
    let schema = spec?.output_schema()?;
    let value = result.value()?.into_owned();
    if describes_object(schema) {
        match value {
            Value::Object(_) => Some(value),
            // The value's JSON text, as MCP asks a server to send beside
            // structured content (a hand-written tool may send only that).
            Value::String(text) => serde_json::from_str(&text).ok().filter(Value::is_object),
            _ => None,
        }
    } else {
        Some(json!({WRAPPED_RESULT_KEY: value}))
    }
}

/// The JSON-RPC response to a request: `{"jsonrpc": "2.0", "id", "result"}`.
pub fn response(request_id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request_id, "result": result})
}
