use tool_runtime::tool;

/// Lists the next days.
#[tool]
fn days(#[tool(default = 3)] count: Option<u32>) -> Vec<u32> {
    (0..count.unwrap_or(3)).collect()
}

fn main() {}
