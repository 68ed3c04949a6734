use tool_mcp::resource;

/// The notes.
#[resource("test://notes", cache = "shared", ttl = "60s")]
fn notes() -> &'static str {
    "notes"
}

fn main() {}
