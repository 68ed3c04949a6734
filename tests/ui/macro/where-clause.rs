use tool_runtime::tool;

/// Counts the items.
#[tool]
fn count(items: Vec<u32>) -> usize
where
    u32: Copy,
{
    items.len()
}

fn main() {}
