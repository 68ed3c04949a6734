//! The capacity of `McpServer::serve_http` at the wire, over loopback
//! sockets: event streams (a session's standalone stream,
//! `subscriptions/listen`) have a budget of their own and a lifetime, so
//! that requests always find a connection; an idle socket makes room for
//! a new client; a session left unused gives way to a new one; and
//! requests without a session run no more calls at once for each peer
//! address than a session may.

#![cfg(feature = "http")]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::{Registry, context::CancellationToken, events::Progress, tool};

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

/// Reports that it started, then waits until the call is stopped.
#[tool]
async fn hold(progress: Progress) -> &'static str {
    progress.progress(0.0, "holding");
    std::future::pending::<()>().await;
    "never"
}

/// Waits until its call is cancelled; its calls may run as tasks.
#[tool(task)]
async fn wait_as_task() -> &'static str {
    std::future::pending::<()>().await;
    "never"
}

fn registry() -> Registry {
    Registry::builder()
        .tool(AddTool)
        .tool(HoldTool)
        .build()
        .unwrap()
}

/// The loopback address the tests' clients come from, unless they say
/// another.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

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

    /// A request of `method` with `headers` and `body` (JSON).
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

    /// Sends a request from `from` on a connection of its own, and reads
    /// the head of its answer.
    async fn open(
        &self,
        from: IpAddr,
        method: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Stream {
        Stream::open(self.address, from, &self.request(method, headers, body)).await
    }

    /// Sends one request on a connection of its own and reads its whole
    /// answer.
    async fn send(&self, method: &str, headers: &[(&str, &str)], body: Option<&Value>) -> Answer {
        self.open(LOCAL, method, headers, body).await.whole().await
    }

    /// `initialize` from `from`, and nothing after it: the session's id.
    async fn initialize(&self, from: IpAddr) -> String {
        let answer = self
            .open(from, "POST", &[], Some(&initialize()))
            .await
            .whole()
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer
            .header("mcp-session-id")
            .expect("a session")
            .to_owned()
    }

    /// A session as a client opens it: `initialize`, then
    /// `notifications/initialized`.
    async fn session(&self) -> String {
        let session = self.initialize(LOCAL).await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self
            .send("POST", &in_session(&session), Some(&initialized))
            .await;
        assert_eq!(answer.status, 202);
        session
    }

    /// The status of a `ping` in `session`.
    async fn ping(&self, session: &str) -> u16 {
        let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
        self.send("POST", &in_session(session), Some(&ping))
            .await
            .status
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// The headers of a request in session `session`.
fn in_session(session: &str) -> [(&str, &str); 2] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-06-18"),
    ]
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

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A `subscriptions/listen` of revision 2026-07-28.
fn listen(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true}, "_meta": modern_meta()}})
}

