use tool_mcp::prompt;

/// Greets someone.
#[prompt]
fn greet<T: std::str::FromStr>(name: T) -> String {
    let _ = name;
    String::new()
}

fn main() {}
