use tool_runtime::tool;

/// Rolls a die.
#[tool]
fn roll(#[tool(one_of = ["d6", "d20"])] sides: u32, #[tool(one_of = [1, 2])] label: String) -> String {
    format!("{label}: 1..={sides}")
}

fn main() {}
