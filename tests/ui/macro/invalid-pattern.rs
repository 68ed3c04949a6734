use tool_runtime::tool;

/// Looks a user up.
#[tool]
fn user(#[tool(pattern = "^[a-z+$")] login: String) -> String {
    login
}

fn main() {}
