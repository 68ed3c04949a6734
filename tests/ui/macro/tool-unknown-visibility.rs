use tool_runtime::tool;

/// Adds one to the counter.
#[tool(ui = "ui://counter/view", visibility = "apps")]
fn counter_add() -> i64 {
    1
}

fn main() {}
