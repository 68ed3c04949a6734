use tool_mcp::resource;

/// One item.
#[resource("test://items/{id}", size = 1024)]
fn item(id: String) -> String {
    id
}

fn main() {}
