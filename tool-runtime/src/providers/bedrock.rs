//! Amazon Bedrock Converse, and the Strands `TOOL_SPEC` it shares.
//!
//! A tool definition is `{"toolSpec": {"name", "description", "inputSchema":
//! {"json": schema}}}`; the inner object is exactly a Strands module's
//! `TOOL_SPEC`. Calls are `toolUse` content blocks; results go back as
//! `toolResult` blocks, the shape [`ToolResult`] serialises to.

use serde_json::{Map, Value, json};

use super::{At, Provider, ProviderError};
use crate::spec::result::{Content, ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// A Converse tool: `{"toolSpec": {"name", "description", "inputSchema": {"json"}}}`.
pub fn tool_spec(spec: &ToolSpec) -> Value {
    json!({
        "toolSpec": {
            "name": spec.name,
            "description": spec.description,
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
    let content: Vec<Value> = result
        .content
        .iter()
        .map(|part| match part {
            Content::Text(text) => json!({"text": text}),
            Content::Json(value) => json!({"json": value}),
        })
        .collect();
    json!({
        "toolResult": {
            "toolUseId": result.tool_use_id,
            "status": if result.is_error() { "error" } else { "success" },
            "content": content,
        }
    })
}
