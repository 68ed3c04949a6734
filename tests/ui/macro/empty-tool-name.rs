use tool_runtime::tool;

/// Gets the weather.
#[tool(name = "")]
fn weather() -> String {
    "sunny".to_owned()
}

fn main() {}
