use tool_runtime::tool;

/// Renders a long report.
#[tool(task = "requird")]
fn render(report: String) -> String {
    report
}

fn main() {}
