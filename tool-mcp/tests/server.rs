//! `tool_mcp::server::McpServer` at the protocol level: JSON-RPC
//! messages written to it over an in-memory pipe, one per line, as a stdio
//! client sends them, and its answers read back.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::Notify;
use tool_mcp::server::McpServer;
use tool_runtime::{Registry, ToolContext, ToolError, events::Progress, tool};

#[path = "server/request_state.rs"]
mod request_state;

/// Adds two numbers.
#[tool(title = "Add", read_only, alias = "sum")]
fn add(
    /// The first number
    a: i64,
    /// The second number
    b: i64,
) -> i64 {
    a + b
}

/// Reports progress that goes back and forth, then finishes.
#[tool]
async fn wobble(progress: Progress) -> &'static str {
    for fraction in [0.5, 0.5, 0.25, 0.75, 1.0] {
        progress.progress(fraction, format!("at {fraction}"));
        tokio::task::yield_now().await;
    }
    "done"
}

static STARTED: Notify = Notify::const_new();
static STOPPED: Notify = Notify::const_new();

/// Says it started, then waits until the call is stopped.
#[tool]
async fn wait_forever(progress: Progress) -> Result<String, ToolError> {
    struct Stopped;
    impl Drop for Stopped {
        fn drop(&mut self) {
            STOPPED.notify_one();
        }
    }
    let _stopped = Stopped;
    progress.progress(0.0, "waiting");
    STARTED.notify_one();
    std::future::pending::<()>().await;
    Ok("never".into())
}

/// Reads the audit log.
#[tool]
fn audit_log() -> &'static str {
    "all quiet"
}

/// A client's end of the pipe.
struct Client {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Client {
    /// Starts `server` on one end of a pipe and initialises a session on
    /// the other; returns the client and the `initialize` result.
    async fn start(server: McpServer) -> (Client, Value) {
        let mut client = Client::open(server);
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}
                }}),
            )
            .await;
        let (init, _) = client.response(0).await;
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (client, init)
    }

    /// Starts `server` on one end of a pipe; the client is the other end,
    /// with no session yet.
    fn open(server: McpServer) -> Client {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(server_read, server_write));
        let (read, writer) = tokio::io::split(client_end);
        Client {
            writer,
            lines: BufReader::new(read).lines(),
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message from the server; a hang guard, not a timing check.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the pipe open");
        serde_json::from_str(&line).unwrap()
    }

    /// The response to request `id`, and every message that came before it.
    async fn response(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) {
                return (message, before);
            }
            before.push(message);
        }
    }

    async fn call(&mut self, id: i64, params: Value) -> (Value, Vec<Value>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
        self.response(id).await
    }
}

fn registry() -> Registry {
    Registry::builder()
        .tool(AddTool)
        .tool(WobbleTool)
        .tool(WaitForeverTool)
        .build()
        .unwrap()
}

fn progress_of(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect()
}

#[tokio::test]
async fn initialize_names_the_server_and_offers_tools() {
    let server = McpServer::new(registry())
        .with_implementation("calc", "2.1.0")
        .with_instructions("Use add for sums.");
    let (_client, init) = Client::start(server).await;
    let result = &init["result"];
    assert_eq!(result["serverInfo"]["name"], "calc");
    assert_eq!(result["serverInfo"]["version"], "2.1.0");
    assert_eq!(result["instructions"], "Use add for sums.");
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(result["protocolVersion"], "2025-06-18");
}

#[tokio::test]
async fn tools_list_is_the_mcp_rendering_of_the_registry() {
    let registry = registry();
    let expected = registry.render(tool_runtime::Provider::Mcp).clone();
    let (mut client, _) = Client::start(McpServer::new(registry)).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let (list, _) = client.response(1).await;
    assert_eq!(list["result"]["tools"], expected["tools"]);
    let add = &list["result"]["tools"][0];
    assert_eq!(add["name"], "add");
    assert_eq!(add["title"], "Add");
    assert_eq!(add["annotations"]["readOnlyHint"], true);
    assert_eq!(add["outputSchema"]["required"], json!(["result"]));
}

#[tokio::test]
async fn a_call_answers_with_content_structured_content_and_is_error() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let (answer, _) = client
        .call(1, json!({"name": "add", "arguments": {"a": 2, "b": 3}}))
        .await;
    assert_eq!(
        answer["result"],
        json!({"content": [{"type": "text", "text": "5"}], "structuredContent": {"result": 5}, "isError": false})
    );
    // By alias too.
    let (answer, _) = client
        .call(2, json!({"name": "sum", "arguments": {"a": 1, "b": 1}}))
        .await;
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 2}));
}

#[tokio::test]
async fn bad_arguments_are_an_error_result_and_the_server_keeps_serving() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let (bad, _) = client
        .call(1, json!({"name": "add", "arguments": {"a": "two"}}))
        .await;
    assert_eq!(bad["result"]["isError"], true);
    assert!(bad["result"].get("structuredContent").is_none());
    let text = bad["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("invalid arguments for add: a: expected an integer"),
        "{text}"
    );
    assert!(text.contains("b: missing required field"), "{text}");

    let (no_arguments, _) = client.call(2, json!({"name": "add"})).await;
    assert_eq!(no_arguments["result"]["isError"], true);

    let (good, _) = client
        .call(3, json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
        .await;
    assert_eq!(good["result"]["isError"], false);
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_invalid_params_error() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let (answer, _) = client.call(1, json!({"name": "ad", "arguments": {}})).await;
    assert!(answer.get("result").is_none());
    assert_eq!(answer["error"]["code"], -32602);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("unknown tool \"ad\"; did you mean \"add\"?"),
        "{message}"
    );
    assert_eq!(answer["error"]["data"], json!({"tool": "ad"}));

    // A name with control characters, megabytes long, is quoted back
    // escaped and cut short, in the message and in the data.
    let long = format!("x\u{1b}[2J{}", "y".repeat(1 << 20));
    let (answer, _) = client.call(9, json!({"name": long, "arguments": {}})).await;
    let tool = answer["error"]["data"]["tool"].as_str().unwrap();
    assert!(tool.starts_with("x\\u{1b}[2Jyyy"), "{tool}");
    assert_eq!(
        tool.chars().count(),
        tool_runtime::__private::quote::MAX_NAME + 1 + 5
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.len() < 4096 && !message.contains('\u{1b}'),
        "{message}"
    );

    // A malformed request is refused by the protocol layer; the session
    // goes on.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}),
        )
        .await;
    let (malformed, _) = client.response(2).await;
    assert!(malformed["error"]["code"].is_i64(), "{malformed}");

    let (good, _) = client
        .call(3, json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
        .await;
    assert_eq!(good["result"]["isError"], false);
}

#[tokio::test]
async fn garbage_and_unknown_methods_do_not_stop_the_server() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    client.writer.write_all(b"{not json\n").await.unwrap();
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "x"}}))
        .await;
    let (unknown, _) = client.response(1).await;
    assert_eq!(unknown["error"]["code"], -32601);
    let (good, _) = client
        .call(2, json!({"name": "add", "arguments": {"a": 2, "b": 2}}))
        .await;
    assert_eq!(good["result"]["structuredContent"], json!({"result": 4}));
}

#[tokio::test]
async fn a_tool_outside_the_allowlist_is_not_listed_nor_run() {
    let registry = Registry::builder()
        .tool(AddTool)
        .tool(AuditLogTool)
        .allow(["add"])
        .build()
        .unwrap();
    let (mut client, _) = Client::start(McpServer::new(registry)).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let (list, _) = client.response(1).await;
    let names: Vec<&Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(names, [&json!("add")]);
    let (answer, _) = client.call(2, json!({"name": "audit_log"})).await;
    assert_eq!(answer["error"]["code"], -32602);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not allowed")
    );
}

