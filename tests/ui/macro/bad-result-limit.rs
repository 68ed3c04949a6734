use tool_runtime::tool;

/// Reads a file.
#[tool(result_limit = "64 GB")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
