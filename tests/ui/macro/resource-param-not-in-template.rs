use tool_mcp::resource;

/// One item.
#[resource("test://items/{id}")]
fn item(id: String, version: String) -> String {
    format!("{id} {version}")
}

fn main() {}
