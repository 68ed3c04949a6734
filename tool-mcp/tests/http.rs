//! `McpServer::serve_http` at the wire: raw HTTP/1.1 over loopback
//! sockets, so that what a client sees (statuses, headers, when a
//! connection closes, each event of a stream) is what is checked: both
//! protocol eras, sessions, streams, and every limit of `HttpOptions`.

#![cfg(feature = "http")]

#[cfg(feature = "auth")]
#[path = "http/auth.rs"]
mod auth;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{
    Registry, ToolContext, ToolError, context::CancellationToken, events::Progress,
    registry::LiveRegistry, tool,
};

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

/// Reports progress, then finishes.
#[tool]
async fn steps(progress: Progress) -> &'static str {
    for fraction in [0.25, 0.5, 1.0] {
        progress.progress(fraction, format!("at {fraction}"));
        tokio::task::yield_now().await;
    }
    "done"
}

static STOPPED: Notify = Notify::const_new();

/// Reports that it started, then waits until the call is stopped.
#[tool]
async fn hold(progress: Progress) -> &'static str {
    struct Stopped;
    impl Drop for Stopped {
        fn drop(&mut self) {
            STOPPED.notify_one();
        }
    }
    let _stopped = Stopped;
    progress.progress(0.0, "holding");
    std::future::pending::<()>().await;
    "never"
}

/// Asks the client's model, then its user.
#[tool]
async fn ask(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample("Capital of France?").await?;
    let answer: tool_runtime::context::Elicitation<Value> = ctx
        .elicit_with_schema(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        )
        .await?;
    let name = match answer {
        tool_runtime::context::Elicitation::Accepted(content) => content["name"].to_string(),
        other => format!("{other:?}"),
    };
    Ok(format!("{} / {name}", sampled.text().unwrap_or_default()))
}

/// Says where it runs; `region` is a header parameter.
#[tool]
fn locate(
    /// The region to run in
    #[tool(header = "Region")]
    region: String,
) -> String {
    format!("in {region}")
}

fn registry() -> Registry {
    Registry::builder()
        .tool(AddTool)
        .tool(StepsTool)
        .tool(HoldTool)
        .tool(AskTool)
        .tool(LocateTool)
        .build()
        .unwrap()
}

/// A server on a loopback port.
struct Server {
    address: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    async fn start(server: McpServer, options: HttpOptions) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(server.serve_http_with(listener, options, shutdown.clone()));
        Server {
            address,
            shutdown,
            task,
        }
    }

    async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap().unwrap();
    }

    /// A request of `method` with `headers` and `body` (JSON), its head
    /// naming this server as `Host` and accepting JSON and event streams.
    fn request(&self, method: &str, headers: &[(&str, &str)], body: Option<&Value>) -> String {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
             Accept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n",
            self.address.port(),
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        request
    }

    /// Sends one request on a connection of its own and reads its whole
    /// answer.
    async fn send(&self, method: &str, headers: &[(&str, &str)], body: Option<&Value>) -> Answer {
        let mut stream = Stream::open(self.address, &self.request(method, headers, body)).await;
        stream.whole().await
    }

    /// POSTs `message` in session `session` (of revision 2025-06-18).
    async fn post(&self, session: &str, message: &Value) -> Answer {
        self.send("POST", &in_session(session), Some(message)).await
    }

    /// Opens a session: `initialize` with `capabilities`, then
    /// `notifications/initialized`; its id.
    async fn session(&self, capabilities: Value) -> String {
        let init = self
            .send(
                "POST",
                &[],
                Some(
                    &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": capabilities,
                    "clientInfo": {"name": "test", "version": "1"}}}),
                ),
            )
            .await;
        assert_eq!(init.status, 200, "{}", init.body);
        assert_eq!(init.header("content-type"), Some("application/json"));
        let session = init.header("mcp-session-id").expect("a session").to_owned();
        let initialized = self
            .post(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(initialized.status, 202);
        session
    }
}