/// A `tools/call` of revision 2026-07-28 (`modern`) or of 2025-06-18, with
/// a progress token: a call that reports progress answers on a stream.
fn call(id: u64, name: &str, arguments: Value, modern: bool) -> Value {
    let mut meta = if modern { modern_meta() } else { json!({}) };
    meta["progressToken"] = json!(id);
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta}})
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

    /// The one message of the answer.
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
    /// Sends `request` on a new connection from `from` and reads the
    /// answer's head.
    async fn open(address: SocketAddr, from: IpAddr, request: &str) -> Self {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(from, 0)).unwrap();
        let mut stream = within(socket.connect(address)).await.unwrap();
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

    fn is_events(&self) -> bool {
        self.headers
            .iter()
            .any(|(name, value)| name == "content-type" && value == "text/event-stream")
    }

    /// The first message of the answer: its first event, or the one
    /// message of a JSON answer.
    async fn first(&mut self) -> Value {
        if self.is_events() {
            self.event().await.expect("an event")
        } else {
            self.whole().await.message().clone()
        }
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
                .headers
                .iter()
                .find(|(name, _)| name == "content-length")
                .map_or(0, |(_, value)| value.parse().unwrap());
            let mut body = vec![0; length];
            within(self.reader.read_exact(&mut body)).await.unwrap();
            String::from_utf8(body).unwrap()
        };
        let messages = if self.is_events() {
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

/// Waits long enough for the server's clock (milliseconds) to tell what
/// happens after from what came before.
async fn tick() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

/// A second loopback address (Linux routes all of 127.0.0.0/8 to the
/// loopback interface): a client of another peer address.
#[cfg(target_os = "linux")]
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

#[tokio::test]
async fn event_streams_leave_room_for_a_new_clients_requests() {
    let options = HttpOptions::new().max_connections(20);
    let server = Server::start(McpServer::new(registry()), options).await;
    let mut sessions = Vec::new();
    for _ in 0..20 {
        sessions.push(server.session().await);
    }
    // 40 event streams asked for, each on a connection kept open: a
    // standalone stream of each session and 20 subscriptions.
    let mut kept = Vec::new();
    let mut open = 0;
    for (n, session) in sessions.iter().enumerate() {
        let standalone = server.open(LOCAL, "GET", &in_session(session), None).await;
        if standalone.status == 200 {
            open += 1;
        } else {
            assert_eq!(standalone.status, 503);
        }
        kept.push(standalone);
        let headers = modern_headers("subscriptions/listen", None);
        let mut listening = server
            .open(LOCAL, "POST", &headers, Some(&listen(n as u64)))
            .await;
        assert_eq!(listening.status, 200);
        let first = listening.first().await;
        if first["method"] == "notifications/subscriptions/acknowledged" {
            open += 1;
        } else {
            assert_eq!(first["error"]["code"], -32603, "{first}");
            assert_eq!(first["error"]["data"]["maxEventStreams"], 10, "{first}");
        }
        kept.push(listening);
    }
    // Half of the connections at most.
    assert_eq!(open, 10);
    // A new client is answered.
    let started = Instant::now();
    let answer = server.send("POST", &[], Some(&initialize())).await;
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.body);
    eprintln!("initialize answered in {took:?} beside 40 event streams asked for");
    assert!(took < Duration::from_secs(5), "initialize took {took:?}");
    drop(kept);
    server.stop().await;
}

#[tokio::test]
async fn an_idle_socket_makes_room_for_a_new_client() {
    let options = HttpOptions::new().max_connections(3);
    let server = Server::start(McpServer::new(registry()), options).await;
    let session = server.session().await;
    // A client on a connection kept alive, which has served a request.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let keep_alive = server.request("POST", &in_session(&session), Some(&ping));
    let mut client = TcpStream::connect(server.address).await.unwrap();
    let mut buffer = vec![0; 64 * 1024];
    client.write_all(keep_alive.as_bytes()).await.unwrap();
    let read = within(client.read(&mut buffer)).await.unwrap();
    assert!(buffer[..read].starts_with(b"HTTP/1.1 200"));
    // Sockets that send nothing, more than the server serves at once.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(server.address).await.unwrap());
    }
    // A new client is served long before the idle timeout (60 s), and the
    // client kept alive still is: the sockets that never sent a request
    // give way first.
    let started = Instant::now();
    assert_eq!(server.ping(&session).await, 200);
    assert!(started.elapsed() < Duration::from_secs(5));
    client.write_all(keep_alive.as_bytes()).await.unwrap();
    let read = within(client.read(&mut buffer)).await.unwrap();
    assert!(
        buffer[..read].starts_with(b"HTTP/1.1 200"),
        "the client kept alive is served"
    );
    drop(idle);
    server.stop().await;
}

#[tokio::test]
async fn an_event_stream_ends_after_its_lifetime_and_opens_again() {
    let options = HttpOptions::new().event_stream_lifetime(Duration::from_millis(300));
    let server = Server::start(McpServer::new(registry()), options).await;
    let session = server.session().await;
    for _ in 0..2 {
        let mut standalone = server.open(LOCAL, "GET", &in_session(&session), None).await;
        assert_eq!(standalone.status, 200);
        assert_eq!(standalone.event().await, None, "the stream ends");
    }
    // A subscription ends with its closing result.
    let headers = modern_headers("subscriptions/listen", None);
    let mut listening = server.open(LOCAL, "POST", &headers, Some(&listen(7))).await;
    let acknowledged = listening.event().await.unwrap();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    let closed = listening.event().await.unwrap();
    assert_eq!(closed["id"], 7, "{closed}");
    assert_eq!(closed["result"]["resultType"], "complete", "{closed}");
    assert_eq!(listening.event().await, None);
    server.stop().await;
}

