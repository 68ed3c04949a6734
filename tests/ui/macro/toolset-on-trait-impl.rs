use tool_runtime::toolset;

struct Store;

trait Lookup {
    fn lookup(&self, key: String) -> String;
}

#[toolset]
impl Lookup for Store {
    /// Looks a key up.
    #[tool]
    fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}