/// The headers of a request in session `session`.
fn in_session(session: &str) -> [(&str, &str); 2] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-06-18"),
    ]
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// A whole answer: status, headers (names in lower case), body, and the
/// JSON-RPC messages of the body (one document, or each event).
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    messages: Vec<Value>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The one message of a JSON answer.
    fn message(&self) -> &Value {
        assert_eq!(self.messages.len(), 1, "{}", self.body);
        &self.messages[0]
    }
}

/// A response read as it comes, over a connection of its own.
struct Stream {
    reader: BufReader<TcpStream>,
    status: u16,
    headers: Vec<(String, String)>,
    /// Event text received and not yet taken.
    pending: String,
    chunked: bool,
    ended: bool,
}

impl Stream {
    /// Sends `request` on a new connection and reads the answer's head.
    async fn open(address: SocketAddr, request: &str) -> Self {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        within(reader.read_line(&mut status_line)).await.unwrap();
        let status = status_line
            .split(' ')
            .nth(1)
            .unwrap_or_else(|| panic!("no status in {status_line:?}"))
            .parse()
            .unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            within(reader.read_line(&mut line)).await.unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let chunked = headers
            .iter()
            .any(|(name, value)| name == "transfer-encoding" && value.contains("chunked"));
        Stream {
            reader,
            status,
            headers,
            pending: String::new(),
            chunked,
            ended: false,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The next chunk of a chunked body; `None` at its end.
    async fn chunk(&mut self) -> Option<String> {
        if self.ended {
            return None;
        }
        let mut size = String::new();
        within(self.reader.read_line(&mut size)).await.unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut data = vec![0; size + 2];
        within(self.reader.read_exact(&mut data)).await.unwrap();
        if size == 0 {
            self.ended = true;
            return None;
        }
        data.truncate(size);
        Some(String::from_utf8(data).unwrap())
    }

    /// The next event's message (comments skipped); `None` at the end of
    /// the stream.
    async fn event(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if !data.is_empty() {
                    return Some(serde_json::from_str(&data).unwrap());
                }
            }
            let chunk = self.chunk().await?;
            self.pending.push_str(&chunk);
        }
    }

    /// The rest of the answer.
    async fn whole(&mut self) -> Answer {
        let body = if self.chunked {
            let mut body = std::mem::take(&mut self.pending);
            while let Some(chunk) = self.chunk().await {
                body.push_str(&chunk);
            }
            body
        } else {
            let length: usize = self
                .header("content-length")
                .unwrap_or("0")
                .parse()
                .unwrap();
            let mut body = vec![0; length];
            within(self.reader.read_exact(&mut body)).await.unwrap();
            String::from_utf8(body).unwrap()
        };
        let messages = if self.header("content-type") == Some("text/event-stream") {
            body.split("\n\n")
                .filter_map(|event| {
                    let data: String = event
                        .lines()
                        .filter_map(|line| line.strip_prefix("data:"))
                        .map(str::trim)
                        .collect();
                    (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
                })
                .collect()
        } else if body.trim_start().starts_with('{') {
            vec![serde_json::from_str(&body).unwrap()]
        } else {
            Vec::new()
        };
        Answer {
            status: self.status,
            headers: self.headers.clone(),
            body,
            messages,
        }
    }
}

/// `future`, which must finish within ten seconds.
async fn within<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .expect("the server answers in time")
}

