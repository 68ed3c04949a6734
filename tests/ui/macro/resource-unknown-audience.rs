use tool_mcp::resource;

/// The notes.
#[resource("test://notes", audience = ["user", "model"])]
fn notes() -> &'static str {
    "notes"
}

fn main() {}