#[tokio::test]
async fn a_session_has_at_most_its_share_of_event_streams() {
    let options = HttpOptions::new().max_event_streams_per_session(2);
    let server = Server::start(McpServer::new(registry()), options).await;
    let session = server.session().await;
    let standalone = server.open(LOCAL, "GET", &in_session(&session), None).await;
    assert_eq!(standalone.status, 200);
    let mut headers = modern_headers("subscriptions/listen", None);
    headers.push(("Mcp-Session-Id", session.as_str()));
    let mut first = server.open(LOCAL, "POST", &headers, Some(&listen(1))).await;
    let acknowledged = first.event().await.unwrap();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    let refused = server.send("POST", &headers, Some(&listen(2))).await;
    let error = &refused.message()["error"];
    assert_eq!(error["code"], -32603, "{}", refused.body);
    assert_eq!(error["data"]["maxEventStreamsPerSession"], 2);
    // A subscription without a session is not the session's.
    let headers = modern_headers("subscriptions/listen", None);
    let mut other = server.open(LOCAL, "POST", &headers, Some(&listen(3))).await;
    let acknowledged = other.event().await.unwrap();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    server.stop().await;
}

#[tokio::test]
async fn sessions_never_used_give_way_to_new_ones() {
    let options = HttpOptions::new().max_sessions(3);
    let server = Server::start(McpServer::new(registry()), options).await;
    let used = server.session().await;
    let unused = server.initialize(LOCAL).await;
    tick().await;
    let newer = server.initialize(LOCAL).await;
    // The table is full: the oldest session never used gives way.
    let fresh = server.initialize(LOCAL).await;
    assert_eq!(server.ping(&unused).await, 404);
    for session in [&used, &newer, &fresh] {
        assert_eq!(server.ping(session).await, 200);
        tick().await;
    }
    // Now all used: the one unused longest gives way.
    server.initialize(LOCAL).await;
    assert_eq!(server.ping(&used).await, 404);
    server.stop().await;
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn the_peer_holding_the_most_sessions_gives_one_up_first() {
    let options = HttpOptions::new().max_sessions(3);
    let server = Server::start(McpServer::new(registry()), options).await;
    let first = server.initialize(LOCAL).await;
    let second = server.initialize(OTHER).await;
    tick().await;
    let third = server.initialize(OTHER).await;
    server.initialize(LOCAL).await;
    assert_eq!(server.ping(&second).await, 404);
    assert_eq!(server.ping(&first).await, 200);
    assert_eq!(server.ping(&third).await, 200);
    server.stop().await;
}

#[tokio::test]
async fn sessions_in_use_are_kept_and_a_new_one_is_refused() {
    let options = HttpOptions::new().max_sessions(2);
    let server = Server::start(McpServer::new(registry()), options).await;
    let streaming = server.session().await;
    let calling = server.session().await;
    let standalone = server
        .open(LOCAL, "GET", &in_session(&streaming), None)
        .await;
    assert_eq!(standalone.status, 200);
    let hold = call(1, "hold", json!({}), false);
    let mut holding = server
        .open(LOCAL, "POST", &in_session(&calling), Some(&hold))
        .await;
    assert_eq!(
        holding.event().await.unwrap()["method"],
        "notifications/progress"
    );
    let refused = server.send("POST", &[], Some(&initialize())).await;
    assert_eq!(refused.status, 503);
    // The held call's client goes away: its session is no longer in use.
    drop(holding);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = server.send("POST", &[], Some(&initialize())).await;
        if answer.status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "no session gave way");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.ping(&calling).await, 404);
    assert_eq!(server.ping(&streaming).await, 200);
    drop(standalone);
    server.stop().await;
}

