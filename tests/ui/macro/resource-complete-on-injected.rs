use tool_mcp::resource;
use tool_runtime::ToolContext;

fn ids(_: &str) -> Vec<String> {
    Vec::new()
}

/// One item.
#[resource("test://items/{id}")]
fn item(id: String, #[resource(complete = ids)] ctx: &ToolContext) -> String {
    let _ = ctx;
    id
}

fn main() {}
