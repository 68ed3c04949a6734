use tool_runtime::tool;

/// Moves a file.
#[tool(sequential = 3)]
fn move_file(from: String, to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