/// Whether the server closes `socket` (the read ends) within `limit`.
async fn closed_within(socket: &mut TcpStream, limit: Duration) -> bool {
    let mut buffer = [0; 512];
    let started = Instant::now();
    loop {
        let left = limit.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, socket.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn a_session_is_served_with_json_answers_and_ids_as_written() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let list = server
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(list.status, 200);
    let names: Vec<&str> = list.message()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "ask", "hold", "locate", "steps"]);
    // An id beyond 64 bits comes back digit for digit.
    let big = "123456789012345678901234567890";
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{big},"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}}}}}}"#
    );
    let mut request = server.request("POST", &in_session(&session), None);
    request = request.replace(
        "Content-Length: 0",
        &format!("Content-Length: {}", body.len()),
    );
    request.push_str(&body);
    let answer = Stream::open(server.address, &request).await.whole().await;
    assert!(
        answer.body.contains(&format!(r#""id":{big},"#)),
        "{}",
        answer.body
    );
    assert!(
        answer.body.contains(r#""structuredContent":{"result":5}"#),
        "{}",
        answer.body
    );
    server.stop().await;
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_invalid_params_on_every_path() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let answer = server
        .post(&session, &call(json!(1), "add", json!([2, 3])))
        .await;
    assert_eq!(answer.message()["error"]["code"], -32602, "{}", answer.body);
    assert!(
        answer.message()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("arguments must be an object"),
        "{}",
        answer.body
    );
    server.stop().await;

    let stateless = Server::start(
        McpServer::new(registry()),
        HttpOptions::new().stateless(true),
    )
    .await;
    let headers = [("MCP-Protocol-Version", "2025-06-18")];
    let answer = stateless
        .send(
            "POST",
            &headers,
            Some(&call(json!("a"), "add", json!("2 and 3"))),
        )
        .await;
    assert_eq!(answer.message()["error"]["code"], -32602, "{}", answer.body);
    stateless.stop().await;
}

#[tokio::test]
async fn delete_ends_a_session_and_an_unknown_session_is_not_found() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let deleted = server.send("DELETE", &in_session(&session), None).await;
    assert_eq!(deleted.status, 200);
    let after = server
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(after.status, 404);
    let again = server.send("DELETE", &in_session(&session), None).await;
    assert_eq!(again.status, 404, "DELETE of an ended session");
    let unknown = server
        .send("DELETE", &in_session("no-such-session"), None)
        .await;
    assert_eq!(unknown.status, 404, "DELETE of an unknown session");
    let get = server
        .send("GET", &in_session("no-such-session"), None)
        .await;
    assert_eq!(get.status, 404);
    server.stop().await;
}

#[tokio::test]
async fn sessions_beyond_the_limit_are_refused_until_one_ends() {
    let options = HttpOptions::new().max_sessions(1);
    let server = Server::start(McpServer::new(registry()), options).await;
    let first = server.session(json!({})).await;
    // In use: its standalone stream is open (a session not in use would
    // give way to the new one).
    let standalone = Stream::open(
        server.address,
        &server.request("GET", &in_session(&first), None),
    )
    .await;
    assert_eq!(standalone.status, 200);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let refused = server.send("POST", &[], Some(&init)).await;
    assert_eq!(refused.status, 503);
    assert_eq!(
        server
            .send("DELETE", &in_session(&first), None)
            .await
            .status,
        200
    );
    server.session(json!({})).await;
    server.stop().await;
}

#[tokio::test]
async fn progress_comes_first_on_the_calls_stream_and_the_answer_ends_it() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let mut message = call(json!(7), "steps", json!({}));
    message["params"]["_meta"] = json!({"progressToken": "p"});
    let answer = server.post(&session, &message).await;
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    let methods: Vec<&str> = answer
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(answer)"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "(answer)"
        ]
    );
    assert_eq!(answer.messages[3]["result"]["content"][0]["text"], "done");
    server.stop().await;
}

