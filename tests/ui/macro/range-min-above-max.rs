use tool_runtime::tool;

/// Books a table.
#[tool]
fn book(#[tool(range(min = 5, max = 1))] guests: u32) -> String {
    format!("table for {guests}")
}

fn main() {}