#[tokio::test]
async fn tools_disabled_in_the_servers_context_are_not_listed() {
    let registry = Registry::builder()
        .tool(AddTool)
        .tool(AuditLogTool)
        .enabled_when(|spec, ctx| spec.name != "audit_log" || ctx.state().contains_key("admin"))
        .build()
        .unwrap();
    let guest = McpServer::new(registry.clone());
    let names = |server: &McpServer| -> Vec<String> {
        server
            .tools()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&guest), ["add"]);
    let admin =
        McpServer::new(registry).with_context(ToolContext::new().with_state("admin", json!(true)));
    assert_eq!(names(&admin), ["add", "audit_log"]);

    let (mut client, _) = Client::start(guest).await;
    let (answer, _) = client.call(1, json!({"name": "audit_log"})).await;
    assert_eq!(answer["result"]["isError"], true);
    let (mut client, _) = Client::start(admin).await;
    let (answer, _) = client.call(1, json!({"name": "audit_log"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "all quiet");
}

#[tokio::test]
async fn progress_is_sent_for_a_progress_token_and_only_forward() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let (answer, before) = client
        .call(
            1,
            json!({"name": "wobble", "_meta": {"progressToken": "tok-1"}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    let progress = progress_of(&before);
    assert_eq!(
        progress,
        [
            json!({"progressToken": "tok-1", "progress": 0.5, "total": 1.0, "message": "at 0.5"}),
            json!({"progressToken": "tok-1", "progress": 0.75, "total": 1.0, "message": "at 0.75"}),
            json!({"progressToken": "tok-1", "progress": 1.0, "total": 1.0, "message": "at 1"}),
        ]
    );

    // A numeric token comes back as a number.
    let (_, before) = client
        .call(2, json!({"name": "wobble", "_meta": {"progressToken": 42}}))
        .await;
    assert!(
        progress_of(&before)
            .iter()
            .all(|p| p["progressToken"] == 42)
    );
    assert_eq!(progress_of(&before).len(), 3);

    // No token, no notifications.
    let (_, before) = client.call(3, json!({"name": "wobble"})).await;
    assert_eq!(progress_of(&before), Vec::<Value>::new());
}

#[tokio::test]
async fn a_cancelled_request_stops_the_tool_and_gets_no_answer() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let started = STARTED.notified();
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "wait_forever", "_meta": {"progressToken": "w"}}}),
        )
        .await;
    started.await;
    let stopped = STOPPED.notified();
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "the user gave up"}}),
        )
        .await;
    tokio::time::timeout(Duration::from_secs(30), stopped)
        .await
        .expect("the tool is stopped");

    // The server goes on; nothing answers request 7.
    let (answer, before) = client
        .call(8, json!({"name": "add", "arguments": {"a": 1, "b": 1}}))
        .await;
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 2}));
    assert!(
        before.iter().all(|m| m.get("id") != Some(&json!(7))),
        "{before:?}"
    );
}

/// A tool made at run time, answering with `answer`.
fn dynamic(name: &str, answer: &'static str) -> tool_runtime::dynamic::DynamicTool {
    tool_runtime::dynamic::DynamicTool::builder(
        name.to_owned(),
        "Answers with a fixed text.",
        json!({"type": "object", "properties": {}}),
    )
    .handler(move |_, _| Ok::<_, ToolError>(answer))
    .build()
    .unwrap()
}

#[tokio::test]
async fn a_change_to_a_live_registry_is_announced_and_listed() {
    let live = tool_runtime::registry::LiveRegistry::new(registry());
    let (mut client, init) = Client::start(McpServer::new(live.clone())).await;
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"],
        json!(true)
    );
    // A round trip, so the server has taken in `notifications/initialized`.
    client
        .send(json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}))
        .await;
    client.response(0).await;

    live.insert(dynamic("greet", "hello")).unwrap();
    let notice = client.next().await;
    assert_eq!(notice["method"], "notifications/tools/list_changed");
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let (list, _) = client.response(1).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "greet", "wait_forever", "wobble"]);
    let (answer, _) = client.call(2, json!({"name": "greet"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "hello");

    // Replaced, then removed: each change is announced, and a call after
    // the removal is refused as for any unknown tool.
    live.insert(dynamic("greet", "hi")).unwrap();
    assert_eq!(
        client.next().await["method"],
        "notifications/tools/list_changed"
    );
    let (answer, _) = client.call(3, json!({"name": "greet"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "hi");
    assert!(live.remove("greet"));
    assert_eq!(
        client.next().await["method"],
        "notifications/tools/list_changed"
    );
    let (answer, _) = client.call(4, json!({"name": "greet"})).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

#[tokio::test]
async fn calls_running_through_a_change_finish_with_their_tool() {
    let live = tool_runtime::registry::LiveRegistry::new(registry());
    live.insert(dynamic("slow", "first")).unwrap();
    let (mut client, _) = Client::start(McpServer::new(live.clone())).await;
    // A tool that waits, replaced and removed while its calls wait.
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let entered = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    let waiting = std::sync::Arc::clone(&gate);
    let entering = std::sync::Arc::clone(&entered);
    let slow = tool_runtime::dynamic::DynamicTool::builder(
        "slow",
        "Waits for the gate, then answers.",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
    )
    .async_handler(move |args, _| {
        let gate = std::sync::Arc::clone(&waiting);
        entering.add_permits(1);
        async move {
            gate.acquire().await.unwrap().forget();
            Ok::<_, ToolError>(format!("done {}", args["n"]))
        }
    })
    .build()
    .unwrap();
    live.insert(slow).unwrap();
    for n in 0..20 {
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/call",
                "params": {"name": "slow", "arguments": {"n": n}}}),
            )
            .await;
    }
    // Every call is running its tool.
    entered.acquire_many(20).await.unwrap().forget();
    // While they wait: the tool is replaced, others come and go.
    for round in 0..10 {
        live.insert(dynamic(&format!("extra_{round}"), "x"))
            .unwrap();
        live.insert(dynamic("slow", "replaced")).unwrap();
        assert!(live.remove(&format!("extra_{round}")));
    }
    gate.add_permits(20);
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < 20 {
        let message = client.next().await;
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            answered.insert(id, message["result"]["content"][0]["text"].clone());
        }
    }
    for n in 0..20 {
        assert_eq!(answered[&(100 + n)], json!(format!("done {n}")));
    }
    // New calls get the tool as it is now.
    let (answer, _) = client.call(200, json!({"name": "slow"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "replaced");
}

/// This process's TCP socket from `local` to `peer`: a duplicate of its
/// descriptor, found among the process's descriptors.
#[cfg(all(unix, feature = "http"))]
fn socket_of(
    local: std::net::SocketAddr,
    peer: std::net::SocketAddr,
) -> Option<std::net::TcpStream> {
    use std::os::fd::BorrowedFd;
    (0..4096).find_map(|fd| {
        // SAFETY: the descriptor is only borrowed to duplicate it; one that
        // is not open fails to duplicate, and a duplicate that is no socket
        // has no addresses.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let stream = std::net::TcpStream::from(borrowed.try_clone_to_owned().ok()?);
        (stream.local_addr().ok() == Some(local) && stream.peer_addr().ok() == Some(peer))
            .then_some(stream)
    })
}

#[cfg(all(unix, feature = "http"))]
#[tokio::test]
async fn http_connections_are_served_with_tcp_nodelay() {
    use tokio::io::AsyncReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let shutdown = tool_runtime::context::CancellationToken::new();
    let server = tokio::spawn(McpServer::new(registry()).serve_http(listener, shutdown.clone()));
    let mut client = tokio::net::TcpStream::connect(address).await.unwrap();
    client
        .write_all(b"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    // The answer: the server has accepted the connection and serves it.
    let mut response = Vec::new();
    while !response.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut chunk = [0; 1024];
        let read = tokio::time::timeout(Duration::from_secs(30), client.read(&mut chunk))
            .await
            .expect("the server answers")
            .unwrap();
        assert_ne!(read, 0, "the server closed the connection");
        response.extend_from_slice(&chunk[..read]);
    }
    assert!(response.starts_with(b"HTTP/1.1 404"));

    let (client_address, server_address) =
        (client.local_addr().unwrap(), client.peer_addr().unwrap());
    let accepted =
        socket_of(server_address, client_address).expect("the server's end of the connection");
    assert!(
        accepted.nodelay().unwrap(),
        "TCP_NODELAY is off on the accepted connection"
    );
    // The check tells one from the other: the client's end has it off.
    let connected = socket_of(client_address, server_address).expect("the client's end");
    assert!(!connected.nodelay().unwrap());

    shutdown.cancel();
    server.await.unwrap().unwrap();
}

/// Writes `line` as it is, and its newline, then reads the server's next
/// message: the answer to a line that is no readable request.
async fn answer_to_raw(client: &mut Client, line: &[u8]) -> Value {
    client.writer.write_all(line).await.unwrap();
    client.writer.write_all(b"\n").await.unwrap();
    client.writer.flush().await.unwrap();
    client.next().await
}

/// Asserts `answer` is the JSON-RPC error `code` for request `id`, and that
/// the server still answers a call.
async fn assert_error_and_serving(client: &mut Client, answer: &Value, code: i64, id: Value) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert!(answer["error"]["message"].is_string(), "{answer}");
    assert!(answer.get("result").is_none(), "{answer}");
    let (good, _) = client
        .call(99, json!({"name": "add", "arguments": {"a": 40, "b": 2}}))
        .await;
    assert_eq!(good["result"]["structuredContent"], json!({"result": 42}));
}

#[tokio::test]
async fn a_line_that_is_not_json_is_a_parse_error_with_its_id() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let answer = answer_to_raw(
        &mut client,
        br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","#,
    )
    .await;
    assert_error_and_serving(&mut client, &answer, -32700, json!(5)).await;
    // No id to be found: null. A string id is found as it is.
    let answer = answer_to_raw(&mut client, b"{not json").await;
    assert_error_and_serving(&mut client, &answer, -32700, Value::Null).await;
    let answer = answer_to_raw(
        &mut client,
        br#"{"params":{"id":3},"id" : "req \"7\"","method":"tools/call",}"#,
    )
    .await;
    assert_error_and_serving(&mut client, &answer, -32700, json!("req \"7\"")).await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error_with_its_id() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let answer = answer_to_raw(
        &mut client,
        b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":\"\xff\xfe\"}}}",
    )
    .await;
    assert_error_and_serving(&mut client, &answer, -32700, json!(6)).await;
}

