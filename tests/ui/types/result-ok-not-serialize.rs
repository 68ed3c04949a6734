use tool_runtime::{ToolError, tool};

struct Report {
    lines: Vec<String>,
}

/// Builds a report.
#[tool]
fn report() -> Result<Report, ToolError> {
    Ok(Report { lines: Vec::new() })
}

fn main() {}
