use tool_runtime::tool;

/// Converts a length.
#[tool(deprecated = 5)]
fn convert_length(metres: f64) -> f64 {
    metres
}

fn main() {}
