use tool_runtime::tool;

/// Searches the repository.
#[tool(requires(envs = "GITHUB_TOKEN", program = "git"))]
fn search(query: String) -> String {
    query
}

fn main() {}
