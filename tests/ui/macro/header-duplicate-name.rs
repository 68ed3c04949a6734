use tool_runtime::tool;

/// Copies data between regions.
#[tool]
fn copy(
    #[tool(header)] region: String,
    #[tool(header = "REGION")] target: Option<String>,
) -> String {
    format!("{region} to {target:?}")
}

fn main() {}
