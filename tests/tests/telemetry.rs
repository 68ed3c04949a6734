//! Calls as OpenTelemetry spans, exported in memory through
//! tracing-opentelemetry: the GenAI conventions' `execute_tool` span of a
//! call, and an MCP call whose `traceparent` makes its spans part of the
//! client's trace.

use opentelemetry::trace::{SpanId, Status, TraceId, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, ToolUse, tool};
use tracing_subscriber::layer::SubscriberExt;

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

/// Spans go to the returned exporter while the guard lives (on this thread,
/// which runs every task of a current-thread test runtime).
fn exporting() -> (
    InMemorySpanExporter,
    SdkTracerProvider,
    tracing::subscriber::DefaultGuard,
) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("tests"));
    let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
    (exporter, provider, guard)
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|KeyValue { key: k, .. }| k.as_str() == key)
        .map(|attribute| &attribute.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|value| value.as_str().into_owned())
}

fn registry() -> Registry {
    Registry::builder().tool(AddTool).build().unwrap()
}

#[tokio::test]
async fn a_call_is_an_execute_tool_span_with_the_genai_attributes() {
    let (exporter, _provider, _guard) = exporting();
    let registry = registry();
    let ctx = tool_runtime::ToolContext::new();
    let sum = registry
        .invoke(ToolUse::new("call-1", "add", json!({"a": 2, "b": 3})), &ctx)
        .await;
    assert!(!sum.is_error());
    let wrong = registry
        .invoke(ToolUse::new("call-2", "add", json!({"a": "two"})), &ctx)
        .await;
    assert!(wrong.is_error());

    let spans = exporter.get_finished_spans().unwrap();
    assert_eq!(spans.len(), 2, "{spans:?}");
    let ok = spans
        .iter()
        .find(|s| text(s, "gen_ai.tool.call.id").as_deref() == Some("call-1"));
    let ok = ok.expect("the first call's span");
    assert_eq!(ok.name, "execute_tool add");
    assert_eq!(ok.span_kind, opentelemetry::trace::SpanKind::Internal);
    assert_eq!(
        text(ok, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(text(ok, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(text(ok, "gen_ai.tool.type").as_deref(), Some("function"));
    assert_eq!(text(ok, "status").as_deref(), Some("completed"));
    assert!(attribute(ok, "error.type").is_none());
    assert_eq!(ok.status, Status::Unset);

    let failed = spans
        .iter()
        .find(|s| text(s, "gen_ai.tool.call.id").as_deref() == Some("call-2"))
        .expect("the second call's span");
    assert_eq!(failed.name, "execute_tool add");
    let kind = wrong.error_kind.expect("an error kind").as_str();
    assert_eq!(text(failed, "error.type").as_deref(), Some(kind));
    assert!(
        matches!(failed.status, Status::Error { .. }),
        "{:?}",
        failed.status
    );
}

#[tokio::test]
async fn an_mcp_call_with_a_traceparent_joins_the_clients_trace() {
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let (exporter, _provider, _guard) = exporting();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(McpServer::new(registry()).serve_io(server_read, server_write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let mut send = async |message: Value| {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    )
    .await;
    let trace_id = "0af7651916cd43dd8448eb211c80319c";
    let parent_id = "b7ad6b7169203331";
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "add", "arguments": {"a": 20, "b": 22},
        "_meta": {"traceparent": format!("00-{trace_id}-{parent_id}-01")}}}),
    )
    .await;
    // A call without one starts a trace of its own.
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "add", "arguments": {"a": 1, "b": 1}}}),
    )
    .await;
    let mut answered = 0;
    while answered < 2 {
        let line = lines.next_line().await.unwrap().expect("an answer");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 1 || message["id"] == 2 {
            answered += 1;
        }
    }
    // The input ends: the server finishes.
    drop(write);
    drop(lines);
    serving.await.unwrap().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let server_span = spans
        .iter()
        .find(|s| {
            s.name == "tools/call add" && text(s, "jsonrpc.request.id").as_deref() == Some("1")
        })
        .expect("the server span of the call with a traceparent");
    let trace = TraceId::from_hex(trace_id).unwrap();
    assert_eq!(server_span.span_context.trace_id(), trace);
    assert_eq!(
        server_span.parent_span_id,
        SpanId::from_hex(parent_id).unwrap()
    );
    assert!(server_span.parent_span_is_remote);
    assert_eq!(
        server_span.span_kind,
        opentelemetry::trace::SpanKind::Server
    );
    assert_eq!(
        text(server_span, "mcp.method.name").as_deref(),
        Some("tools/call")
    );

    let tool_span = spans
        .iter()
        .find(|s| s.name == "execute_tool add" && s.span_context.trace_id() == trace)
        .expect("the tool's span in the client's trace");
    assert_eq!(tool_span.parent_span_id, server_span.span_context.span_id());
    assert_eq!(text(tool_span, "gen_ai.tool.call.id").as_deref(), Some("1"));

    let other = spans
        .iter()
        .find(|s| {
            s.name == "tools/call add" && text(s, "jsonrpc.request.id").as_deref() == Some("2")
        })
        .expect("the server span of the call without one");
    assert_ne!(other.span_context.trace_id(), trace);
}
