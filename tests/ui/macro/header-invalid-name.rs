use tool_runtime::tool;

/// Runs a query in a region.
#[tool]
fn query(
    #[tool(header = "Mcp-Param-Region")] region: String,
    #[tool(header = "Tenant Id")] tenant: u64,
) -> String {
    format!("{tenant} in {region}")
}

fn main() {}