#[tokio::test]
async fn a_lone_surrogate_escape_is_a_parse_error_with_its_id() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let answer = answer_to_raw(
        &mut client,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_forecast","arguments":{"city":"\ud800"}}}"#,
    )
    .await;
    assert_error_and_serving(&mut client, &answer, -32700, json!(1)).await;
}

#[tokio::test]
async fn nesting_deeper_than_the_parser_allows_is_a_parse_error_with_its_id() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(1000),
        "]".repeat(1000)
    );
    let answer = answer_to_raw(&mut client, deep.as_bytes()).await;
    assert_error_and_serving(&mut client, &answer, -32700, json!(7)).await;
}

#[tokio::test]
async fn a_line_longer_than_the_limit_is_a_parse_error_and_skipped() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    // 16 MiB of string: the line is over the limit with its head and tail.
    let mut long = br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{"a":""#.to_vec();
    long.resize(long.len() + 16 * 1024 * 1024, b'x');
    long.extend_from_slice(br#""}}}"#);
    let answer = answer_to_raw(&mut client, &long).await;
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("longer than 16777216 bytes"), "{message}");
    assert_error_and_serving(&mut client, &answer, -32700, json!(8)).await;
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_invalid_params() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    for (id, arguments) in [(11, json!("a=1")), (12, json!([1, 2])), (13, json!(5))] {
        let (answer, _) = client
            .call(id, json!({"name": "add", "arguments": arguments}))
            .await;
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("arguments must be an object"), "{message}");
        assert_error_and_serving(&mut client, &answer, -32602, json!(id)).await;
    }
}

#[tokio::test]
async fn json_that_is_no_json_rpc_message_is_an_invalid_request() {
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let answer = answer_to_raw(&mut client, b"[1, 2, 3]").await;
    assert_error_and_serving(&mut client, &answer, -32600, Value::Null).await;
    let answer = answer_to_raw(&mut client, br#"{"jsonrpc":"2.0","id":14}"#).await;
    assert_error_and_serving(&mut client, &answer, -32600, json!(14)).await;
}

/// Logs at three levels, then answers.
#[tool]
fn chatty(ctx: &ToolContext) -> &'static str {
    ctx.log(tool_runtime::events::LogLevel::Debug, "looking around");
    ctx.log(tool_runtime::events::LogLevel::Info, "found 3 things");
    ctx.log(tool_runtime::events::LogLevel::Warning, "one looks odd");
    "done"
}

/// The `notifications/message` among `messages`, as (level, data, logger).
fn logs_of(messages: &[Value]) -> Vec<(String, String, String)> {
    messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| {
            let params = &m["params"];
            (
                params["level"].as_str().unwrap_or_default().to_owned(),
                params["data"].as_str().unwrap_or_default().to_owned(),
                params["logger"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_tools_log_reaches_the_client_at_the_level_it_set() {
    let registry = Registry::builder().tool(ChattyTool).build().unwrap();
    let (mut client, init) = Client::start(McpServer::new(registry)).await;
    assert!(
        init["result"]["capabilities"]["logging"].is_object(),
        "{init}"
    );

    // Until the client sets a level, every message is sent.
    let (answer, before) = client.call(1, json!({"name": "chatty"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    let levels: Vec<String> = logs_of(&before)
        .into_iter()
        .map(|(level, ..)| level)
        .collect();
    assert_eq!(levels, ["debug", "info", "warning"]);
    assert_eq!(
        logs_of(&before)[1],
        (
            "info".to_owned(),
            "found 3 things".to_owned(),
            "chatty".to_owned()
        )
    );

    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
            "params": {"level": "warning"}}),
        )
        .await;
    let (set, _) = client.response(2).await;
    assert!(set.get("error").is_none(), "{set}");
    let (_, before) = client.call(3, json!({"name": "chatty"})).await;
    let kept: Vec<(String, String, String)> = logs_of(&before);
    assert_eq!(
        kept,
        [(
            "warning".to_owned(),
            "one looks odd".to_owned(),
            "chatty".to_owned()
        )]
    );
}

/// The answer to one HTTP/1.1 request: its status, its headers (names in
/// lower case) and the JSON-RPC messages of its body (one JSON document, or
/// each event of an event stream).
#[cfg(feature = "http")]
struct HttpAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    messages: Vec<Value>,
    /// The body as it came.
    raw: String,
}

#[cfg(feature = "http")]
impl HttpAnswer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The message answering request `id`.
    fn response(&self, id: i64) -> &Value {
        self.messages
            .iter()
            .find(|message| message.get("id") == Some(&json!(id)))
            .unwrap_or_else(|| panic!("no answer to request {id} in {:?}", self.messages))
    }
}

/// Sends `method` (with `body`, as JSON, when given) to the MCP endpoint of
/// the server on `address`, on a connection of its own that the server
/// closes after answering, and reads the answer.
#[cfg(feature = "http")]
async fn http_request(
    address: std::net::SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> HttpAnswer {
    use tokio::io::AsyncReadExt;
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
         Accept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        address.port(),
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw))
        .await
        .expect("the server answers and closes the connection")
        .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a complete head");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    let chunked = headers
        .iter()
        .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let is_stream = headers
        .iter()
        .any(|(name, value)| name == "content-type" && value.starts_with("text/event-stream"));
    let messages = if is_stream {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    } else if body.trim_start().starts_with('{') {
        vec![serde_json::from_str(&body).unwrap()]
    } else {
        Vec::new()
    };
    HttpAnswer {
        status: status.parse().unwrap(),
        headers,
        messages,
        raw: body,
    }
}

/// The payload of a body in chunked transfer encoding.
#[cfg(feature = "http")]
fn dechunk(mut body: &str) -> String {
    let mut payload = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return payload;
        }
        payload.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}

#[cfg(feature = "http")]
#[tokio::test]
async fn stateless_instances_answer_one_clients_requests_in_turn() {
    use tool_mcp::server::HttpOptions;
    let shutdown = tool_runtime::context::CancellationToken::new();
    let mut instances = Vec::new();
    let mut servers = Vec::new();
    for _ in 0..2 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        instances.push(listener.local_addr().unwrap());
        servers.push(tokio::spawn(McpServer::new(registry()).serve_http_with(
            listener,
            HttpOptions::new().stateless(true),
            shutdown.clone(),
        )));
    }
    let (a, b) = (instances[0], instances[1]);
    let no_session = |answer: &HttpAnswer, what: &str| {
        assert_eq!(
            answer.header("mcp-session-id"),
            None,
            "{what}: a stateless server sent a session id"
        );
    };

    // The handshake: initialize on A, the initialized notification on B.
    let init = http_request(
        a,
        "POST",
        &[],
        Some(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        ),
    )
    .await;
    assert_eq!(init.status, 200);
    no_session(&init, "initialize");
    let result = &init.response(1)["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert!(result["capabilities"]["tools"].is_object());
    let version = [("MCP-Protocol-Version", "2025-06-18")];
    let initialized = http_request(
        b,
        "POST",
        &version,
        Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(initialized.status, 202);
    no_session(&initialized, "notifications/initialized");

    // tools/list on A, then calls on B and A in turn, each answered by the
    // instance it reached, none of which has seen the client before.
    let list = http_request(
        a,
        "POST",
        &version,
        Some(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
    )
    .await;
    assert_eq!(list.status, 200);
    no_session(&list, "tools/list");
    let names: Vec<&Value> = list.response(2)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| &tool["name"])
        .collect();
    assert!(names.contains(&&json!("add")), "{names:?}");
    for id in 3..9_i64 {
        let instance = if id % 2 == 1 { b } else { a };
        let call = http_request(
            instance,
            "POST",
            &version,
            Some(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": id, "b": 100}}})),
        )
        .await;
        assert_eq!(call.status, 200, "call {id}");
        no_session(&call, "tools/call");
        let result = &call.response(id)["result"];
        assert_eq!(result["isError"], false, "call {id}: {result}");
        assert_eq!(result["content"][0]["text"], (id + 100).to_string());
    }

    // A call's progress comes back on its own response.
    let call = http_request(
        b,
        "POST",
        &version,
        Some(
            &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "wobble", "arguments": {}, "_meta": {"progressToken": "w"}}}),
        ),
    )
    .await;
    assert_eq!(call.status, 200);
    no_session(&call, "tools/call with progress");
    assert_eq!(call.response(9)["result"]["content"][0]["text"], "done");
    let progress: Vec<Value> = progress_of(&call.messages)
        .iter()
        .map(|p| p["progress"].clone())
        .collect();
    assert_eq!(progress, [json!(0.5), json!(0.75), json!(1.0)]);

    // No session, so no standalone stream to open.
    let get = http_request(a, "GET", &version, None).await;
    assert_eq!(get.status, 405);

    shutdown.cancel();
    for server in servers {
        server.await.unwrap().unwrap();
    }
}

