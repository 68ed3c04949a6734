use tool_runtime::{State, toolset};

struct Shards;

#[toolset]
impl Shards {
    /// Reads a shard.
    #[tool]
    fn read(&self, shard: u32, #[tool(header = "Region")] region: State<String>) -> String {
        format!("{shard} in {}", *region)
    }
}

fn main() {}
