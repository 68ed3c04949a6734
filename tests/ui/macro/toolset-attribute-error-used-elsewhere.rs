use std::sync::Arc;
use tool_runtime::{Registry, toolset};

struct Store;

#[toolset]
impl Store {
    /// Echoes a value.
    #[tool(timeout = "soon")]
    fn echo(&self, value: String) -> String {
        value
    }
}

fn main() {
    // The toolset and its tool's struct are used as if the attribute were
    // right: its one mistake is the only error.
    let store = Arc::new(Store);
    let registry = Registry::builder().toolset(Arc::clone(&store)).build();
    let _ = (registry, StoreEchoTool::new(store), StoreEchoTool::SPEC.name);
}
