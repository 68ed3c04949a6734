use tool_runtime::tool;

/// Measures a word.
#[tool]
fn measure(ref word: String) -> usize {
    word.len()
}

fn main() {}
