use tool_mcp::prompt;

struct Person {
    name: String,
}

/// Greets someone.
#[prompt]
fn greet(person: Person) -> String {
    person.name
}

fn main() {}
