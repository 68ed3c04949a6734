use tool_runtime::tool;

/// Sums numbers.
#[tool]
unsafe extern "C" fn sum(count: i32, _rest: ...) -> i32 {
    count
}

fn main() {}
