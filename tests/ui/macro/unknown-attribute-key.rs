use tool_runtime::tool;

/// Says hello.
#[tool(nme = "hello")]
fn greet() -> String {
    "hello".to_owned()
}

fn main() {}
