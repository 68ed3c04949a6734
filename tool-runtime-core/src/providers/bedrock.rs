//! Amazon Bedrock Converse, and the Strands `TOOL_SPEC` it shares.
//!
//! A tool definition is `{"toolSpec": {"name", "description", "inputSchema":
//! {"json": schema}}}`; the inner object is exactly a Strands module's
//! `TOOL_SPEC`. Calls are `toolUse` content blocks; results go back as
//! `toolResult` blocks, the shape [`ToolResult`] serialises to.

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::spec::content::{Content, ResourceContents};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// A Converse tool: `{"toolSpec": {"name", "description", "inputSchema": {"json"}}}`.
pub fn tool_spec(spec: &ToolSpec) -> Value {
    json!({
        "toolSpec": {
            "name": spec.name,
            "description": super::description(spec),
            "inputSchema": {"json": spec.input_schema()},
        }
    })
}

/// The tool calls of a Converse response.
///
/// Accepts the whole response (`{"output": {"message": {...}}}`), the
/// message (`{"role", "content": [...]}`) or its `content` array. Blocks
/// with a `toolUse` member (`{"toolUseId", "name", "input"}`) become tool
/// uses; other blocks are skipped.
pub fn parse_tool_uses(body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    let root = At::root(Provider::Bedrock, body);
    let content = match body {
        Value::Array(_) => root,
        Value::Object(object) if object.contains_key("output") => {
            root.field("output")?.field("message")?.field("content")?
        }
        _ => root.field("content")?,
    };
    let mut uses = Vec::new();
    for block in content.array()? {
        block.object()?;
        let Some(tool_use) = block.get("toolUse") else {
            continue;
        };
        let id = tool_use.field("toolUseId")?.name()?;
        let name = tool_use.field("name")?.name()?;
        let input = match tool_use.get("input") {
            Some(input) => input.arguments_object()?,
            None => Value::Object(Map::new()),
        };
        uses.push(ToolUse::new(id, name, input));
    }
    Ok(uses)
}

/// A `toolResult` content block:
/// `{"toolResult": {"toolUseId", "status", "content": [{"text"} | {"json"}]}}`.
///
/// Built field by field rather than from [`ToolResult`]'s own serialisation,
/// so that anything else a result may carry stays out of the request.
pub fn tool_result(result: &ToolResult) -> Value {
    let content: Vec<Value> = result.content.iter().map(content_block).collect();
    json!({
        "toolResult": {
            "toolUseId": result.tool_use_id,
            "status": if result.is_error() { "error" } else { "success" },
            "content": content,
        }
    })
}

/// One content block of a `toolResult`: `{"text"}`, `{"json"}`, an
/// `{"image": {"format", "source": {"bytes"}}}` for PNG, JPEG, GIF and WebP,
/// a `{"document": {"format": "pdf", "name", "source": {"bytes"}}}` for an
/// embedded PDF, and the [stand-in](Content::stand_in) text of anything
/// else (Converse has no audio block).
fn content_block(part: &Content) -> Value {
    match part {
        Content::Text(text) => json!({"text": text}),
        Content::Json(value) => json!({"json": value}),
        Content::Image(image) => match super::image_format(image.mime_type()) {
            Some(format) => {
                json!({"image": {"format": format, "source": {"bytes": image.base64()}}})
            }
            None => json!({"text": part.stand_in()}),
        },
        Content::Resource(resource) => match (&resource.contents, resource.mime_type.as_deref()) {
            (ResourceContents::Blob(data), Some("application/pdf")) => json!({
                "document": {
                    "format": "pdf",
                    "name": document_name(&resource.uri),
                    "source": {"bytes": data},
                }
            }),
            _ => json!({"text": part.stand_in()}),
        },
        other => json!({"text": other.stand_in()}),
    }
}

/// A document name Converse accepts (letters, digits, single spaces,
/// hyphens, parentheses and square brackets), from the last segment of a
/// resource's URI without its extension.
fn document_name(uri: &str) -> String {
    let last = uri
        .rsplit('/')
        .find(|segment| !segment.is_empty())
        .unwrap_or("");
    let stem = last.rsplit_once('.').map_or(last, |(stem, _)| stem);
    let mut name = String::new();
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
            c
        } else {
            ' '
        };
        if !(c == ' ' && (name.is_empty() || name.ends_with(' '))) {
            name.push(c);
        }
    }
    let name = name.trim_end();
    if name.is_empty() {
        "document".to_owned()
    } else {
        name.to_owned()
    }
}
