// The expansion's call of a deprecated function warns no one; the user's
// own call still does.
#![deny(deprecated)]

use tool_runtime::tool;

/// Converts a length.
#[deprecated(note = "use convert_length_v3")]
#[tool]
fn convert_length(metres: f64) -> f64 {
    metres
}

fn main() {
    convert_length(1.0);
}
