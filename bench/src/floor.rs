//! The benchmarked tool written by hand with serde: the floor.
//!
//! No schema, no registry, no context, and serde's first error as the only
//! message. Whatever a tool library adds on top of this is its overhead.

use serde::Deserialize;
use serde_json::{Value, json};
use tool_runtime::ToolResult;

use crate::{Mode, search_body};

/// The arguments, as a hand-written serde struct.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
    /// Most results to return.
    pub limit: u32,
    /// How words are matched.
    pub mode: Mode,
}

/// Decodes arguments from JSON text, runs the tool and serialises its
/// output: the floor for paths that start from text.
pub fn call_str(args: &str) -> Result<Value, serde_json::Error> {
    let args: SearchArgs = serde_json::from_str(args)?;
    let output = search_body(&args.query, args.limit, args.mode);
    serde_json::to_value(output)
}

/// The same from an already parsed JSON value: the floor for paths that
/// start from a `serde_json::Value`.
pub fn call_value(args: &Value) -> Result<Value, serde_json::Error> {
    let args = SearchArgs::deserialize(args)?;
    let output = search_body(&args.query, args.limit, args.mode);
    serde_json::to_value(output)
}

/// A tool use as a hand-written agent loop would read it.
#[derive(Debug, Deserialize)]
pub struct ToolUse {
    /// The id the result must carry back.
    #[serde(rename = "toolUseId")]
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub input: Value,
}

/// A whole hand-written dispatch: parse the tool use, match the name, decode,
/// run, and build the `toolResult` JSON, errors included as error results.
/// The floor for [`Registry::invoke`](tool_runtime::Registry::invoke) from
/// text.
pub fn invoke_str(tool_use: &str) -> Value {
    let tool_use: ToolUse = match serde_json::from_str(tool_use) {
        Ok(tool_use) => tool_use,
        Err(error) => return error_result("", &error.to_string()),
    };
    let output = match tool_use.name.as_str() {
        "search" => match SearchArgs::deserialize(&tool_use.input) {
            Ok(args) => search_body(&args.query, args.limit, args.mode),
            Err(error) => return error_result(&tool_use.id, &error.to_string()),
        },
        other => return error_result(&tool_use.id, &format!("unknown tool {other}")),
    };
    json!({"toolUseId": tool_use.id, "status": "success", "content": [{"text": output}]})
}

/// The same dispatch from an already parsed, owned tool use, answering with
/// the runtime's own `ToolResult` type: the floor for
/// [`Registry::invoke`](tool_runtime::Registry::invoke) of a parsed
/// [`ToolUse`](tool_runtime::ToolUse). Like `invoke`, it consumes (and so
/// drops) the input.
pub fn invoke_owned(tool_use: tool_runtime::ToolUse) -> ToolResult {
    let tool_runtime::ToolUse { id, name, input } = tool_use;
    match name.as_str() {
        "search" => match SearchArgs::deserialize(&input) {
            Ok(args) => ToolResult::text(id, search_body(&args.query, args.limit, args.mode)),
            Err(error) => ToolResult::error(id, error.to_string()),
        },
        other => ToolResult::error(id, format!("unknown tool {other}")),
    }
}

fn error_result(id: &str, message: &str) -> Value {
    json!({"toolUseId": id, "status": "error", "content": [{"text": message}]})
}

/// The arguments of the async `lookup` tool, by hand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupArgs {
    /// The word to look up.
    pub word: String,
    /// How long the remote side takes, in microseconds.
    #[serde(default)]
    pub delay_us: u64,
}

/// The async `lookup` tool by hand: decode, await the body, serialise.
pub async fn lookup_value(input: &Value) -> Result<Value, serde_json::Error> {
    let args = LookupArgs::deserialize(input)?;
    let output = crate::sample::lookup_body(args.word, args.delay_us).await;
    serde_json::to_value(output)
}
