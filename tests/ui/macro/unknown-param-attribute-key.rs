use tool_runtime::tool;

/// Repeats a word.
#[tool]
fn repeat(word: String, #[tool(defualt = 2)] times: usize) -> String {
    word.repeat(times)
}

fn main() {}
