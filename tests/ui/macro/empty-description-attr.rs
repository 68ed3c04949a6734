use tool_runtime::tool;

#[tool(description = "  ")]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
