use tool_runtime::tool;

/// Converts a length.
#[tool(version = "2.0")]
fn convert_length(metres: f64) -> f64 {
    metres
}

fn main() {}
