use tool_runtime::tool;

/// Writes a file.
#[tool(scopes("files:read"), scopes("files:write"))]
fn write_file(path: String) -> String {
    path
}

fn main() {}
