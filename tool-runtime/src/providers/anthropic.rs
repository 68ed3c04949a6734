//! Anthropic: the Messages API.
//!
//! A tool definition is `{"name", "description", "input_schema"}` with the
//! tool's input schema as it is (Anthropic accepts `$defs`, `$ref`,
//! `oneOf` and the rest of JSON Schema). Calls are `tool_use` content
//! blocks; results go back as `tool_result` blocks in a `user` message,
//! with `"is_error": true` only on an error (Anthropic reads a missing
//! `is_error` as false).

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::spec::result::{Content, ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// A Messages API tool: `{"name", "description", "input_schema"}`.
pub fn tool(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema(),
    })
}

/// The tool calls of a Messages API response.
///
/// Accepts the whole message (`{"content": [...]}`) or its `content`
/// array. Blocks of type `tool_use` (`{"id", "name", "input"}`, `input` an
/// object) become tool uses; other blocks (text, thinking, server tool
/// calls) are skipped.
pub fn parse_tool_uses(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    let root = At::root(Provider::Anthropic, body);
    let content = match body {
        Value::Array(_) => root,
        _ => root.field("content")?,
    };
    let mut uses = Vec::new();
    for block in content.array()? {
        if block.field("type")?.string()? != "tool_use" {
            continue;
        }
        let id = block.field("id")?.name()?;
        let name = block.field("name")?.name()?;
        let input = match block.get("input") {
            Some(input) => input.arguments_object()?,
            None => Value::Object(Map::new()),
        };
        uses.push(ToolUse::new(id, name, input));
    }
    Ok(uses)
}

/// A `tool_result` content block:
/// `{"type": "tool_result", "tool_use_id", "content": [{"type": "text", "text"}], "is_error": true}`.
///
/// Each content block becomes a text block (JSON as compact JSON text);
/// `content` is left out when the result has none, and `is_error` when
/// the call succeeded.
pub fn tool_result(result: &ToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), result.tool_use_id.clone().into());
    if !result.content.is_empty() {
        let content = result
            .content
            .iter()
            .map(|part| {
                let text = match part {
                    Content::Text(text) => text.clone(),
                    Content::Json(value) => value.to_string(),
                };
                json!({"type": "text", "text": text})
            })
            .collect();
        block.insert("content".into(), Value::Array(content));
    }
    if result.is_error() {
        block.insert("is_error".into(), true.into());
    }
    Value::Object(block)
}
