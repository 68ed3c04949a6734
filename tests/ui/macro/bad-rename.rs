use tool_runtime::tool;

/// Looks a city up.
#[tool]
fn lookup(#[tool(rename = "city name")] city: String) -> String {
    city
}

fn main() {}
