use tool_runtime::tool;

/// Describes a number.
#[tool]
fn describe(n: u32) -> impl std::fmt::Display {
    n
}

fn main() {}