#[tokio::test]
async fn initialize_answers_with_the_clients_version_or_the_newest_with_initialize() {
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let mut client = Client::open(McpServer::new(registry()));
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": asked,
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"}
                }}),
            )
            .await;
        let (init, _) = client.response(1).await;
        assert_eq!(init["result"]["protocolVersion"], answered, "asked {asked}");
    }
}

#[tokio::test]
async fn a_call_with_more_in_its_meta_is_answered_the_same() {
    // A plain call (progress token at most) and one whose `_meta` holds
    // more take different paths through the server; the answers agree.
    let (mut client, _) = Client::start(McpServer::new(registry())).await;
    let (plain, _) = client
        .call(1, json!({"name": "add", "arguments": {"a": 2, "b": 3}}))
        .await;
    let (with_meta, _) = client
        .call(
            2,
            json!({"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": {"trace": "x"}}),
        )
        .await;
    assert_eq!(plain["result"], with_meta["result"]);
    assert!(plain["result"].get("resultType").is_none(), "{plain}");
    let (unknown, _) = client
        .call(3, json!({"name": "nope", "arguments": {}}))
        .await;
    let (unknown_with_meta, _) = client
        .call(
            4,
            json!({"name": "nope", "arguments": {}, "_meta": {"trace": "x"}}),
        )
        .await;
    assert_eq!(unknown["error"], unknown_with_meta["error"]);
    assert_eq!(unknown["error"]["code"], -32602);
}

#[cfg(feature = "http")]
#[tokio::test]
async fn http_calls_of_a_session_are_answered_as_json_or_as_a_stream_when_more_comes_first() {
    let shutdown = tool_runtime::context::CancellationToken::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(McpServer::new(registry()).serve_http(listener, shutdown.clone()));
    let session = http_session(address, "2025-06-18").await;
    let with_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let call = |id: i64, name: &str, meta: Option<Value>| {
        let arguments = if name == "add" {
            json!({"a": 2, "b": 3})
        } else {
            json!({})
        };
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    // The answer is all there is: one JSON document.
    let plain = http_request(address, "POST", &with_session, Some(&call(1, "add", None))).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-type"), Some("application/json"));
    assert_eq!(
        plain.response(1)["result"]["structuredContent"],
        json!({"result": 5})
    );
    // A progress token the tool never reports on: the same.
    let token = Some(json!({"progressToken": "p"}));
    let quiet = http_request(address, "POST", &with_session, Some(&call(2, "add", token))).await;
    assert_eq!(quiet.header("content-type"), Some("application/json"));
    assert_eq!(quiet.response(2)["result"], plain.response(1)["result"]);
    // Progress comes first: an event stream, the answer last.
    let token = Some(json!({"progressToken": "w"}));
    let streamed = http_request(
        address,
        "POST",
        &with_session,
        Some(&call(3, "wobble", token)),
    )
    .await;
    assert_eq!(streamed.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        progress_of(&streamed.messages).len(),
        3,
        "{:?}",
        streamed.messages
    );
    assert_eq!(streamed.messages.last().unwrap()["id"], 3);
    assert_eq!(streamed.response(3)["result"]["content"][0]["text"], "done");

    // An unknown session: 404, whatever the body.
    let unknown = http_request(
        address,
        "POST",
        &[("Mcp-Session-Id", "no-such-session")],
        Some(&call(4, "add", None)),
    )
    .await;
    assert_eq!(unknown.status, 404);
    shutdown.cancel();
    server.await.unwrap().unwrap();
}

/// Opens a session on the server at `address` with `version`: `initialize`
/// and `notifications/initialized`; its id.
#[cfg(feature = "http")]
async fn http_session(address: std::net::SocketAddr, version: &str) -> String {
    let init = http_request(
        address,
        "POST",
        &[],
        Some(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        ),
    )
    .await;
    assert_eq!(init.status, 200, "{}", init.raw);
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let initialized = http_request(
        address,
        "POST",
        &[
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", version),
        ],
        Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(initialized.status, 202);
    session
}

#[tokio::test]
async fn calls_in_flight_when_the_input_ends_are_answered_and_the_server_ends() {
    // The input ends right after the call, while the session may still be
    // setting up: the call is answered all the same, and the server ends.
    for _ in 0..20 {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        let served = tokio::spawn(McpServer::new(registry()).serve_io(server_read, server_write));
        let (read, mut writer) = tokio::io::split(client_end);
        for message in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}),
        ] {
            writer
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
        writer.shutdown().await.unwrap();
        drop(writer);
        let mut lines = BufReader::new(read).lines();
        let mut answers = Vec::new();
        while let Some(line) = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server answers or ends")
            .unwrap()
        {
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        let call = answers
            .iter()
            .find(|answer| answer["id"] == 2)
            .unwrap_or_else(|| panic!("the call is answered: {answers:?}"));
        assert_eq!(call["result"]["structuredContent"], json!({"result": 5}));
        tokio::time::timeout(Duration::from_secs(30), served)
            .await
            .expect("the server ends")
            .unwrap()
            .unwrap();
    }
}

#[tokio::test]
async fn requests_before_initialize_must_say_their_revision_and_the_stateless_one_is_served() {
    let mut client = Client::open(McpServer::new(registry()));
    let stateless_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });

    // No `initialize` and no revision in `_meta`: refused, naming what is
    // missing.
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let (refused, _) = client.response(1).await;
    assert_eq!(refused["error"]["code"], -32602);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    assert!(
        message.contains("io.modelcontextprotocol/clientCapabilities"),
        "{message}"
    );

    // A revision the server does not know.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "1999-01-01",
                "io.modelcontextprotocol/clientCapabilities": {}
            }}}),
        )
        .await;
    let (unknown, _) = client.response(2).await;
    assert_eq!(unknown["error"]["code"], -32022);
    assert_eq!(unknown["error"]["data"]["requested"], "1999-01-01");
    assert_eq!(unknown["error"]["data"]["supported"][0], "2026-07-28");

    // The stateless revision: served request by request, results marked
    // complete.
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
            "params": {"_meta": stateless_meta.clone()}}))
        .await;
    let (listed, _) = client.response(3).await;
    assert_eq!(listed["result"]["resultType"], "complete");
    assert_eq!(listed["result"]["tools"][0]["name"], "add");

    let mut meta = stateless_meta.clone();
    meta["progressToken"] = json!("p");
    let (sum, _) = client
        .call(
            4,
            json!({"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}),
        )
        .await;
    assert_eq!(sum["result"]["content"][0]["text"], "5");
    assert_eq!(sum["result"]["resultType"], "complete");
    assert_eq!(sum["result"]["isError"], false);

    // A call without the revision, before `initialize`: refused too.
    let (refused, _) = client
        .call(5, json!({"name": "add", "arguments": {"a": 2, "b": 3}}))
        .await;
    assert_eq!(refused["error"]["code"], -32602);

    // After `initialize`, a session's results have no `resultType`.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        )
        .await;
    let (init, _) = client.response(6).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let (sum, _) = client
        .call(7, json!({"name": "add", "arguments": {"a": 1, "b": 1}}))
        .await;
    assert_eq!(sum["result"]["content"][0]["text"], "2");
    assert!(sum["result"].get("resultType").is_none(), "{sum}");
}

/// Asks the client's model, then its user.
#[tool]
async fn ask(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample("Capital of France?").await?;
    let name: tool_runtime::context::Elicitation<Value> = ctx
        .elicit_with_schema(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        )
        .await?;
    Ok(format!("{} / {name:?}", sampled.text().unwrap_or_default()))
}

#[tokio::test]
async fn a_tools_requests_to_the_client_go_out_as_requests_and_their_answers_come_back() {
    let registry = Registry::builder().tool(AskTool).build().unwrap();
    let mut client = Client::open(McpServer::new(registry));
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"sampling": {}, "elicitation": {}},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        )
        .await;
    client.next().await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "call", "method": "tools/call",
            "params": {"name": "ask", "arguments": {}}}),
        )
        .await;

    let sampling = client.next().await;
    assert_eq!(sampling["method"], "sampling/createMessage");
    assert_eq!(
        sampling["params"]["messages"][0]["content"]["text"],
        "Capital of France?"
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": sampling["id"], "result": {
            "role": "assistant", "model": "m", "content": {"type": "text", "text": "Paris"}
        }}))
        .await;

    let elicitation = client.next().await;
    assert_eq!(elicitation["method"], "elicitation/create");
    assert_ne!(elicitation["id"], sampling["id"]);
    assert_eq!(elicitation["params"]["message"], "Your name?");
    client
        .send(
            json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {
                "action": "accept", "content": {"name": "Ada"}
            }}),
        )
        .await;

    let answer = client.next().await;
    assert_eq!(answer["id"], "call");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Paris / Accepted"), "{text}");
    assert!(text.contains("Ada"), "{text}");

    // An error answer reaches the tool as its error, with the client's
    // message.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "again", "method": "tools/call",
            "params": {"name": "ask", "arguments": {}}}),
        )
        .await;
    let sampling = client.next().await;
    client
        .send(json!({"jsonrpc": "2.0", "id": sampling["id"],
            "error": {"code": -1, "message": "the user said no"}}))
        .await;
    let answer = client.next().await;
    assert_eq!(answer["id"], "again");
    assert_eq!(answer["result"]["isError"], true);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("the user said no"), "{text}");
}

