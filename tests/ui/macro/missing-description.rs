use tool_runtime::tool;

#[tool]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
