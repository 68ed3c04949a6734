use tool_runtime::tool;

/// Files a report.
#[tool]
fn file_report(#[tool(transform)] category: String) -> String {
    category
}

fn main() {}