#[tokio::test]
async fn a_tools_requests_to_the_client_go_out_on_its_calls_stream_and_answers_come_as_posts() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server
        .session(json!({"sampling": {}, "elicitation": {}}))
        .await;
    let request = server.request(
        "POST",
        &in_session(&session),
        Some(&call(json!(1), "ask", json!({}))),
    );
    let mut stream = Stream::open(server.address, &request).await;
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let sampling = stream.event().await.unwrap();
    assert_eq!(sampling["method"], "sampling/createMessage");
    let answered = server
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "id": sampling["id"], "result": {
                "role": "assistant", "model": "m",
                "content": {"type": "text", "text": "Paris"}}}),
        )
        .await;
    assert_eq!(answered.status, 202);
    let elicitation = stream.event().await.unwrap();
    assert_eq!(elicitation["method"], "elicitation/create");
    server
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "id": elicitation["id"], "result": {
                "action": "accept", "content": {"name": "Ada"}}}),
        )
        .await;
    let answer = stream.event().await.unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["content"][0]["text"], "Paris / \"Ada\"");
    assert!(
        stream.event().await.is_none(),
        "the stream ends with the answer"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_standalone_stream_brings_changes_to_the_tools() {
    let live = LiveRegistry::new(registry());
    let server = Server::start(McpServer::new(live.clone()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let mut stream = Stream::open(
        server.address,
        &server.request("GET", &in_session(&session), None),
    )
    .await;
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    // One standalone stream a session.
    let second = server.send("GET", &in_session(&session), None).await;
    assert_eq!(second.status, 409);
    // The stream is registered once its head is out; a change now is heard.
    tokio::time::sleep(Duration::from_millis(50)).await;
    live.remove("steps");
    let changed = stream.event().await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    server.stop().await;
}

#[tokio::test]
async fn a_cancelled_call_stops_and_its_stream_ends_without_an_answer() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let mut message = call(json!("h"), "hold", json!({}));
    message["params"]["_meta"] = json!({"progressToken": 1});
    let mut stream = Stream::open(
        server.address,
        &server.request("POST", &in_session(&session), Some(&message)),
    )
    .await;
    let started = stream.event().await.unwrap();
    assert_eq!(started["method"], "notifications/progress");
    let stopped = STOPPED.notified();
    let cancelled = server
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": "h"}}),
        )
        .await;
    assert_eq!(cancelled.status, 202);
    within(stopped).await;
    assert!(
        stream.event().await.is_none(),
        "no answer to a cancelled call"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_session_runs_at_most_its_limit_of_calls_and_a_reused_id_is_refused() {
    let mcp = McpServer::new(registry()).with_max_concurrent_calls(1);
    let server = Server::start(mcp, HttpOptions::new()).await;
    let session = server.session(json!({})).await;
    let mut message = call(json!(1), "hold", json!({}));
    message["params"]["_meta"] = json!({"progressToken": 1});
    let mut holding = Stream::open(
        server.address,
        &server.request("POST", &in_session(&session), Some(&message)),
    )
    .await;
    holding.event().await.unwrap();
    // The same id while it is in flight.
    let reused = server
        .post(&session, &call(json!(1), "add", json!({"a": 1, "b": 2})))
        .await;
    assert_eq!(reused.message()["error"]["code"], -32600, "{}", reused.body);
    // A second call beyond the limit of one.
    let busy = server
        .post(&session, &call(json!(2), "add", json!({"a": 1, "b": 2})))
        .await;
    let error = &busy.message()["error"];
    assert_eq!(error["code"], -32603, "{}", busy.body);
    assert_eq!(error["data"]["maxConcurrentCalls"], 1);
    // The held call's client goes away: its call ends, and room is made.
    drop(holding);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let next = server
            .post(&session, &call(json!(3), "add", json!({"a": 1, "b": 2})))
            .await;
        if next.message().get("result").is_some() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the call never ended: {}",
            next.body
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn host_and_origin_are_checked_before_the_body_is_read() {
    let options = HttpOptions::new()
        .allowed_hosts(["mcp.example.com"])
        .allowed_origins(["https://app.example.com"]);
    let server = Server::start(McpServer::new(registry()), options).await;
    // A head naming another host, whose body never comes: refused at once.
    let head = "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nAccept: application/json, \
                text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n";
    let mut refused = Stream::open(server.address, head).await;
    assert_eq!(refused.status, 403);
    refused.whole().await;
    // A cross-origin initialize.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "page", "version": "1"}}});
    let cross = server
        .send("POST", &[("Origin", "http://evil.example")], Some(&init))
        .await;
    assert_eq!(cross.status, 403, "{}", cross.body);
    assert!(cross.header("mcp-session-id").is_none());
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1:8080",
        "https://app.example.com",
    ] {
        let allowed = server
            .send("POST", &[("Origin", origin)], Some(&init))
            .await;
        assert_eq!(allowed.status, 200, "{origin}: {}", allowed.body);
    }
    let named = server.request("POST", &[], Some(&init)).replace(
        &format!("Host: 127.0.0.1:{}", server.address.port()),
        "Host: mcp.example.com",
    );
    let mut named = Stream::open(server.address, &named).await;
    assert_eq!(named.status, 200, "an allowed host");
    named.whole().await;
    server.stop().await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_before_it_is_read() {
    let options = HttpOptions::new().max_body_bytes(1024);
    let server = Server::start(McpServer::new(registry()), options).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        100 * 1024 * 1024
    );
    let mut declared = Stream::open(server.address, &head).await;
    assert_eq!(declared.status, 413);
    declared.whole().await;
    // A chunked body that grows past the limit.
    let mut head = String::from(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    let chunk = "x".repeat(2048);
    head.push_str(&format!("{:x}\r\n{chunk}\r\n0\r\n\r\n", chunk.len()));
    let chunked = Stream::open(server.address, &head).await;
    assert_eq!(chunked.status, 413);
    server.stop().await;
}

#[tokio::test]
async fn a_head_or_a_body_that_stalls_is_cut_off() {
    let options = HttpOptions::new()
        .header_timeout(Duration::from_millis(300))
        .body_timeout(Duration::from_millis(300));
    let server = Server::start(McpServer::new(registry()), options).await;
    // Half a head, then nothing: the connection is closed.
    let mut socket = TcpStream::connect(server.address).await.unwrap();
    socket
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    assert!(
        closed_within(&mut socket, Duration::from_secs(5)).await,
        "a stalled head keeps its connection"
    );
    // A whole head, part of the body: 408.
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, \
                text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"";
    let stalled = Stream::open(server.address, head).await;
    assert_eq!(stalled.status, 408);
    server.stop().await;
}

#[tokio::test]
async fn idle_sockets_are_closed_and_do_not_lock_clients_out() {
    let options = HttpOptions::new()
        .max_connections(3)
        .header_timeout(Duration::from_millis(300))
        .idle_timeout(Duration::from_millis(600));
    let server = Server::start(McpServer::new(registry()), options).await;
    let session = server.session(json!({})).await;
    // A client on a connection kept alive.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let keep_alive = server.request("POST", &in_session(&session), Some(&list));
    let mut client = TcpStream::connect(server.address).await.unwrap();
    client.write_all(keep_alive.as_bytes()).await.unwrap();
    let mut buffer = vec![0; 64 * 1024];
    let read = within(client.read(&mut buffer)).await.unwrap();
    assert!(buffer[..read].starts_with(b"HTTP/1.1 200"));
    // More idle sockets than the server serves at once.
    let mut idle = Vec::new();
    for _ in 0..6 {
        idle.push(TcpStream::connect(server.address).await.unwrap());
    }
    // The client already connected goes on being served.
    client.write_all(keep_alive.as_bytes()).await.unwrap();
    let read = within(client.read(&mut buffer)).await.unwrap();
    assert!(
        buffer[..read].starts_with(b"HTTP/1.1 200"),
        "the connected client is served"
    );
    drop(client);
    // A new client gets in once the idle sockets are closed.
    let started = Instant::now();
    let answer = server.post(&session, &list).await;
    assert_eq!(answer.status, 200);
    assert!(started.elapsed() < Duration::from_secs(8));
    for socket in &mut idle {
        assert!(
            closed_within(socket, Duration::from_secs(8)).await,
            "an idle socket stays open"
        );
    }
    server.stop().await;
}

/// The `_meta` of a revision 2026-07-28 request.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// The headers of a revision 2026-07-28 request of `method` (naming `name`).
fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    headers
}

#[tokio::test]
async fn revision_2026_07_28_is_served_without_sessions_with_its_header_checks() {
    let live = LiveRegistry::new(registry());
    let server = Server::start(McpServer::new(live.clone()), HttpOptions::new()).await;
    let discover = server
        .send(
            "POST",
            &modern_headers("server/discover", None),
            Some(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                "params": {"_meta": modern_meta()}}),
            ),
        )
        .await;
    assert_eq!(discover.status, 200, "{}", discover.body);
    assert!(discover.header("mcp-session-id").is_none());
    let result = &discover.message()["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"][0], "2026-07-28");

    let mut message = call(json!(2), "add", json!({"a": 2, "b": 3}));
    message["params"]["_meta"] = modern_meta();
    let called = server
        .send(
            "POST",
            &modern_headers("tools/call", Some("add")),
            Some(&message),
        )
        .await;
    assert_eq!(called.status, 200, "{}", called.body);
    assert_eq!(called.message()["result"]["resultType"], "complete");
    assert_eq!(called.message()["result"]["content"][0]["text"], "5");

    // The mirrors of the body: missing or unlike, -32020 and 400.
    for headers in [
        modern_headers("tools/call", None),
        modern_headers("tools/list", Some("add")),
        modern_headers("tools/call", Some("steps")),
    ] {
        let refused = server.send("POST", &headers, Some(&message)).await;
        assert_eq!(refused.status, 400, "{headers:?}");
        assert_eq!(refused.message()["error"]["code"], -32020, "{headers:?}");
    }
    // A method the revision does not have: 404 and -32601.
    let missing = server
        .send(
            "POST",
            &modern_headers("initialize", None),
            Some(&json!({"jsonrpc": "2.0", "id": 3, "method": "initialize",
                "params": {"_meta": modern_meta()}})),
        )
        .await;
    assert_eq!(missing.status, 404, "{}", missing.body);
    assert_eq!(missing.message()["error"]["code"], -32601);
    // `_meta` without the client's capabilities: 400 and -32602.
    let unreadable = server
        .send(
            "POST",
            &modern_headers("tools/list", None),
            Some(
                &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            ),
        )
        .await;
    assert_eq!(unreadable.status, 400);
    assert_eq!(unreadable.message()["error"]["code"], -32602);

    // A header parameter's header must agree with the argument.
    let mut located = call(json!(6), "locate", json!({"region": "eu-west"}));
    located["params"]["_meta"] = modern_meta();
    let mut headers = modern_headers("tools/call", Some("locate"));
    headers.push(("Mcp-Param-Region", "eu-west"));
    let agreed = server.send("POST", &headers, Some(&located)).await;
    assert_eq!(agreed.status, 200, "{}", agreed.body);
    assert_eq!(
        agreed.message()["result"]["content"][0]["text"],
        "in eu-west"
    );
    headers.pop();
    let missing = server.send("POST", &headers, Some(&located)).await;
    assert_eq!(missing.status, 400, "{}", missing.body);
    assert_eq!(missing.message()["error"]["code"], -32020);
    headers.push(("Mcp-Param-Region", "us-east"));
    let moved = server.send("POST", &headers, Some(&located)).await;
    assert_eq!(moved.status, 400, "{}", moved.body);
    assert_eq!(
        moved.message()["error"]["data"]["header"],
        "Mcp-Param-Region"
    );

    // A subscription streams the changes to the tools.
    let listen = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true}, "_meta": modern_meta()}});
    let mut stream = Stream::open(
        server.address,
        &server.request(
            "POST",
            &modern_headers("subscriptions/listen", None),
            Some(&listen),
        ),
    )
    .await;
    let acknowledged = stream.event().await.unwrap();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    live.remove("steps");
    let changed = stream.event().await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        5
    );
    server.stop().await;
}

