//! An MCP server of a registry, driven in process over a byte stream, as a
//! client on stdio would.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_mcp::server::McpServer;
use tool_runtime::Registry;

/// Sends each request to an MCP server of `registry` after `initialize`,
/// one at a time, and returns every message it sends back, answers and
/// notifications, in order, until the last request is answered.
pub(super) async fn mcp_session(registry: Registry, requests: &[Value]) -> Vec<Value> {
    served_session(McpServer::new(registry), requests).await
}

/// [`mcp_session`] with `mcp`, a server made as the test needs.
pub(super) async fn served_session(mcp: McpServer, requests: &[Value]) -> Vec<Value> {
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(mcp.serve_io(server_read, server_write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let mut messages = Vec::new();
    for request in std::iter::once(&initialize).chain(requests) {
        write
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
                .await
                .expect("an answer in time")
                .unwrap()
                .expect("an answer");
            let message: Value = serde_json::from_str(&line).unwrap();
            let answered = message.get("id") == request.get("id");
            messages.push(message);
            if answered {
                break;
            }
        }
    }
    drop(write);
    drop(lines);
    serving.await.unwrap().unwrap();
    messages
}

/// The answers of an MCP server of `registry` to `requests` (sent after
/// `initialize`, one at a time), one per request, in order.
pub(super) async fn mcp_answers(registry: Registry, requests: &[Value]) -> Vec<Value> {
    served_answers(McpServer::new(registry), requests).await
}

/// [`mcp_answers`] with `mcp`, a server made as the test needs.
pub(super) async fn served_answers(mcp: McpServer, requests: &[Value]) -> Vec<Value> {
    let messages = served_session(mcp, requests).await;
    requests
        .iter()
        .map(|request| {
            messages
                .iter()
                .find(|message| {
                    message.get("id") == request.get("id") && message.get("method").is_none()
                })
                .cloned()
                .expect("an answer to each request")
        })
        .collect()
}
