use tool_runtime::config::Config;
use tool_runtime::tool;

struct SearchConfig {
    endpoint: String,
}

/// Searches the index.
#[tool(config = SearchConfig)]
fn search(query: String, config: Config<SearchConfig>) -> String {
    format!("{query} at {}", config.endpoint)
}

fn main() {}
