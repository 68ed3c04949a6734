use tool_runtime::tool;

/// Says hello.
#[tool(register = "no")]
fn hello() -> &'static str {
    "hello"
}

fn main() {}
