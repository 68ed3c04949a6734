mod reexport {
    pub use tool_runtime as runtime;
}

use reexport::runtime::tool;

/// Adds two numbers.
#[tool(crate = reexport::runtime, name = "add_numbers")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Subtracts two numbers.
#[tool(crate = ::tool_runtime)]
fn subtract(a: i64, b: i64) -> i64 {
    a - b
}

fn main() {
    assert_eq!(add(2, 3), 5);
    assert_eq!(AddTool::SPEC.name, "add_numbers");
    assert_eq!(subtract(3, 2), 1);
    assert_eq!(SubtractTool::SPEC.name, "subtract");
}