#[tokio::test]
async fn a_session_with_a_running_task_is_in_use() {
    let registry = Registry::builder().tool(WaitAsTaskTool).build().unwrap();
    let mcp = McpServer::new(registry).with_tasks(tool_tasks::Tasks::in_memory());
    let server = Server::start(mcp, HttpOptions::new().max_sessions(1)).await;
    // A session of revision 2025-11-25 that declares the tasks extension.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "clientInfo": {"name": "test", "version": "1"}}});
    let answer = server.send("POST", &[], Some(&init)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let session = answer
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = server.send("POST", &headers, Some(&initialized)).await;
    assert_eq!(answer.status, 202);
    // Its call becomes a task, and the request is over: nothing of the
    // session is open but its task.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait_as_task", "arguments": {}}});
    let created = server.send("POST", &headers, Some(&call)).await;
    let created = created.message();
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].clone();
    let refused = server.send("POST", &[], Some(&initialize())).await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
        "params": {"taskId": task_id}});
    let task = server.send("POST", &headers, Some(&get)).await;
    assert_eq!(
        task.message()["result"]["status"],
        "working",
        "{}",
        task.body
    );
    // The task ends: its session is no longer in use.
    let cancel = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel",
        "params": {"taskId": task_id}});
    let cancelled = server.send("POST", &headers, Some(&cancel)).await;
    assert!(
        cancelled.message().get("result").is_some(),
        "{}",
        cancelled.body
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = server.send("POST", &[], Some(&initialize())).await;
        if answer.status == 200 {
            break;
        }
        assert_eq!(answer.status, 503, "{}", answer.body);
        assert!(
            Instant::now() < deadline,
            "the session with the task never gave way"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    assert_eq!(server.send("POST", &headers, Some(&ping)).await.status, 404);
    server.stop().await;
}

/// Calls without a session, of revision 2026-07-28 (`modern`) or to a
/// stateless server: at most the server's limit at once from one peer.
async fn calls_without_a_session_are_capped(options: HttpOptions, modern: bool) {
    let mcp = McpServer::new(registry()).with_max_concurrent_calls(2);
    let server = Server::start(mcp, options).await;
    let headers = |name: &'static str| {
        if modern {
            modern_headers("tools/call", Some(name))
        } else {
            vec![("MCP-Protocol-Version", "2025-06-18")]
        }
    };
    let mut holding = Vec::new();
    for id in 1..=2 {
        let hold = call(id, "hold", json!({}), modern);
        let mut stream = server
            .open(LOCAL, "POST", &headers("hold"), Some(&hold))
            .await;
        let started = stream.event().await.unwrap();
        assert_eq!(started["method"], "notifications/progress", "{started}");
        holding.push(stream);
    }
    let add = call(3, "add", json!({"a": 1, "b": 2}), modern);
    let busy = server.send("POST", &headers("add"), Some(&add)).await;
    let error = &busy.message()["error"];
    assert_eq!(error["code"], -32603, "{}", busy.body);
    assert_eq!(error["data"]["maxConcurrentCalls"], 2);
    // Another peer address is another caller.
    #[cfg(target_os = "linux")]
    {
        let answer = server
            .open(OTHER, "POST", &headers("add"), Some(&add))
            .await
            .whole()
            .await;
        assert!(
            answer.messages.last().unwrap().get("result").is_some(),
            "{}",
            answer.body
        );
    }
    // A held call's client goes away: room is made.
    holding.pop();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = server.send("POST", &headers("add"), Some(&add)).await;
        if answer.messages.last().unwrap().get("result").is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "{}", answer.body);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn calls_of_revision_2026_07_28_are_capped_for_each_peer() {
    calls_without_a_session_are_capped(HttpOptions::new(), true).await;
}

#[tokio::test]
async fn calls_to_a_stateless_server_are_capped_for_each_peer() {
    calls_without_a_session_are_capped(HttpOptions::new().stateless(true), false).await;
}
