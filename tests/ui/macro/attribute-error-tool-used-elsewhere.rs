use tool_runtime::{Registry, tool};

/// Says hello.
#[tool(nme = "hello")]
fn greet() -> String {
    "hello".to_owned()
}

fn main() {
    // The tool's struct and spec are used as if the attribute were right:
    // its one mistake is the only error.
    let registry = Registry::builder().tool(GreetTool).build();
    let _ = (registry, GreetTool::SPEC.name, greet());
}
