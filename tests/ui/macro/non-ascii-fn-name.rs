use tool_runtime::tool;

/// Gets the weather.
#[tool]
fn météo() -> String {
    "sunny".to_owned()
}

fn main() {}
