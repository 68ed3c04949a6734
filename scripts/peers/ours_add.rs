// The tool of the one-tool MCP servers that scripts/binary-size.sh and
// scripts/mcp-throughput.sh build with tool-runtime: `add(a, b)`. Each
// script writes this file, then its own `main`, into the server's main.rs.
use tool_runtime::tool;

/// Add two numbers.
#[tool]
fn add(
    /// The first number
    a: i64,
    /// The second number
    b: i64,
) -> i64 {
    a + b
}
