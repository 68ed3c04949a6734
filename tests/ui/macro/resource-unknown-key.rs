use tool_mcp::resource;

/// A text.
#[resource("test://text", mim = "text/plain")]
fn text() -> &'static str {
    "text"
}

fn main() {}
