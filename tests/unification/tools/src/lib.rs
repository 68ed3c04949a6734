//! The library of tools: two `#[tool]`s, registered when linked.

use tool_runtime::tool;

/// Adds two numbers.
#[tool]
pub fn add(
    /// The first number
    a: i64,
    /// The second number
    b: i64,
) -> i64 {
    a + b
}

/// Greets someone by name.
#[tool(read_only)]
pub fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("hello, {name}")
}
