use tool_runtime::{tool, toolset};

struct Store;

// A syntax error inside a method's body is rustc's own error, reported once:
// the attribute reads the block all the same and adds nothing.
#[toolset]
impl Store {
    /// Echoes a value.
    #[tool]
    fn echo(&self, value: String) -> String {
        let copy = ;
        value
    }

    /// Makes an empty value.
    #[tool]
    fn make() -> String {
        String::new()
    }
}

/// Says hello.
#[tool]
fn greet() -> String {
    "hello".to_owned()
}

fn main() {}
