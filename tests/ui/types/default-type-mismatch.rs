use tool_runtime::tool;

/// Lists the next days.
#[tool]
fn days(#[tool(default = "x")] count: u32) -> Vec<u32> {
    (0..count).collect()
}

fn main() {}
