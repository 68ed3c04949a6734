use tool_runtime::tool;

/// Travels far.
#[tool(timeout = "5 parsecs")]
fn travel(destination: String) -> String {
    destination
}

fn main() {}
