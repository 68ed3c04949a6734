use tool_runtime::tool;

/// A city.
#[tool]
struct City {
    name: String,
}

fn main() {}
