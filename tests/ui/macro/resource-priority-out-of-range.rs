use tool_mcp::resource;

/// The notes.
#[resource("test://notes", priority = 1.5)]
fn notes() -> &'static str {
    "notes"
}

fn main() {}
