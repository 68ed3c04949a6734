use tool_runtime::tool;

/// Where to search.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filter {
    region: String,
}

/// Searches in a region.
#[tool]
fn search(#[tool(header)] filter: Filter) -> String {
    filter.region
}

fn main() {}
