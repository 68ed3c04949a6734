use tool_mcp::prompt;

/// Greets someone.
#[prompt]
fn greet(#[prompt(rename = "who")] name: String) -> String {
    name
}

fn main() {}
