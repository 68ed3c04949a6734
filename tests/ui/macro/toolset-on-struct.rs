use tool_runtime::toolset;

#[toolset]
struct Store {
    items: Vec<String>,
}

fn main() {}