/// The `_meta` of a request of the 2026-07-28 revision, with the client's
/// `capabilities`.
fn modern(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

impl Client {
    /// The answer to request `id` of `method` with `params`, and every
    /// message before it.
    async fn request(&mut self, id: i64, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response(id).await
    }
}

#[tokio::test]
async fn the_stateless_revision_discovers_and_lists_with_caching_hints_and_the_servers_name() {
    let server = McpServer::new(registry())
        .with_implementation("tools", "1.2.3")
        .with_instructions("Add with add.")
        .with_list_ttl(Duration::from_secs(30));
    let mut client = Client::open(server);
    let server_info = json!({"name": "tools", "version": "1.2.3"});

    let (discovered, _) = client
        .request(1, "server/discover", json!({"_meta": modern(json!({}))}))
        .await;
    let result = &discovered["result"];
    assert_eq!(result["resultType"], "complete", "{discovered}");
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(result["instructions"], "Add with add.");
    assert_eq!(result["ttlMs"], 30_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        server_info
    );
    // Not in the body: the revision moved it to `_meta`.
    assert!(result.get("serverInfo").is_none(), "{result}");

    let (listed, _) = client
        .request(2, "tools/list", json!({"_meta": modern(json!({}))}))
        .await;
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["ttlMs"], 30_000);
    assert_eq!(result["cacheScope"], "public");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        server_info
    );
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "wait_forever", "wobble"]);

    let (sum, _) = client
        .call(
            3,
            json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": modern(json!({}))}),
        )
        .await;
    assert_eq!(sum["result"]["resultType"], "complete");
    assert_eq!(
        sum["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        server_info
    );
    // The errors of the revision: a tool it does not have, arguments that
    // are not an object.
    let (unknown, _) = client
        .call(4, json!({"name": "nope", "_meta": modern(json!({}))}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let (bad, _) = client
        .call(
            5,
            json!({"name": "add", "arguments": [1, 2], "_meta": modern(json!({}))}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // The methods the revision removed, and unknown ones: -32601, even
    // `initialize` and `ping`.
    for (id, method) in [
        (6, "initialize"),
        (7, "ping"),
        (8, "logging/setLevel"),
        (9, "resources/subscribe"),
        (10, "unknown/method"),
    ] {
        let (answer, _) = client
            .request(id, method, json!({"_meta": modern(json!({}))}))
            .await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
        assert_eq!(answer["id"], id);
    }

    // `_meta` missing what the revision requires: -32602; `clientInfo` is
    // not required.
    let (missing, _) = client
        .request(
            11,
            "server/discover",
            json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28"
            }}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let (no_info, _) = client
        .request(
            12,
            "server/discover",
            json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }}),
        )
        .await;
    assert_eq!(no_info["result"]["resultType"], "complete", "{no_info}");
    let mut meta = modern(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("loud");
    let (level, _) = client
        .request(13, "tools/list", json!({"_meta": meta}))
        .await;
    assert_eq!(level["error"]["code"], -32602, "{level}");

    // An unknown version: -32022, echoing it and naming those served.
    let mut meta = modern(json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let (version, _) = client
        .request(14, "server/discover", json!({"_meta": meta}))
        .await;
    assert_eq!(version["error"]["code"], -32022, "{version}");
    assert_eq!(version["error"]["data"]["requested"], "v999.0.0");
    assert_eq!(
        version["error"]["data"]["supported"],
        discovered["result"]["supportedVersions"]
    );

    // A session of an earlier revision on the same connection is served as
    // before, and a request naming the new revision is still served by it.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 15, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        )
        .await;
    let (init, _) = client.response(15).await;
    assert_eq!(init["result"]["serverInfo"], server_info);
    let (listed, _) = client.request(16, "tools/list", json!({})).await;
    assert!(listed["result"].get("resultType").is_none(), "{listed}");
    assert!(listed["result"].get("ttlMs").is_none(), "{listed}");
    let (listed, _) = client
        .request(17, "tools/list", json!({"_meta": modern(json!({}))}))
        .await;
    assert_eq!(listed["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_stateless_call_logs_only_when_and_as_its_meta_asks() {
    let registry = Registry::builder().tool(ChattyTool).build().unwrap();
    let mut client = Client::open(McpServer::new(registry));
    let (answer, before) = client
        .call(1, json!({"name": "chatty", "_meta": modern(json!({}))}))
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    assert!(logs_of(&before).is_empty(), "{before:?}");

    let mut meta = modern(json!({}));
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    let (_, before) = client
        .call(2, json!({"name": "chatty", "_meta": meta}))
        .await;
    let levels: Vec<String> = logs_of(&before)
        .into_iter()
        .map(|(level, ..)| level)
        .collect();
    assert_eq!(levels, ["info", "warning"]);
}

#[tokio::test]
async fn subscriptions_listen_acknowledges_then_brings_tool_changes_tagged_with_its_id() {
    let live = tool_runtime::registry::LiveRegistry::new(registry());
    let mut client = Client::open(McpServer::new(live.clone()));
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {
                "_meta": modern(json!({})),
                "notifications": {"toolsListChanged": true, "promptsListChanged": true}
            }}),
        )
        .await;
    let ack = client.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    // Only what the server has: no prompts.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );

    // A second subscription, to prompts only, hears nothing of tools.
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
                "_meta": modern(json!({})),
                "notifications": {"promptsListChanged": true}
            }}),
        )
        .await;
    let ack = client.next().await;
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(ack["params"]["notifications"], json!({}));

    live.insert(dynamic("greet", "hello")).unwrap();
    let change = client.next().await;
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );

    // The same id again while it is open: refused.
    let (again, _) = client
        .request(
            7,
            "subscriptions/listen",
            json!({
                "_meta": modern(json!({})), "notifications": {"toolsListChanged": true}
            }),
        )
        .await;
    assert_eq!(again["error"]["code"], -32600, "{again}");

    // Cancelled by the client: no answer, and no more notifications.
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "sub"}}),
        )
        .await;
    let (pong, before) = client
        .request(8, "tools/list", json!({"_meta": modern(json!({}))}))
        .await;
    assert!(pong.get("result").is_some());
    assert!(before.is_empty(), "{before:?}");
    live.insert(dynamic("wave", "o/")).unwrap();
    let (_, before) = client
        .request(9, "tools/list", json!({"_meta": modern(json!({}))}))
        .await;
    assert!(before.is_empty(), "{before:?}");

    // The input ends: the open subscription is answered, closed gracefully.
    client.writer.shutdown().await.unwrap();
    let closed = client.next().await;
    assert_eq!(closed["id"], 7, "{closed}");
    assert_eq!(closed["result"]["resultType"], "complete");
    assert_eq!(
        closed["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );

    // Without a filter: invalid params.
    let mut client = Client::open(McpServer::new(registry()));
    let (refused, _) = client
        .request(
            1,
            "subscriptions/listen",
            json!({"_meta": modern(json!({}))}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

static ROUNDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Asks for a name and a greeting at once, then for the user's roots, and
/// counts the runs of its start.
#[tool]
async fn greet_user(ctx: &ToolContext, punctuation: String) -> Result<String, ToolError> {
    ROUNDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let (name, greeting) = tokio::join!(
        ctx.elicit_request(
            tool_runtime::context::ElicitationRequest::new("Your name?", schema).named("user_name")
        ),
        ctx.sample(tool_runtime::context::SamplingRequest::new("A greeting?").max_tokens(20)),
    );
    let name = match name? {
        tool_runtime::context::Elicitation::Accepted(content) => {
            content["name"].as_str().unwrap_or("?").to_owned()
        }
        other => other.action().to_owned(),
    };
    let greeting = greeting?.text().unwrap_or_default().to_owned();
    let roots = ctx.roots().await?;
    Ok(format!(
        "{greeting}, {name}{punctuation} ({} roots)",
        roots.len()
    ))
}

#[tokio::test]
async fn in_the_stateless_revision_a_tools_requests_come_back_as_input_required_rounds() {
    let registry = Registry::builder().tool(GreetUserTool).build().unwrap();
    let key = b"a key of thirty-two bytes or so!";
    let mut client = Client::open(McpServer::new(registry.clone()).with_request_state_key(key));
    let all = || modern(json!({"elicitation": {}, "sampling": {}, "roots": {}}));
    let call = |id: i64, extra: Value| {
        let mut params =
            json!({"name": "greet_user", "arguments": {"punctuation": "!"}, "_meta": all()});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        (id, params)
    };

    // Round 1: the two requests made at once come together.
    let (id, params) = call(1, json!({}));
    let (first, before) = client.call(id, params).await;
    assert!(
        before.is_empty(),
        "no request goes to the client: {before:?}"
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 2, "{first}");
    assert_eq!(requests["user_name"]["method"], "elicitation/create");
    assert_eq!(requests["user_name"]["params"]["message"], "Your name?");
    let (sampling_key, sampling) = requests
        .iter()
        .find(|(key, _)| *key != "user_name")
        .unwrap();
    assert_eq!(sampling["method"], "sampling/createMessage");
    assert_eq!(sampling["params"]["maxTokens"], 20);
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

    // Round 2: both answered; the tool asks for the roots next.
    let answers = json!({
        "user_name": {"action": "accept", "content": {"name": "Ada"}},
        sampling_key.as_str(): {"role": "assistant", "model": "m",
            "content": {"type": "text", "text": "Hello"}},
        "something_else": {"ignored": true}
    });
    let (id, params) = call(2, json!({"inputResponses": answers, "requestState": state}));
    let (second, _) = client.call(id, params).await;
    let result = &second["result"];
    assert_eq!(result["resultType"], "input_required", "{second}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{second}");
    let (roots_key, roots) = requests.iter().next().unwrap();
    assert_eq!(roots["method"], "roots/list");
    let state2 = result["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state2, state);

    // Round 3: only the last answer is sent; the earlier ones travel in
    // the state.
    let answers = json!({roots_key.as_str(): {"roots": [{"uri": "file:///work", "name": "work"}]}});
    let (id, params) = call(
        3,
        json!({"inputResponses": answers, "requestState": state2}),
    );
    let (third, _) = client.call(id, params).await;
    assert_eq!(third["result"]["resultType"], "complete", "{third}");
    assert_eq!(
        third["result"]["content"][0]["text"],
        "Hello, Ada! (1 roots)"
    );
    // The code before the first request ran once per round.
    assert_eq!(ROUNDS.load(std::sync::atomic::Ordering::SeqCst), 3);

    // A state altered, or made with another key, is refused.
    let mut altered = state2.clone();
    altered.push_str("-TAMPERED");
    let (id, params) = call(4, json!({"inputResponses": {}, "requestState": altered}));
    let (refused, _) = client.call(id, params).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState")
    );
    let mut other = Client::open(McpServer::new(registry.clone()));
    let (id, params) = call(5, json!({"requestState": state2}));
    let (foreign, _) = other.call(id, params).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    // So is a state presented for other arguments.
    let (_, mut params) = call(6, json!({"requestState": state2}));
    params["arguments"]["punctuation"] = json!("?");
    let (moved, _) = client.call(6, params).await;
    assert_eq!(moved["error"]["code"], -32602, "{moved}");
    // And one past its lifetime.
    let mut brief = Client::open(
        McpServer::new(registry.clone())
            .with_request_state_key(key)
            .with_request_state_ttl(Duration::ZERO),
    );
    let (id, params) = call(7, json!({}));
    let (first, _) = brief.call(id, params).await;
    let state = first["result"]["requestState"].clone();
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (id, params) = call(8, json!({"requestState": state}));
    let (expired, _) = brief.call(id, params).await;
    assert_eq!(expired["error"]["code"], -32602, "{expired}");
    assert!(
        expired["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );

    // Answers that are not results: invalid params.
    let (id, params) = call(9, json!({"inputResponses": {"user_name": 12345}}));
    let (invalid, _) = client.call(id, params).await;
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
    // An answer given without a state answers nothing the server asked:
    // every question is asked again.
    let (id, params) = call(
        10,
        json!({"inputResponses": {
            "user_name": {"action": "decline"}
        }}),
    );
    let (again, _) = client.call(id, params).await;
    let requests = again["result"]["inputRequests"].as_object().unwrap();
    assert!(requests.contains_key("user_name"), "{again}");
}

#[tokio::test]
async fn in_the_stateless_revision_a_request_needing_an_undeclared_capability_is_error_32021() {
    let registry = Registry::builder().tool(AskTool).build().unwrap();
    let mut client = Client::open(McpServer::new(registry));
    let (refused, before) = client
        .call(
            1,
            json!({"name": "ask", "_meta": modern(json!({"elicitation": {}}))}),
        )
        .await;
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

/// Waits until the call is stopped.
#[tool]
async fn hold() -> &'static str {
    std::future::pending::<()>().await;
    "never"
}

impl Client {
    /// The next line from the server, as written.
    async fn next_raw(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server keeps the pipe open")
    }
}

#[tokio::test]
async fn a_client_that_does_not_read_stops_the_server_reading_so_its_output_stays_bounded() {
    const REQUESTS: usize = 5_000;
    let server = McpServer::new(registry()).with_output_buffer(64 * 1024);
    let (client_end, server_end) = tokio::io::duplex(4096);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve_io(server_read, server_write));
    let (read, mut writer) = tokio::io::split(client_end);
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&written);
    let writing = tokio::spawn(async move {
        for id in 0..REQUESTS {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
                "params": {"_meta": modern(json!({}))}});
            writer
                .write_all(format!("{request}\n").as_bytes())
                .await
                .unwrap();
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        writer
    });

    // Nobody reads the answers (each over a kilobyte): the output queue
    // fills, the server stops reading, and the client cannot write on.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = written.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        before < REQUESTS / 10,
        "{before} of {REQUESTS} requests were taken in"
    );

    // Once the client reads, every request is answered, none lost.
    let mut lines = BufReader::new(read).lines();
    for id in 0..REQUESTS {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
    }
    writing.await.unwrap();
}

#[tokio::test]
async fn a_session_runs_at_most_its_limit_of_calls_and_refuses_more_clearly() {
    let registry = Registry::builder()
        .tool(HoldTool)
        .tool(AddTool)
        .build()
        .unwrap();
    let (mut client, _) =
        Client::start(McpServer::new(registry).with_max_concurrent_calls(2)).await;
    for id in [1, 2] {
        client
            .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "hold"}}))
            .await;
    }
    let (busy, _) = client
        .call(3, json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
        .await;
    assert_eq!(busy["error"]["code"], -32603, "{busy}");
    assert_eq!(busy["error"]["data"]["maxConcurrentCalls"], 2);
    let message = busy["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 calls"), "{message}");

    // A call that ends makes room.
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1}}),
        )
        .await;
    let mut answered = None;
    for id in 4..50 {
        let (answer, _) = client
            .call(id, json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
            .await;
        if answer.get("result").is_some() {
            answered = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let answer = answered.expect("a call is served once one ended");
    assert_eq!(answer["result"]["content"][0]["text"], "3");
    assert_eq!(McpServer::DEFAULT_MAX_CONCURRENT_CALLS, 64);
}

#[tokio::test]
async fn a_request_reusing_the_id_of_one_in_flight_is_an_invalid_request() {
    let registry = Registry::builder()
        .tool(HoldTool)
        .tool(AddTool)
        .build()
        .unwrap();
    let (mut client, _) = Client::start(McpServer::new(registry)).await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": "same", "method": "tools/call",
            "params": {"name": "hold"}}),
        )
        .await;
    let (duplicate, _) = client
        .send_then_response(
            json!({"jsonrpc": "2.0", "id": "same", "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
            json!("same"),
        )
        .await;
    assert_eq!(duplicate["error"]["code"], -32600, "{duplicate}");
    assert!(
        duplicate["error"]["message"]
            .as_str()
            .unwrap()
            .contains("in flight"),
        "{duplicate}"
    );

    // The first is still the one in flight: cancelling it ends it, and the
    // id is free again.
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": "same"}}),
        )
        .await;
    let mut answered = None;
    for _ in 0..50 {
        let (answer, _) = client
            .send_then_response(
                json!({"jsonrpc": "2.0", "id": "same", "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 2, "b": 2}}}),
                json!("same"),
            )
            .await;
        if answer.get("result").is_some() {
            answered = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        answered.expect("the id is free once the call ended")["result"]["content"][0]["text"],
        "4"
    );
}

impl Client {
    /// Sends `message` and waits for the answer whose id is `id`.
    async fn send_then_response(&mut self, message: Value, id: Value) -> (Value, Vec<Value>) {
        self.send(message).await;
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }
}

#[tokio::test]
async fn ids_come_back_exactly_as_sent_even_past_64_bits() {
    let registry = Registry::builder()
        .tool(HoldTool)
        .tool(AddTool)
        .build()
        .unwrap();
    let (mut client, _) = Client::start(McpServer::new(registry)).await;
    let big = "123456789012345678901234567890";
    for line in [
        // A call, read on its fast path.
        format!(
            r#"{{"jsonrpc":"2.0","id":{big},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
        ),
        // Any other request.
        format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#),
        // An error.
        format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"no/such"}}"#),
        // Written as a float, the id comes back as written too.
        r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#.to_owned(),
    ] {
        client.writer.write_all(line.as_bytes()).await.unwrap();
        client.writer.write_all(b"\n").await.unwrap();
        let answer = client.next_raw().await;
        let id = line
            .split(r#""id":"#)
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        assert!(
            answer.contains(&format!(r#""id":{id},"#)),
            "{answer} for {line}"
        );
    }

    // A call with such an id is cancelled by it.
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":{big},"method":"tools/call","params":{{"name":"hold"}}}}"#
    );
    client.writer.write_all(call.as_bytes()).await.unwrap();
    client.writer.write_all(b"\n").await.unwrap();
    let cancel = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{big}}}}}"#
    );
    client.writer.write_all(cancel.as_bytes()).await.unwrap();
    client.writer.write_all(b"\n").await.unwrap();
    let mut freed = false;
    for _ in 0..50 {
        let again = format!(
            r#"{{"jsonrpc":"2.0","id":{big},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":1}}}}}}"#
        );
        client.writer.write_all(again.as_bytes()).await.unwrap();
        client.writer.write_all(b"\n").await.unwrap();
        let answer = client.next_raw().await;
        assert!(answer.contains(big), "{answer}");
        if answer.contains(r#""result""#) {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(freed, "the cancelled call ended and freed its id");
}

/// `cargo tree` of this crate without its default features: a server that
/// speaks stdio alone builds neither rmcp nor hyper, one that speaks
/// streamable HTTP too builds hyper and no rmcp; and the core builds none
/// of the command line's or the server's crates.
#[test]
fn a_stdio_only_server_builds_neither_rmcp_nor_hyper() {
    let tree = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO"))
            .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        text.lines()
            .filter_map(|line| line.split_whitespace().next())
            .map(str::to_owned)
            .collect::<std::collections::BTreeSet<_>>()
    };
    let stdio_only = tree(&["-p", "tool-mcp", "--no-default-features"]);
    assert!(stdio_only.contains("tool-runtime"), "{stdio_only:?}");
    for absent in ["rmcp", "hyper", "reqwest"] {
        assert!(!stdio_only.contains(absent), "{absent} in {stdio_only:?}");
    }
    let core = tree(&["-p", "tool-runtime"]);
    for absent in ["rmcp", "hyper", "clap", "indicatif"] {
        assert!(!core.contains(absent), "{absent} in {core:?}");
    }
    // Streamable HTTP is the server's own too: hyper, no rmcp.
    let with_http = tree(&[
        "-p",
        "tool-mcp",
        "--no-default-features",
        "--features",
        "http",
    ]);
    assert!(with_http.contains("hyper"), "{with_http:?}");
    assert!(!with_http.contains("rmcp"), "{with_http:?}");
}

