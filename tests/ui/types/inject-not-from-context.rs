use tool_runtime::tool;

struct Locale(String);

/// Greets the user.
#[tool]
fn greet(#[tool(inject)] locale: Locale) -> String {
    format!("hello ({})", locale.0)
}

fn main() {}
