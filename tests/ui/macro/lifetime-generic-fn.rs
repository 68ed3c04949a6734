use tool_runtime::tool;

/// Returns the length of a word.
#[tool]
fn word_length<'a>(word: &'a str) -> usize {
    word.len()
}

fn main() {}
