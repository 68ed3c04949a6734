//! `toolbox serve` over stdio and over streamable HTTP, driven by tool-mcp's
//! own client in each revision era it speaks: the `initialize` handshake
//! (2025-11-25), `server/discover` (2026-07-28), and `auto` (a discover
//! probe, which lands on 2026-07-28 here). Each run lists the tools, calls
//! one, makes a call the registry refuses (an error result naming the
//! field), calls an unknown tool (a JSON-RPC error naming it) and lists
//! again.

use serde_json::json;
use tool_mcp::client::{
    McpClient, McpClientErrorKind, McpClientOptions, McpProtocol, McpServerConfig,
};
use tool_runtime::ToolContext;

use super::TOOLBOX;
use super::serve_http::HttpServer;

/// Each protocol choice and the revision it must land on.
const ERAS: [(McpProtocol, &str); 3] = [
    (McpProtocol::Initialize, "2025-11-25"),
    (McpProtocol::Discover, "2026-07-28"),
    (McpProtocol::Auto, "2026-07-28"),
];

/// Lists, calls, is refused, asks for an unknown tool and lists again, in
/// the era `protocol` chooses; `how` names the transport in messages.
async fn exercise(config: McpServerConfig, protocol: McpProtocol, era: &str, how: &str) {
    let options = McpClientOptions::default().with_protocol(protocol);
    let client = McpClient::connect_with("toolbox", config, options)
        .await
        .unwrap_or_else(|error| panic!("{how}, {protocol:?}: {error}"));
    assert_eq!(client.protocol_version().as_deref(), Some(era), "{how}");

    let tools = client.list_tools().await.expect("the tools are listed");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    assert!(names.contains(&"calculator"), "{how}, {era}: {names:?}");

    let ctx = ToolContext::new();
    let done = client
        .call("calculator", json!({"expression": "2+3"}), &ctx)
        .await
        .expect("the call is answered")
        .into_result("call-1");
    assert!(!done.is_error(), "{how}, {era}: {}", done.text_content());
    let value: serde_json::Value =
        serde_json::from_str(&done.text_content()).expect("the calculator answers JSON");
    assert_eq!(value["result"], json!(5.0), "{how}, {era}: {value}");

    let refused = client
        .call("calculator", json!({"expression": 5}), &ctx)
        .await
        .expect("a refused call is a result")
        .into_result("call-2");
    assert!(refused.is_error(), "{how}, {era}");
    assert!(
        refused.text_content().contains("expression"),
        "{how}, {era}: {}",
        refused.text_content()
    );

    let unknown = client
        .call("no_such_tool", json!({}), &ctx)
        .await
        .expect_err("an unknown tool is a protocol error");
    assert_eq!(unknown.kind(), McpClientErrorKind::Protocol, "{how}, {era}");
    assert!(unknown.message().contains("no_such_tool"), "{unknown}");

    let again = client.list_tools().await.expect("the list works after it");
    assert_eq!(again.len(), tools.len(), "{how}, {era}");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_toolbox_over_stdio_in_both_eras() {
    for (protocol, era) in ERAS {
        exercise(
            McpServerConfig::stdio(TOOLBOX, ["serve"]),
            protocol,
            era,
            "stdio",
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_toolbox_over_http_in_both_eras() {
    let server = HttpServer::start(&[]);
    for (protocol, era) in ERAS {
        exercise(
            McpServerConfig::http(&server.url),
            protocol,
            era,
            "streamable HTTP",
        )
        .await;
    }
}
