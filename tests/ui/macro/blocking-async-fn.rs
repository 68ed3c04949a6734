use tool_runtime::tool;

/// Reads a file.
#[tool(blocking)]
async fn read(path: String) -> String {
    path
}

fn main() {}
