use tool_runtime::tool;

fn double(n: u32) -> u32 {
    n * 2
}

/// Files a report.
#[tool]
fn file_report(#[tool(transform = double)] category: String) -> String {
    category
}

fn main() {}
