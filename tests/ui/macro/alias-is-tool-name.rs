use tool_runtime::tool;

/// Fetches a page.
#[tool(name = "fetch_page", alias = "fetch_page")]
fn fetch(url: String) -> String {
    url
}

fn main() {}
