use tool_runtime::toolset;

struct Notes;

#[toolset]
impl Notes {
    /// Deletes every note.
    #[tool(scopes("notes:admin", "notes:write", "notes:admin"))]
    fn purge(&self) -> u32 {
        0
    }
}

fn main() {}
