use tool_runtime::tool;

/// Adds numbers.
#[tool]
fn sum(numbers: &[u32]) -> u32 {
    numbers.iter().sum()
}

fn main() {}
