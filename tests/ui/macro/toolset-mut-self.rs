use std::sync::atomic::{AtomicU32, Ordering};
use tool_runtime::toolset;

struct Counter {
    count: AtomicU32,
}

#[toolset]
impl Counter {
    /// Adds to the counter.
    #[tool]
    fn add(&mut self, amount: u32) -> u32 {
        self.count.fetch_add(amount, Ordering::Relaxed) + amount
    }
}

fn main() {}
