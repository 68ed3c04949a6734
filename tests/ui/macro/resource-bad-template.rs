use tool_mcp::resource;

/// One item.
#[resource("test://items/{id")]
fn item(id: String) -> String {
    id
}

fn main() {}
