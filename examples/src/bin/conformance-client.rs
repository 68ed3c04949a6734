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
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` (2025-11-25 is spoken with
//! `initialize`, 2026-07-28 with `server/discover`) and the scenario's
//! data in `MCP_CONFORMANCE_CONTEXT` (tool calls to make, a pre-registered
//! client, client credentials or a private key). The client connects,
//! lists the tools and calls what the scenario expects; a server that asks
//! for input is answered with its schema's defaults; a server that answers
//! `401` is authorized (`tool_mcp::client::oauth`), the authorization
//! server's redirect read headlessly (`FollowRedirect`). It exits 0 when
//! all went through, 1 with the error otherwise (some scenarios expect the
//! client to give up). `tests/mcp/conformance.sh` runs the suite against
//! it.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tool_mcp::client::oauth::{FollowRedirect, OAuth, OAuthConfig, Secret};
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

/// The client's URL-based client id: its metadata document, which
/// authorization servers that take client ID metadata documents fetch (the
/// suite's mock server takes it as it is).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Where the authorization server sends the user back; never listened on:
/// the suite's authorization server redirects at once, and the redirect is
/// read from its answer.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// How the client authorizes itself in `scenario`, with the scenario's data
/// (`context`): client credentials in the client-credentials scenarios, the
/// authorization code elsewhere (a client id given by the scenario is a
/// pre-registered client).
fn oauth(scenario: &str, context: &Map<String, Value>) -> OAuth {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut config = match (
        text("client_id"),
        text("client_secret"),
        text("private_key_pem"),
    ) {
        (Some(id), _, Some(key)) if scenario.starts_with("auth/client-credentials") => {
            let mut config = OAuthConfig::private_key_jwt(id, key);
            if let Some(algorithm) = text("signing_algorithm") {
                config = config.with_signing_algorithm(algorithm);
            }
            config
        }
        (Some(id), Some(secret), _) if scenario.starts_with("auth/client-credentials") => {
            OAuthConfig::client_credentials(id, secret)
        }
        (Some(id), secret, _) => OAuthConfig::default().with_client(id, secret.map(Secret::new)),
        _ => OAuthConfig::default(),
    };
    config = config
        .with_client_name("tool-mcp-conformance-client")
        .with_client_metadata_url(CLIENT_METADATA_URL);
    OAuth::new(config).with_handler(FollowRedirect::new(REDIRECT_URI))
}

/// Connects to `url` and does what `scenario` expects of a client.
async fn run(scenario: &str, url: &str) -> Result<(), Failure> {
    let context = context();
    // The suite runs its scenarios at once, and stops a client after 30 s.
    let options = McpClientOptions::default()
        .with_connect_timeout(Duration::from_secs(25))
        .with_protocol(protocol())
        .with_forward_requests(true)
        .with_oauth(oauth(scenario, &context));
    let client =
        McpClient::connect_with("conformance", McpServerConfig::http(url), options).await?;
    let ctx = ToolContext::new().with_client(Arc::new(Defaults));
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
