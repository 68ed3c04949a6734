use tool_runtime::tool;

/// Lists the next days.
#[tool]
fn days(#[tool(length(max = 7))] count: u32) -> Vec<u32> {
    (0..count).collect()
}

fn main() {}