/// Sleeps `ms` milliseconds: calls may run as tasks.
#[tool(task)]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Runs only as a task.
#[tool(task = "required")]
fn batch() -> &'static str {
    "batched"
}

/// Panics: its task fails.
#[tool(task)]
fn crash() -> &'static str {
    panic!("crashed")
}

/// Asks two questions at once, then a third: in a task, each waits in
/// the task for `tasks/update`.
#[tool(task)]
async fn survey(ctx: &ToolContext) -> Result<String, ToolError> {
    use tool_runtime::{context::Elicitation, context::ElicitationRequest};
    let question = |name: &str| {
        ElicitationRequest::new(
            format!("{name}?"),
            json!({"type": "object", "properties": {"v": {"type": "string"}}}),
        )
        .named(name)
    };
    let value = |answer: Result<Elicitation<Value>, ToolError>| match answer {
        Ok(Elicitation::Accepted(content)) => content["v"].as_str().unwrap_or("").to_owned(),
        other => format!("{other:?}"),
    };
    let (first, second) = tokio::join!(
        ctx.elicit_request(question("first")),
        ctx.elicit_request(question("second"))
    );
    let third = ctx.elicit_request(question("first")).await;
    Ok(format!(
        "{} {} {}",
        value(first),
        value(second),
        value(third)
    ))
}

