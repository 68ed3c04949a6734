//! OpenAI: Chat Completions and the Responses API.
//!
//! A tool definition is the tool's name, description and input schema
//! (`parameters`), with `strict` always stated: the Responses API treats a
//! missing `strict` as `true`. A strict tool's schema is converted with
//! [`strict_input_schema`]; a tool whose schema cannot be strict is
//! rendered with `"strict": false` and its ordinary schema (a registry
//! refuses to build with such a tool marked strict, so this only happens
//! for [`Provider::OpenAiStrict`]).
//!
//! The Responses API can search tools itself (`{"type": "tool_search"}`,
//! [`responses_tool_search`]): functions sent with `"defer_loading": true`
//! ([`responses_deferred_tool`]) have their parameters loaded only when the
//! model's search finds them. Chat Completions documents no such mechanism.
//!
//! Results carry no error flag in either API: an error result is sent as its
//! text, which says what went wrong. JSON content is sent as compact JSON
//! text.

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::schema::strict::strict_input_schema;
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// The parameters schema and the `strict` flag for a tool.
fn parameters(spec: &ToolSpec, strict: bool) -> (Value, bool) {
    if strict && let Ok(schema) = strict_input_schema(spec) {
        return (schema, true);
    }
    (spec.input_schema().clone(), false)
}

/// A Chat Completions tool:
/// `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
pub fn chat_tool(spec: &ToolSpec, strict: bool) -> Value {
    let (parameters, strict) = parameters(spec, strict);
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": super::description(spec),
            "parameters": parameters,
            "strict": strict,
        }
    })
}

/// A Responses API tool:
/// `{"type": "function", "name", "description", "parameters", "strict"}`.
pub fn responses_tool(spec: &ToolSpec, strict: bool) -> Value {
    let (parameters, strict) = parameters(spec, strict);
    json!({
        "type": "function",
        "name": spec.name,
        "description": super::description(spec),
        "parameters": parameters,
        "strict": strict,
    })
}

/// The Responses API's hosted tool search: `{"type": "tool_search"}`.
pub fn responses_tool_search() -> Value {
    json!({"type": "tool_search"})
}

/// A Responses API function the model loads only when its tool search
/// finds it: [`responses_tool`] with `"defer_loading": true`.
pub fn responses_deferred_tool(spec: &ToolSpec, strict: bool) -> Value {
    let mut tool = responses_tool(spec, strict);
    tool["defer_loading"] = Value::Bool(true);
    tool
}

/// The tool calls of a Chat Completions response.
///
/// Accepts the whole response (the calls of its first choice: further
/// choices, asked for with `n`, are alternatives, not more calls), one
/// message (`{"role": "assistant", "tool_calls": [...]}`), or the
/// `tool_calls` array. Each call is `{"id", "type": "function", "function":
/// {"name", "arguments"}}`, where `arguments` is a *string* of JSON text
/// (an empty string counts as `{}`). Calls of other types (custom tools)
/// are skipped.
pub fn parse_chat_calls(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    let root = At::root(Provider::OpenAiChat, body);
    let calls = match body {
        Value::Array(_) => root,
        Value::Object(object) if object.contains_key("choices") => {
            let choices = root.field("choices")?.array()?;
            let Some(first) = choices.into_iter().next() else {
                return Ok(Vec::new());
            };
            match first.field("message")?.get("tool_calls") {
                Some(calls) => calls,
                None => return Ok(Vec::new()),
            }
        }
        Value::Object(_) => match root.get("tool_calls") {
            Some(calls) => calls,
            None => return Ok(Vec::new()),
        },
        _ => {
            return Err(root.error(format!(
                "expected a chat completion, a message or a tool_calls array, got {}",
                super::describe_value(body)
            )));
        }
    };
    let mut uses = Vec::new();
    for call in calls.array()? {
        call.object()?;
        if let Some(kind) = call.get("type")
            && kind.string()? != "function"
        {
            continue;
        }
        let id = call.field("id")?.name()?;
        let function = call.field("function")?;
        let name = function.field("name")?.name()?;
        let input = match function.get("arguments") {
            Some(arguments) => arguments.arguments_text()?,
            None => Value::Object(Map::new()),
        };
        uses.push(ToolUse::new(id, name, input));
    }
    Ok(uses)
}

/// The tool calls of a Responses API response.
///
/// Accepts the whole response (`{"output": [...]}`) or its `output` array.
/// Items of type `function_call` (`{"call_id", "name", "arguments"}`,
/// `arguments` a string of JSON text) become tool uses whose id is the
/// `call_id`; other items (messages, reasoning, built-in tool calls) are
/// skipped.
pub fn parse_responses_calls(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    let root = At::root(Provider::OpenAiResponses, body);
    let output = match body {
        Value::Array(_) => root,
        _ => root.field("output")?,
    };
    let mut uses = Vec::new();
    for item in output.array()? {
        if item.field("type")?.string()? != "function_call" {
            continue;
        }
        let id = item.field("call_id")?.name()?;
        let name = item.field("name")?.name()?;
        let input = item.field("arguments")?.arguments_text()?;
        uses.push(ToolUse::new(id, name, input));
    }
    Ok(uses)
}

/// A Chat Completions tool message:
/// `{"role": "tool", "tool_call_id", "content": "text"}`.
///
/// A tool message carries text only, so images, audio and resources are
/// sent as their [stand-ins](Content::stand_in).
pub fn chat_tool_message(result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": result.tool_use_id,
        "content": result.text_content(),
    })
}

/// A Responses API input item:
/// `{"type": "function_call_output", "call_id", "output": "text"}`.
///
/// When the result holds an image or an embedded PDF, `output` is instead a
/// list of `input_text`, `input_image` (a `data:` URL) and `input_file`
/// items, the content kinds a function call output accepts; audio and
/// other resources are `input_text` items holding their
/// [stand-ins](Content::stand_in).
pub fn responses_output(result: &ToolResult) -> Value {
    let rich = result
        .content
        .iter()
        .any(|part| responses_item(part).is_some());
    let output = if rich {
        Value::Array(
            result
                .content
                .iter()
                .map(|part| {
                    responses_item(part)
                        .unwrap_or_else(|| json!({"type": "input_text", "text": part.stand_in()}))
                })
                .collect(),
        )
    } else {
        Value::String(result.text_content())
    };
    json!({
        "type": "function_call_output",
        "call_id": result.tool_use_id,
        "output": output,
    })
}

/// An image or a PDF as a Responses API input item; `None` for a block
/// that goes as text.
fn responses_item(part: &Content) -> Option<Value> {
    match part {
        Content::Image(image) if super::image_format(image.mime_type()).is_some() => Some(json!({
            "type": "input_image",
            "image_url": super::data_url(image.mime_type(), image.base64()),
        })),
        Content::Resource(resource) => match (&resource.contents, resource.mime_type.as_deref()) {
            (ResourceContents::Blob(data), Some(mime @ "application/pdf")) => Some(json!({
                "type": "input_file",
                "filename": resource.uri.rsplit('/').next().unwrap_or("document.pdf"),
                "file_data": super::data_url(mime, data),
            })),
            _ => None,
        },
        _ => None,
    }
}
