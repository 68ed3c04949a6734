use tool_runtime::{Registry, tool};

// A syntax error inside the body is rustc's own error, reported once: the
// attribute reads the function all the same and adds nothing.
/// Says hello.
#[tool]
fn greet(#[tool(default = 1)] times: usize) -> String {
    let greeting = ;
    "hello".repeat(times)
}

fn main() {
    let _ = Registry::builder().tool(GreetTool).build();
}
