use tool_runtime::tool;

/// Adds two numbers.
#[tool]
fn add((a, b): (i32, i32)) -> i32 {
    a + b
}

fn main() {}
