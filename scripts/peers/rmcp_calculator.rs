// The same tool written with rmcp alone, as its README shows: a
// `#[tool_router(server_handler)]` impl with one `#[tool]` method taking
// `Parameters<AddArgs>`. scripts/binary-size.sh and scripts/mcp-throughput.sh
// write this file, then their own `main`, into the rmcp server's main.rs.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first number
    a: i64,
    /// The second number
    b: i64,
}

#[derive(Clone)]
struct Calculator;

#[tool_router(server_handler)]
impl Calculator {
    /// Add two numbers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}