/// Waits a little: its calls may run as tasks.
#[tool(task)]
async fn linger() -> &'static str {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "lingered"
}

#[tokio::test]
async fn tasks_methods_are_routed_by_their_task_id_in_mcp_name() {
    let registry = Registry::builder().tool(LingerTool).build().unwrap();
    let server = McpServer::new(registry).with_tasks(tool_tasks::Tasks::in_memory());
    let server = Server::start(server, HttpOptions::new()).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    let mut message = call(json!(1), "linger", json!({}));
    message["params"]["_meta"] = meta.clone();
    let created = server
        .send(
            "POST",
            &modern_headers("tools/call", Some("linger")),
            Some(&message),
        )
        .await;
    let created = &created.message()["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    let task_id = created["taskId"].as_str().unwrap().to_owned();

    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                     "params": {"taskId": task_id, "_meta": meta}});
    let answered = server
        .send(
            "POST",
            &modern_headers("tasks/get", Some(&task_id)),
            Some(&get),
        )
        .await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.message()["result"]["taskId"], task_id.as_str());
    for headers in [
        modern_headers("tasks/get", None),
        modern_headers("tasks/get", Some("another-task")),
    ] {
        let refused = server.send("POST", &headers, Some(&get)).await;
        assert_eq!(refused.status, 400, "{headers:?}");
        assert_eq!(refused.message()["error"]["code"], -32020, "{headers:?}");
    }
    server.stop().await;
}