/// Asks for a name first, then works on as a task.
#[tool(task = "after_input")]
async fn onboard(ctx: &ToolContext) -> Result<String, ToolError> {
    use tool_runtime::{context::Elicitation, context::ElicitationRequest};
    let request = ElicitationRequest::new(
        "Your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}}),
    )
    .named("user_name");
    match ctx.elicit_request(request).await? {
        Elicitation::Accepted(content) => Ok(format!("welcome, {}", content["name"])),
        other => Ok(format!("{other:?}")),
    }
}

#[path = "server/tasks.rs"]
mod tasks;

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A server of the task tools, serving tasks with `options`.
fn task_server(options: tool_tasks::TaskOptions) -> McpServer {
    let registry = Registry::builder()
        .tool(AddTool)
        .tool(NapTool)
        .tool(BatchTool)
        .tool(CrashTool)
        .tool(SurveyTool)
        .tool(OnboardTool)
        .build()
        .unwrap();
    McpServer::new(registry).with_tasks(tool_tasks::Tasks::in_memory().with_options(options))
}

/// The `_meta` of a stateless request declaring the tasks extension.
fn with_tasks() -> Value {
    modern(json!({"elicitation": {}, "extensions": {TASKS: {}}}))
}

impl Client {
    /// The result of `method` with `params` (and the tasks extension
    /// declared), asserted to be one.
    async fn task_request(&mut self, id: i64, method: &str, task_id: &Value) -> Value {
        let params = json!({"taskId": task_id, "_meta": with_tasks()});
        let (answer, _) = self.request(id, method, params).await;
        assert!(answer["error"].is_null(), "{answer}");
        answer["result"].clone()
    }

    /// Polls `tasks/get` until the task's status is not `working`.
    async fn settled(&mut self, mut id: i64, task_id: &Value) -> Value {
        loop {
            let task = self.task_request(id, "tasks/get", task_id).await;
            if task["status"] != "working" {
                return task;
            }
            id += 1;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

fn is_iso_8601(value: &Value) -> bool {
    let text = value.as_str().unwrap_or("");
    text.len() == 24 && text.as_bytes()[10] == b'T' && text.ends_with('Z')
}

#[tokio::test]
async fn the_tasks_extension_is_advertised_and_a_declaring_call_becomes_a_task() {
    let mut client = Client::open(task_server(Default::default()));
    let (discover, _) = client
        .request(1, "server/discover", json!({"_meta": modern(json!({}))}))
        .await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({TASKS: {}})
    );
    // The listing is unchanged.
    let (list, _) = client
        .request(2, "tools/list", json!({"_meta": modern(json!({}))}))
        .await;
    let nap = &list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "nap")
        .unwrap()
        .clone();
    assert!(nap.get("execution").is_none(), "{nap}");

    let (created, _) = client
        .call(
            3,
            json!({"name": "nap", "arguments": {"ms": 50}, "_meta": with_tasks()}),
        )
        .await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    assert_eq!(created["taskId"].as_str().unwrap().len(), 32);
    assert!(is_iso_8601(&created["createdAt"]), "{created}");
    assert!(is_iso_8601(&created["lastUpdatedAt"]), "{created}");
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 1000);
    for absent in ["result", "error", "inputRequests", "requestState", "task"] {
        assert!(created.get(absent).is_none(), "{absent}: {created}");
    }
    let task_id = &created["taskId"];

    let working = client.task_request(4, "tasks/get", task_id).await;
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["taskId"], *task_id);
    assert!(working.get("result").is_none() && working.get("error").is_none());

    let done = client.settled(5, task_id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "slept 50 ms");
    assert_eq!(done["result"]["isError"], false);
    assert!(done.get("error").is_none());

    // Cancelling an ended task: the same empty acknowledgement.
    let ack = client.task_request(100, "tasks/cancel", task_id).await;
    assert_eq!(ack["resultType"], "complete");
    for absent in ["taskId", "status", "result"] {
        assert!(ack.get(absent).is_none(), "{ack}");
    }
}

