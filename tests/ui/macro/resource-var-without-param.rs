use tool_mcp::resource;

/// One item.
#[resource("test://items/{id}")]
fn item() -> String {
    String::new()
}

fn main() {}
