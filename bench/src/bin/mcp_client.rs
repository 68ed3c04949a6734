//! A call through the MCP client against a direct call of the same server.
//!
//! The server is this binary run as `mcp_client serve`: one `#[tool]`
//! function, `add`, served over stdio by `tool_mcp::server::McpServer`. Two
//! clients talk to it, each over its own spawned copy:
//!
//! - direct: rmcp's own client, `peer.call_tool(add)`;
//! - ours: `tool_mcp::client::McpClient`, its tools imported into a
//!   `Registry` as `DynamicTool`s, called with `Registry::invoke`, which
//!   adds argument validation against the remote schema, the registry's
//!   policies and the result conversion.
//!
//! Calls are sequential (one in flight); rounds alternate between the two,
//! and the median of each side's per-round mean is reported, with the
//! ratio.
//!
//! ```sh
//! cargo run --release -p bench --bin mcp_client -- [ROUNDS] [CALLS]
//! ```

use std::time::Instant;

use serde_json::json;
use tool_mcp::client::{ImportOptions, McpClient, McpServerConfig};
use tool_mcp::rmcp::ServiceExt;
use tool_mcp::rmcp::model::CallToolRequestParams;
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, ToolContext, ToolUse, tool};

/// Adds two numbers.
#[tool]
fn add(
    /// The first number
    a: i64,
    /// The second number
    b: i64,
) -> i64 {
    a + b
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        let registry = Registry::builder().tool(AddTool).build()?;
        McpServer::new(registry).serve_stdio().await?;
        return Ok(());
    }
    let rounds: usize = args.first().map_or(Ok(7), |n| n.parse())?;
    let calls: usize = args.get(1).map_or(Ok(2000), |n| n.parse())?;
    let exe = std::env::current_exe()?;

    let mut command = tokio::process::Command::new(&exe);
    command.arg("serve");
    let direct = ().serve(tool_mcp::rmcp::transport::TokioChildProcess::new(command)?).await?;
    let arguments = json!({"a": 2, "b": 3})
        .as_object()
        .cloned()
        .unwrap_or_default();

    let client = McpClient::connect(
        "local",
        McpServerConfig::stdio(exe.display().to_string(), ["serve"]),
    )
    .await?;
    let mut builder = Registry::builder();
    for tool in client.tools(&ImportOptions::new()) {
        builder = builder.tool(tool);
    }
    let registry = builder.build()?;
    let ctx = ToolContext::new();
    let first = registry
        .invoke(ToolUse::new("0", "add", json!({"a": 2, "b": 3})), &ctx)
        .await;
    println!(
        "a call through the client answers: {}",
        first.text_content()
    );

    let (mut direct_us, mut ours_us) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        for side in [round % 2, 1 - round % 2] {
            let started = Instant::now();
            for i in 0..calls {
                if side == 0 {
                    let params =
                        CallToolRequestParams::new("add").with_arguments(arguments.clone());
                    let result = direct.call_tool(params).await?;
                    assert_ne!(result.is_error, Some(true), "call {i}");
                } else {
                    let call = ToolUse::new(i.to_string(), "add", json!({"a": 2, "b": 3}));
                    let result = registry.invoke(call, &ctx).await;
                    assert!(result.is_success(), "call {i}: {result:?}");
                }
            }
            let per_call = started.elapsed().as_secs_f64() * 1e6 / calls as f64;
            if side == 0 {
                direct_us.push(per_call);
            } else {
                ours_us.push(per_call);
            }
        }
    }
    let direct_median = median(&mut direct_us);
    let ours_median = median(&mut ours_us);
    println!("rounds: {rounds}, calls per round and side: {calls}, one call in flight");
    println!("direct (rmcp client, tools/call)          : {direct_median:8.1} µs per call");
    println!("through McpClient and Registry::invoke    : {ours_median:8.1} µs per call");
    println!(
        "ratio (ours / direct)                     : {:.2}x",
        ours_median / direct_median
    );
    client.close().await;
    direct.cancel().await?;
    Ok(())
}
