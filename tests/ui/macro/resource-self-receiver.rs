use tool_mcp::resource;

struct Store;

impl Store {
    /// A text.
    #[resource("test://text")]
    fn text(&self) -> &'static str {
        "text"
    }
}

fn main() {}
