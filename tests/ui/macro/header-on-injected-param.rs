use tool_runtime::{ToolContext, tool};

/// Returns the tool use id.
#[tool]
fn whoami(#[tool(header)] ctx: &ToolContext) -> String {
    ctx.tool_use_id().unwrap_or_default().to_owned()
}

fn main() {}
