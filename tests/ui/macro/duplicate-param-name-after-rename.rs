use tool_runtime::tool;

/// Finds a city.
#[tool]
fn find(city: String, #[tool(rename = "city")] town: String) -> String {
    format!("{city} {town}")
}

fn main() {}
