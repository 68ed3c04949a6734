use tool_runtime::toolset;

struct Notes;

#[toolset]
impl Notes {
    /// Counts the notes.
    #[tool(register = false)]
    fn count(&self) -> u32 {
        0
    }
}

fn main() {}
