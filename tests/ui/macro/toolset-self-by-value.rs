use tool_runtime::toolset;

struct Greeter {
    greeting: String,
}

#[toolset]
impl Greeter {
    /// Greets someone.
    #[tool]
    fn greet(self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }
}

fn main() {}
