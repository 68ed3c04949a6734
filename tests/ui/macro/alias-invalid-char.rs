use tool_runtime::tool;

/// Fetches a page.
#[tool(alias = "get page")]
fn fetch(url: String) -> String {
    url
}

fn main() {}
