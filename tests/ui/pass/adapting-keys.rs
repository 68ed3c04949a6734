// Every key that adapts a tool to its caller, on a free function and on a
// toolset method; warnings are errors, so the expansion's call of a
// deprecated function must not warn.
#![deny(warnings)]

use serde_json::Value;
use tool_runtime::{format::ToolFormat, tool, toolset};

struct Terse;

impl ToolFormat for Terse {}

const TERSE: Terse = Terse;

fn trim(text: String) -> String {
    text.trim().to_owned()
}

fn positive(n: i64) -> Result<i64, String> {
    if n > 0 { Ok(n) } else { Err(format!("must be positive, got {n}")) }
}

fn legacy(args: Value) -> Value {
    args
}

/// Converts a length.
#[deprecated(note = "use convert_length_v3")]
#[tool(
    version = "2.0.0",
    requires(env = ["A", "B"], program = "git", feature = "search"),
    sequential,
    scopes("files:read", "files:write"),
    result_limit = "64KB",
    format = TERSE,
    transform = legacy
)]
fn convert_length(
    #[tool(transform = trim)] unit: String,
    #[tool(transform = positive, range(max = 10))] count: Option<i64>,
) -> String {
    format!("{unit} {count:?}")
}

struct Shelf;

#[toolset]
impl Shelf {
    /// Lists books.
    #[deprecated]
    #[tool(version = "1.0.0-rc.1", deprecated = "use list_v2", sequential, scopes("books:read"), result_limit = "100 tokens", format = Terse)]
    fn list(&self, #[tool(transform = trim)] genre: String) -> String {
        genre
    }
}

fn main() {
    let _ = ConvertLengthTool::SPEC;
    let _ = ShelfListTool::SPEC;
}
