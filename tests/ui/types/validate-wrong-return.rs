use tool_runtime::tool;

fn even(n: &u32) -> bool {
    n % 2 == 0
}

/// Books a table.
#[tool]
fn book(#[tool(validate = even)] guests: u32) -> String {
    format!("table for {guests}")
}

fn main() {}
