use tool_runtime::tool;

/// Adds one to the counter.
#[tool(visibility = "app")]
fn counter_add() -> i64 {
    1
}

fn main() {}
