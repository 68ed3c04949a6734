use tool_runtime::toolset;

struct Store;

#[toolset]
impl Store {
    /// Echoes a value.
    #[tool]
    fn echo<T: ToString>(&self, value: T) -> String {
        value.to_string()
    }
}

fn main() {}
