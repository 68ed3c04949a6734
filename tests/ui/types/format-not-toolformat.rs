use tool_runtime::tool;

struct Plain;

/// Looks a word up.
#[tool(format = Plain)]
fn lookup(word: String) -> String {
    word
}

fn main() {}