#[tokio::test]
async fn without_the_extension_calls_run_in_the_request_and_tasks_methods_are_refused() {
    let mut client = Client::open(task_server(Default::default()));
    let plain = modern(json!({}));
    let (called, _) = client
        .call(
            1,
            json!({"name": "nap", "arguments": {"ms": 1}, "_meta": plain}),
        )
        .await;
    assert_eq!(called["result"]["resultType"], "complete", "{called}");
    assert_eq!(called["result"]["content"][0]["text"], "slept 1 ms");

    // A tool that requires tasks: -32021, naming the extension.
    let (refused, _) = client
        .call(2, json!({"name": "batch", "_meta": plain}))
        .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    for (id, method) in [(3, "tasks/get"), (4, "tasks/update"), (5, "tasks/cancel")] {
        let (refused, _) = client
            .request(id, method, json!({"taskId": "x", "_meta": plain}))
            .await;
        assert_eq!(refused["error"]["code"], -32021, "{method}: {refused}");
    }
    // Removed methods are unknown, and a tool without task support never
    // becomes a task.
    let (unknown, _) = client
        .request(6, "tasks/list", json!({"_meta": with_tasks()}))
        .await;
    assert_eq!(unknown["error"]["code"], -32601);
    let (added, _) = client
        .call(
            7,
            json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": with_tasks(),
                   "task": {"ttl": 1000}}),
        )
        .await;
    assert_eq!(added["result"]["content"][0]["text"], "3", "{added}");
    // An unknown task id is invalid params.
    let (unknown, _) = client
        .request(
            8,
            "tasks/get",
            json!({"taskId": "nope", "_meta": with_tasks()}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test]
async fn a_session_that_declared_the_extension_at_initialize_gets_tasks() {
    let mut client = Client::open(task_server(Default::default()));
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"extensions": {TASKS: {}}},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        )
        .await;
    let (init, _) = client.response(0).await;
    assert_eq!(
        init["result"]["capabilities"]["extensions"],
        json!({TASKS: {}})
    );
    let (created, _) = client.call(1, json!({"name": "batch"})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert!(created["result"].get("_meta").is_none());
    let task_id = created["result"]["taskId"].clone();
    let (done, _) = loop {
        let (task, before) = client
            .request(2, "tasks/get", json!({"taskId": task_id}))
            .await;
        if task["result"]["status"] != "working" {
            break (task, before);
        }
    };
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "batched");
}

#[tokio::test]
async fn a_panic_fails_the_task_and_a_cancel_cancels_it() {
    let mut client = Client::open(task_server(Default::default()));
    let (created, _) = client
        .call(1, json!({"name": "crash", "_meta": with_tasks()}))
        .await;
    let failed = client.settled(2, &created["result"]["taskId"]).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed["error"]["message"].is_string());
    assert!(failed.get("result").is_none(), "{failed}");

    let (created, _) = client
        .call(
            100,
            json!({"name": "nap", "arguments": {"ms": 60_000}, "_meta": with_tasks()}),
        )
        .await;
    let task_id = &created["result"]["taskId"];
    let ack = client.task_request(101, "tasks/cancel", task_id).await;
    assert_eq!(ack["resultType"], "complete");
    let cancelled = client.settled(102, task_id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
}

#[tokio::test]
async fn a_tasks_questions_wait_in_the_task_and_tasks_update_answers_them() {
    let mut client = Client::open(task_server(Default::default()));
    let (created, _) = client
        .call(1, json!({"name": "survey", "_meta": with_tasks()}))
        .await;
    let task_id = created["result"]["taskId"].clone();
    let mut id = 2;
    let waiting = |task: &Value, keys: usize| {
        task["status"] == "input_required"
            && task["inputRequests"].as_object().map_or(0, |r| r.len()) == keys
    };
    let task = loop {
        id += 1;
        let task = client.task_request(id, "tasks/get", &task_id).await;
        if waiting(&task, 2) {
            break task;
        }
    };
    assert_eq!(
        task["inputRequests"]["first"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        task["inputRequests"]["second"]["params"]["message"],
        "second?"
    );
    assert!(task.get("requestState").is_none());

    // A partial answer (and one for a key nobody asked): the other waits.
    let update = |id: i64, responses: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tasks/update", "params": {
            "taskId": task_id, "inputResponses": responses, "_meta": with_tasks()}})
    };
    client
        .send(update(
            50,
            json!({"first": {"action": "accept", "content": {"v": "a"}}, "zzz": {}}),
        ))
        .await;
    let (ack, _) = client.response(50).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let task = client.task_request(51, "tasks/get", &task_id).await;
    assert_eq!(task["status"], "input_required");
    let keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["second"]);

    client
        .send(update(
            52,
            json!({"second": {"action": "accept", "content": {"v": "b"}}}),
        ))
        .await;
    client.response(52).await;
    // The third question reuses the name `first`: a new key.
    let task = loop {
        id += 1;
        let task = client.task_request(id, "tasks/get", &task_id).await;
        if task["status"] == "input_required" && task["inputRequests"].get("second").is_none() {
            break task;
        }
    };
    let keys: Vec<String> = task["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 1);
    assert_ne!(keys[0], "first", "keys are unique over the task's life");
    client
        .send(update(
            90,
            json!({&keys[0]: {"action": "accept", "content": {"v": "c"}}}),
        ))
        .await;
    client.response(90).await;
    let done = client.settled(91, &task_id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "a b c");
}

#[tokio::test]
async fn tasks_beyond_the_limit_are_refused_and_options_reach_the_wire() {
    let options = tool_tasks::TaskOptions::default()
        .with_max_running(1)
        .with_poll_interval(Duration::from_millis(250))
        .with_ttl(None);
    let mut client = Client::open(task_server(options));
    let (first, _) = client
        .call(
            1,
            json!({"name": "nap", "arguments": {"ms": 60_000}, "_meta": with_tasks()}),
        )
        .await;
    assert_eq!(first["result"]["pollIntervalMs"], 250, "{first}");
    assert_eq!(first["result"]["ttlMs"], Value::Null);
    let (second, _) = client
        .call(
            2,
            json!({"name": "nap", "arguments": {"ms": 1}, "_meta": with_tasks()}),
        )
        .await;
    assert_eq!(second["error"]["code"], -32603, "{second}");
    assert_eq!(second["error"]["data"]["maxRunningTasks"], 1);
}

/// A tool that becomes a task once it has its input: the first call runs
/// in the request, an `input_required` round; the retry that brings the
/// answer is a task, which runs the tool with it. A tampered state is
/// refused on the way.
#[tokio::test]
async fn a_tool_gathers_its_input_in_rounds_then_becomes_a_task() {
    let mut client = Client::open(task_server(Default::default()));
    let (first, _) = client
        .call(
            1,
            json!({"name": "onboard", "arguments": {}, "_meta": with_tasks()}),
        )
        .await;
    let first = &first["result"];
    assert_eq!(first["resultType"], "input_required", "{first}");
    assert!(first.get("taskId").is_none(), "{first}");
    assert_eq!(
        first["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state = first["requestState"].as_str().unwrap().to_owned();

    let mut tampered = state.clone();
    tampered.insert(0, 'x');
    let (refused, _) = client
        .call(
            2,
            json!({"name": "onboard", "arguments": {}, "_meta": with_tasks(),
                   "inputResponses": {}, "requestState": tampered}),
        )
        .await;
    assert!(refused["error"]["code"].is_number(), "{refused}");

    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}});
    let (second, _) = client
        .call(
            3,
            json!({"name": "onboard", "arguments": {}, "_meta": with_tasks(),
                   "inputResponses": answers, "requestState": state}),
        )
        .await;
    let created = &second["result"];
    assert_eq!(created["resultType"], "task", "{second}");
    assert!(created.get("requestState").is_none(), "{created}");
    let done = client.settled(4, &created["taskId"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "welcome, \"Ada\"");

    // Without the extension the tool is refused, as a required one is.
    let (no_tasks, _) = client
        .call(
            10,
            json!({"name": "onboard", "arguments": {}, "_meta": modern(json!({"elicitation": {}}))}),
        )
        .await;
    assert_eq!(no_tasks["error"]["code"], -32021, "{no_tasks}");
}

/// A session runs at most `with_max_tasks_per_session` tasks at once: one
/// more is refused with the limit in its data, and once a task has ended
/// its place is free again.
#[tokio::test]
async fn a_session_runs_a_bounded_number_of_tasks() {
    let server = task_server(Default::default()).with_max_tasks_per_session(1);
    let mut client = Client::open(server);
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"extensions": {TASKS: {}}},
                "clientInfo": {"name": "test", "version": "1"}
            }}),
        )
        .await;
    client.response(0).await;
    let (first, _) = client
        .call(1, json!({"name": "nap", "arguments": {"ms": 300}}))
        .await;
    assert_eq!(first["result"]["resultType"], "task", "{first}");
    let (refused, _) = client
        .call(2, json!({"name": "nap", "arguments": {"ms": 1}}))
        .await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_eq!(refused["error"]["data"]["maxTasksPerSession"], 1);
    let task_id = first["result"]["taskId"].clone();
    let mut id = 3;
    loop {
        let (task, _) = client
            .request(id, "tasks/get", json!({"taskId": task_id}))
            .await;
        if task["result"]["status"] != "working" {
            break;
        }
        id += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The call's context (and the place it held) goes as the call ends.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (again, _) = client
        .call(1000, json!({"name": "nap", "arguments": {"ms": 1}}))
        .await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
}
