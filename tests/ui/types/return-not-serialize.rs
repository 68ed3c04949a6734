use tool_runtime::tool;

struct Report {
    lines: Vec<String>,
}

/// Builds a report.
#[tool]
fn report() -> Report {
    Report { lines: Vec::new() }
}

fn main() {}
