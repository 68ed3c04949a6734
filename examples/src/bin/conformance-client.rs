//! The client the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) drives in its client scenarios:
//! `tool_mcp::client::McpClient` reaching the suite's mock server.
//!
//! ```text
//! cargo build -p examples --bin conformance-client
//! npx @modelcontextprotocol/conformance client \
//!     --command target/debug/conformance-client --scenario tools_call
//! ```
//!
//! The suite passes the server's URL as the last argument, the scenario's
//! name in `MCP_CONFORMANCE_SCENARIO`, the revision it runs at in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`. `tests/mcp/conformance.sh` runs the
//! suite against it.

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_mcp::client::{McpClient, McpClientOptions, McpProtocol, McpServerConfig};
use tool_runtime::ToolContext;
use tool_runtime::context::{
    ClientFuture, ClientRequests, Elicitation, ElicitationRequest, SamplingRequest,
    SamplingResponse,
};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

type Failure = Box<dyn std::error::Error>;

/// The revision the suite runs the scenario at.
fn protocol() -> McpProtocol {
    match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2025-06-18" | "2025-11-25" | "2025-03-26") => McpProtocol::Initialize,
        _ => McpProtocol::Discover,
    }
}

/// The scenario's data (`MCP_CONFORMANCE_CONTEXT`), an empty object when
/// there is none.
fn context() -> Map<String, Value> {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// The user of the conformance client: accepts every elicitation with the
/// defaults its schema gives (an empty answer where there are none).
struct Defaults;

impl ClientRequests for Defaults {
    fn sample(&self, _request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async { Err(tool_runtime::ToolError::new("no model to ask")) })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>> {
        let mut answer = Map::new();
        if let Some(properties) = request.requested_schema["properties"].as_object() {
            for (name, property) in properties {
                if let Some(default) = property.get("default") {
                    answer.insert(name.clone(), default.clone());
                }
            }
        }
        Box::pin(async move { Ok(Elicitation::Accepted(Value::Object(answer))) })
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), Failure> {
    let options = McpClientOptions::default()
        .with_protocol(protocol())
        .with_forward_requests(true);
    let client =
        McpClient::connect_with("conformance", McpServerConfig::http(url), options).await?;
    let ctx = ToolContext::new().with_client(Arc::new(Defaults));
    let context = context();
    if let Some(calls) = context.get("toolCalls").and_then(Value::as_array) {
        for call in calls {
            let tool = call["name"].as_str().unwrap_or_default();
            client.call(tool, call["arguments"].clone(), &ctx).await?;
        }
        client.close().await;
        return Ok(());
    }
    match scenario {
        "json-schema-ref-no-deref" => {}
        "json-schema-2020-12-preservation" => {
            let tools = client.cached_tools();
            let focal = tools
                .iter()
                .find(|tool| tool.name == "json_schema_2020_12_tool")
                .ok_or("the server does not list json_schema_2020_12_tool")?;
            client
                .call(
                    "json_schema_echo",
                    json!({"schema": focal.input_schema}),
                    &ctx,
                )
                .await?;
        }
        "sep-2322-client-request-state" => {
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                client.call(tool, Value::Null, &ctx).await?;
            }
        }
        _ => {
            let tools = client.cached_tools();
            for tool in tools.iter() {
                client
                    .call(&tool.name, json!({"a": 2, "b": 3}), &ctx)
                    .await?;
            }
        }
    }
    client.close().await;
    Ok(())
}
