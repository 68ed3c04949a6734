//! Anthropic: the Messages API.
//!
//! A tool definition is `{"name", "description", "input_schema"}` with the
//! tool's input schema as it is (Anthropic accepts `$defs`, `$ref`,
//! `oneOf` and the rest of JSON Schema). Calls are `tool_use` content
//! blocks; results go back as `tool_result` blocks in a `user` message,
//! with `"is_error": true` only on an error (Anthropic reads a missing
//! `is_error` as false).
//!
//! For large tool sets Anthropic has a tool search tool of its own
//! ([`tool_search_tool`]): tools sent with `"defer_loading": true`
//! ([`deferred_tool`]) stay out of the model's context until it finds them.
//! It is in beta: requests need the header `anthropic-beta:`
//! [`TOOL_SEARCH_BETA`].

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// A Messages API tool: `{"name", "description", "input_schema"}`.
pub fn tool(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": super::description(spec),
        "input_schema": spec.input_schema(),
    })
}

/// The `anthropic-beta` header value the tool search tool needs on the
/// Claude API (and Microsoft Foundry).
pub const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";

/// Which of Anthropic's server-side tool search tools to offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSearch {
    /// `tool_search_tool_bm25_20251119`: the model searches in natural
    /// language.
    #[default]
    Bm25,
    /// `tool_search_tool_regex_20251119`: the model searches with Python
    /// regular expressions.
    Regex,
}

/// The tool search tool's definition:
/// `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}`
/// (or the regex variant's).
pub fn tool_search_tool(variant: ToolSearch) -> Value {
    let (kind, name) = match variant {
        ToolSearch::Bm25 => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
        ToolSearch::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
    };
    json!({"type": kind, "name": name})
}

/// A Messages API tool whose definition Claude loads only when its tool
/// search finds it: [`tool`] with `"defer_loading": true`.
pub fn deferred_tool(spec: &ToolSpec) -> Value {
    let mut tool = tool(spec);
    tool["defer_loading"] = Value::Bool(true);
    tool
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
/// Text and JSON become text blocks (JSON as compact JSON text); a PNG,
/// JPEG, GIF or WebP image an `image` block with a base64 source, and an
/// embedded PDF a `document` block, the kinds Anthropic accepts in a tool
/// result. Anything else becomes a text block holding its
/// [stand-in](Content::stand_in). `content` is left out when the result has
/// none, and `is_error` when the call succeeded.
pub fn tool_result(result: &ToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), result.tool_use_id.clone().into());
    if !result.content.is_empty() {
        let content = result.content.iter().map(content_block).collect();
        block.insert("content".into(), Value::Array(content));
    }
    if result.is_error() {
        block.insert("is_error".into(), true.into());
    }
    Value::Object(block)
}

/// One content block of a `tool_result`.
fn content_block(part: &Content) -> Value {
    let base64_source = |media_type: &str, data: &str| json!({"type": "base64", "media_type": media_type, "data": data});
    match part {
        Content::Text(text) => json!({"type": "text", "text": text}),
        Content::Image(image) if super::image_format(image.mime_type()).is_some() => json!({
            "type": "image",
            "source": base64_source(image.mime_type(), image.base64()),
        }),
        Content::Resource(resource) if resource.mime_type.as_deref() == Some("application/pdf") => {
            match &resource.contents {
                ResourceContents::Blob(data) => json!({
                    "type": "document",
                    "source": base64_source("application/pdf", data),
                }),
                ResourceContents::Text(_) => json!({"type": "text", "text": part.stand_in()}),
            }
        }
        other => json!({"type": "text", "text": other.stand_in()}),
    }
}
