use tool_runtime::{ToolContext, tool};

/// Echoes the tool use id.
#[tool]
fn call_id(#[tool(length(max = 10))] ctx: &ToolContext) -> String {
    ctx.tool_use_id().unwrap_or("none").to_owned()
}

fn main() {}
