use tool_runtime::tool;

/// Greets someone by name.
#[tool]
fn greet(#[tool(pattern = r"^\p{L}+$")] name: String) -> String {
    name
}

fn main() {}
