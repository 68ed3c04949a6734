use tool_runtime::tool;

/// Greets someone.
#[tool]
fn greet(#[tool(range(min = 1, max = 20))] name: String) -> String {
    format!("hello {name}")
}

fn main() {}
