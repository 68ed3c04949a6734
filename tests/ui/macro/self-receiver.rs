use tool_runtime::tool;

struct Counter {
    count: u32,
}

impl Counter {
    /// Adds to the counter.
    #[tool]
    fn add(&self, amount: u32) -> u32 {
        self.count + amount
    }
}

fn main() {}
