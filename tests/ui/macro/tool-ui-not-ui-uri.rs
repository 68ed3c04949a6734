use tool_runtime::tool;

/// Shows the counter.
#[tool(ui = "https://example.com/counter")]
fn counter_show() -> i64 {
    0
}

fn main() {}
