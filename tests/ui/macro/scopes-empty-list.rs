use tool_runtime::tool;

/// Writes a file.
#[tool(scopes())]
fn write_file(path: String) -> String {
    path
}

fn main() {}
