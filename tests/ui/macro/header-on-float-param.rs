use tool_runtime::tool;

/// Scales a value.
#[tool]
fn scale(#[tool(header = "Ratio")] ratio: f64, value: f64) -> f64 {
    ratio * value
}

fn main() {}
