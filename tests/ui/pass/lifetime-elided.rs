use tool_runtime::{ToolContext, tool};

/// Echoes the tool use id.
#[tool]
fn call_id(ctx: &ToolContext) -> String {
    ctx.tool_use_id().unwrap_or("none").to_owned()
}

fn main() {
    assert_eq!(call_id(&ToolContext::new()), "none");
    assert!(CallIdTool::SPEC.params.is_empty());
}
