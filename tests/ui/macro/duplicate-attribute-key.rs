use tool_runtime::tool;

/// Gets the weather.
#[tool(name = "weather", name = "forecast")]
fn weather() -> String {
    "sunny".to_owned()
}

fn main() {}
