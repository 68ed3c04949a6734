use tool_runtime::tool;

/// Looks an order up.
#[tool]
fn order(#[tool(pattern = "^[0-9]{6}$")] id: u64) -> String {
    format!("order {id}")
}

fn main() {}
