use tool_runtime::tool;

/// Gets the weather.
#[tool(name = weather)]
fn weather() -> String {
    "sunny".to_owned()
}

fn main() {}
