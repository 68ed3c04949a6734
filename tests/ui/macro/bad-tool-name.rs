use tool_runtime::tool;

/// Gets the weather.
#[tool(name = "get weather")]
fn weather() -> String {
    "sunny".to_owned()
}

fn main() {}
