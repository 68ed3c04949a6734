use tool_runtime::{ToolContext, tool};

/// Reads the tool use id twice.
#[tool]
fn ids(first: &ToolContext, second: &ToolContext) -> String {
    format!("{:?} {:?}", first.tool_use_id(), second.tool_use_id())
}

fn main() {}
