use tool_runtime::tool;

const VIEW: &str = "ui://counter/view";

/// Shows the counter.
#[tool(ui = VIEW)]
fn counter_show() -> i64 {
    0
}

fn main() {}
