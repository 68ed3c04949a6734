use tool_mcp::prompt;

struct Greeter;

impl Greeter {
    /// Greets someone.
    #[prompt]
    fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {}
