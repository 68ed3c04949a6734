use schemars::JsonSchema;
use serde::Deserialize;
use tool_runtime::tool;

#[derive(Deserialize, JsonSchema)]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Converts a temperature.
#[tool]
fn convert(degrees: f64, #[tool(default)] unit: Unit) -> f64 {
    match unit {
        Unit::Celsius => degrees,
        Unit::Fahrenheit => degrees * 1.8 + 32.0,
    }
}

fn main() {}
