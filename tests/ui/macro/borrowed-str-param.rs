use tool_runtime::tool;

/// Measures a word.
#[tool]
fn measure(word: &str) -> usize {
    word.len()
}

fn main() {}
