//! What a caller makes is its own: two callers, alice and bob, with tokens
//! of the test's authorization server. Bob cannot read, answer, cancel or
//! list alice's tasks, read her kept results, retry with her request
//! state or use her session: each is answered as an id that does not
//! exist. And bob filling his share of sessions, calls and tasks leaves
//! alice room.

use std::time::Duration;

use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tool_mcp::auth::ResourceServer;
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::context::{Elicitation, ElicitationRequest};
use tool_runtime::limits::ResultLimit;
use tool_runtime::{Registry, ToolContext, ToolError, tool};
use tool_tasks::{MemoryTaskStore, TaskOptions, Tasks};

use super::{AuthServer, Key, claims};
use crate::{Answer, HoldTool, Server, Stream, modern_headers};

/// Asks the client for a name, then greets it.
#[tool(task)]
async fn greet(ctx: &ToolContext) -> Result<String, ToolError> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let request = ElicitationRequest::new("Your name?", schema).named("name");
    match ctx.elicit_request(request).await? {
        Elicitation::Accepted(content) => Ok(format!("hello {}", content["name"])),
        other => Ok(other.action().to_owned()),
    }
}

/// Ends at once.
#[tool(task)]
fn quick() -> &'static str {
    "done"
}

/// Writes more than the registry's result limit shows.
#[tool]
fn report() -> String {
    "0123456789".repeat(500)
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The `_meta` of a revision 2026-07-28 request declaring elicitation and
/// the tasks extension.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {}, "extensions": {TASKS: {}}
        },
    })
}

/// The limits of a test's server.
#[derive(Clone, Copy)]
struct Limits {
    sessions: usize,
    calls: usize,
    tasks: usize,
    kept: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            sessions: HttpOptions::DEFAULT_MAX_SESSIONS_PER_CALLER,
            calls: HttpOptions::DEFAULT_MAX_CALLS_PER_CALLER,
            tasks: McpServer::DEFAULT_MAX_TASKS_PER_SESSION,
            kept: MemoryTaskStore::DEFAULT_MAX_TASKS_PER_OWNER,
        }
    }
}

/// A protected server of the test's tools and tasks, its authorization
/// server, and the bearer headers of alice and bob.
struct Setup {
    server: Server,
    _auth: AuthServer,
    alice: String,
    bob: String,
}

impl Setup {
    async fn start(limits: Limits) -> Self {
        let key = Key::new("rsa-1", Algorithm::RS256);
        let auth = AuthServer::start(&[&key]).await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let resource = format!("http://{address}/mcp");
        let resource_server = ResourceServer::builder(&auth.issuer, &resource)
            .build()
            .unwrap();
        let registry = Registry::builder()
            .tool(GreetTool)
            .tool(QuickTool)
            .tool(ReportTool)
            .tool(HoldTool)
            .result_limit(ResultLimit::Bytes(1_000))
            .build()
            .unwrap();
        let store = MemoryTaskStore::new().with_max_tasks_per_owner(limits.kept);
        let options = TaskOptions::default().with_poll_interval(Duration::from_millis(5));
        let server = McpServer::new(registry)
            .with_tasks(Tasks::new(store).with_options(options))
            .with_max_tasks_per_session(limits.tasks);
        let options = HttpOptions::new()
            .resource_server(resource_server)
            .max_sessions_per_caller(limits.sessions)
            .max_calls_per_caller(limits.calls);
        let shutdown = tool_runtime::context::CancellationToken::new();
        let task = tokio::spawn(server.serve_http_with(listener, options, shutdown.clone()));
        let token = |subject: &str| {
            let mut claims = claims(&auth.issuer, &resource);
            claims["sub"] = json!(subject);
            format!("Bearer {}", key.sign(&claims))
        };
        Setup {
            alice: token("alice"),
            bob: token("bob"),
            server: Server {
                address,
                shutdown,
                task,
            },
            _auth: auth,
        }
    }

    /// A revision 2026-07-28 request of `method` by `bearer` (naming
    /// `name` in `Mcp-Name`), with `params` and, unless they have one, the
    /// test's `_meta`.
    async fn modern(
        &self,
        bearer: &str,
        method: &str,
        name: Option<&str>,
        mut params: Value,
    ) -> Answer {
        if params.get("_meta").is_none() {
            params["_meta"] = meta();
        }
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut headers = modern_headers(method, name);
        headers.push(("Authorization", bearer));
        self.server.send("POST", &headers, Some(&message)).await
    }

    /// A task of `tool` made by `bearer`: its id.
    async fn task(&self, bearer: &str, tool: &str) -> String {
        let params = json!({"name": tool, "arguments": {}});
        let answer = self.modern(bearer, "tools/call", Some(tool), params).await;
        let result = &answer.message()["result"];
        assert_eq!(result["resultType"], "task", "{}", answer.body);
        result["taskId"].as_str().unwrap().to_owned()
    }

    /// `method` (`tasks/get`, `tasks/update`, `tasks/cancel`) of `task_id`
    /// by `bearer`, with `params` besides the id.
    async fn on_task(&self, bearer: &str, method: &str, task_id: &str, params: Value) -> Value {
        let mut params = params;
        params["taskId"] = json!(task_id);
        let answer = self.modern(bearer, method, Some(task_id), params).await;
        answer.message().clone()
    }

    /// `tasks/get` of `task_id` by `bearer` until its status is
    /// `status`.
    async fn until(&self, bearer: &str, task_id: &str, status: &str) -> Value {
        for _ in 0..2_000 {
            let task = self.on_task(bearer, "tasks/get", task_id, json!({})).await;
            if task["result"]["status"] == status {
                return task["result"].clone();
            }
            assert!(task["error"].is_null(), "{task}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("task {task_id} never became {status}");
    }

    /// `read_result` of `handle` by `bearer`: the call's result.
    async fn read_result(&self, bearer: &str, handle: &str) -> Value {
        let params = json!({"name": "read_result", "arguments": {"handle": handle}});
        let answer = self
            .modern(bearer, "tools/call", Some("read_result"), params)
            .await;
        answer.message()["result"].clone()
    }

    /// `initialize` (revision 2025-06-18) by `bearer`: the answer.
    async fn initialize(&self, bearer: &str) -> Answer {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}});
        self.server
            .send("POST", &[("Authorization", bearer)], Some(&init))
            .await
    }

    /// A session opened by `bearer`: its id.
    async fn session(&self, bearer: &str) -> String {
        let opened = self.initialize(bearer).await;
        assert_eq!(opened.status, 200, "{}", opened.body);
        opened.header("mcp-session-id").unwrap().to_owned()
    }

    /// A request of `method` (`message` its body) by `bearer` in session
    /// `session`.
    async fn in_session(
        &self,
        bearer: &str,
        session: &str,
        method: &str,
        message: Option<&Value>,
    ) -> Answer {
        let headers = [
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", bearer),
        ];
        self.server.send(method, &headers, message).await
    }
}

/// The message of an error answer, with `id` replaced by `ID`: two
/// refusals of the same shape read the same.
fn shape(answer: &Value, id: &str) -> (i64, String) {
    let error = &answer["error"];
    let message = error["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    (error["code"].as_i64().unwrap(), message.replace(id, "ID"))
}

#[tokio::test]
async fn another_callers_task_is_unknown_to_get_update_cancel_and_list() {
    let setup = Setup::start(Limits::default()).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let task_id = setup.task(alice, "greet").await;
    let waiting = setup.until(alice, &task_id, "input_required").await;
    assert!(waiting["inputRequests"]["name"].is_object(), "{waiting}");

    // To bob, alice's task is what an id never given out is.
    let unknown = "0123456789abcdef0123456789abcdef";
    let answer = json!({"name": {"action": "accept", "content": {"name": "bob"}}});
    for (method, params) in [
        ("tasks/get", json!({})),
        ("tasks/update", json!({"inputResponses": answer})),
        ("tasks/cancel", json!({})),
    ] {
        let refused = setup.on_task(bob, method, &task_id, params.clone()).await;
        let missing = setup.on_task(bob, method, unknown, params).await;
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        assert_eq!(
            shape(&refused, &task_id),
            shape(&missing, unknown),
            "{method}"
        );
        assert!(refused["error"]["data"].is_null(), "{refused}");
    }
    // Nor is there a list to find it in, for anyone.
    for bearer in [alice, bob] {
        let listed = setup.modern(bearer, "tasks/list", None, json!({})).await;
        assert_eq!(listed.message()["error"]["code"], -32601, "{}", listed.body);
    }

    // Bob's answer and cancellation did nothing: alice's task still waits
    // for her, she answers it from a session of her own, and it ends.
    let still = setup.until(alice, &task_id, "input_required").await;
    assert!(still["inputRequests"]["name"].is_object(), "{still}");
    let session = setup.session(alice).await;
    let update = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/update", "params": {
        "taskId": task_id,
        "inputResponses": {"name": {"action": "accept", "content": {"name": "alice"}}},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}}}});
    let updated = setup
        .in_session(alice, &session, "POST", Some(&update))
        .await;
    assert_eq!(updated.status, 200, "{}", updated.body);
    assert!(updated.message()["error"].is_null(), "{}", updated.body);
    let done = setup.until(alice, &task_id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello \"alice\"");

    // Alice cancels her own: the same request bob sent, answered.
    let other = setup.task(alice, "greet").await;
    let cancelled = setup
        .on_task(alice, "tasks/cancel", &other, json!({}))
        .await;
    assert!(cancelled["error"].is_null(), "{cancelled}");
    setup.until(alice, &other, "cancelled").await;
    setup.server.stop().await;
}

/// The handle in a cut result's marker: `r-` and 32 hex digits.
fn handle_in(text: &str) -> String {
    let at = text.find("handle r-").expect("a handle in the marker") + "handle ".len();
    text[at..at + 34].to_owned()
}

#[tokio::test]
async fn another_callers_kept_result_and_request_state_are_unknown() {
    let setup = Setup::start(Limits::default()).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let answer = setup
        .modern(
            alice,
            "tools/call",
            Some("report"),
            json!({"name": "report"}),
        )
        .await;
    let text = answer.message()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", answer.body))
        .to_owned();
    let handle = handle_in(&text);

    // Bob reads nothing under alice's handle, as under a made-up one.
    let text_of = |result: &Value, handle: &str| {
        let text = result["content"][0]["text"].as_str().unwrap();
        text.replace(handle, "HANDLE")
    };
    let refused = setup.read_result(bob, &handle).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let made_up = "r-0123456789abcdef0123456789abcdef";
    let missing = setup.read_result(bob, made_up).await;
    assert_eq!(text_of(&refused, &handle), text_of(&missing, made_up));
    assert!(text_of(&refused, &handle).contains("no full result is kept"));
    // Alice reads it.
    let page = setup.read_result(alice, &handle).await;
    assert_eq!(page["isError"], false, "{page}");
    let first = page["content"][1]["text"].as_str().unwrap();
    assert!(first.starts_with("0123456789"), "{page}");

    // A request state sealed for alice does not open for bob: refused as
    // one the server never issued. (Without the tasks extension, greet's
    // question ends the round.)
    let without_tasks = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let first = json!({"name": "greet", "arguments": {}, "_meta": without_tasks});
    let asked = setup
        .modern(alice, "tools/call", Some("greet"), first.clone())
        .await;
    let asked = &asked.message()["result"];
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let state = asked["requestState"].as_str().unwrap().to_owned();
    let retry = |state: &str, name: &str| {
        let mut params = first.clone();
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"name": {"action": "accept", "content": {"name": name}}});
        params
    };
    let stolen = setup
        .modern(bob, "tools/call", Some("greet"), retry(&state, "bob"))
        .await;
    let forged = setup
        .modern(bob, "tools/call", Some("greet"), retry("AAAA", "bob"))
        .await;
    let (stolen, forged) = (stolen.message(), forged.message());
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert_eq!(stolen["error"], forged["error"]);
    // Alice's retry with it completes.
    let answered = setup
        .modern(alice, "tools/call", Some("greet"), retry(&state, "alice"))
        .await;
    let result = &answered.message()["result"];
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["content"][0]["text"], "hello \"alice\"");
    setup.server.stop().await;
}

#[tokio::test]
async fn a_callers_session_is_unknown_to_another_caller() {
    let setup = Setup::start(Limits::default()).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let session = setup.session(alice).await;
    let unknown = "0123456789abcdef0123456789abcdef";
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    for (method, body) in [("POST", Some(&list)), ("GET", None), ("DELETE", None)] {
        let refused = setup.in_session(bob, &session, method, body).await;
        let missing = setup.in_session(bob, unknown, method, body).await;
        assert_eq!(refused.status, 404, "{method}: {}", refused.body);
        assert_eq!(refused.body, missing.body, "{method}");
        assert_eq!(refused.headers, missing.headers, "{method}");
    }
    // The session is alice's still, and hers to end.
    let listed = setup.in_session(alice, &session, "POST", Some(&list)).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(listed.message()["result"]["tools"].is_array());
    let ended = setup.in_session(alice, &session, "DELETE", None).await;
    assert_eq!(ended.status, 200);
    setup.server.stop().await;
}

#[tokio::test]
async fn a_callers_sessions_beyond_its_share_give_way_then_are_refused_not_another_callers() {
    let limits = Limits {
        sessions: 2,
        ..Limits::default()
    };
    let setup = Setup::start(limits).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let hers = setup.session(alice).await;
    // Bob's third session: his oldest, unused, gives way; alice's stays.
    let first = setup.session(bob).await;
    let second = setup.session(bob).await;
    let third = setup.session(bob).await;
    let gone = setup.in_session(bob, &first, "POST", Some(&list)).await;
    assert_eq!(gone.status, 404, "{}", gone.body);
    for (bearer, session) in [(bob, &second), (bob, &third), (alice, &hers)] {
        let served = setup.in_session(bearer, session, "POST", Some(&list)).await;
        assert_eq!(served.status, 200, "{}", served.body);
    }
    // With both of his in use (their standalone streams open), his next
    // is refused, naming the limit; alice still opens sessions.
    let mut streams = Vec::new();
    for session in [&second, &third] {
        let headers = [
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-06-18"),
            ("Authorization", bob.as_str()),
        ];
        let request = setup.server.request("GET", &headers, None);
        let stream = Stream::open(setup.server.address, &request).await;
        assert_eq!(stream.status, 200);
        streams.push(stream);
    }
    let refused = setup.initialize(bob).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert!(
        refused.body.contains("maxSessionsPerCaller"),
        "{}",
        refused.body
    );
    for _ in 0..3 {
        setup.session(alice).await;
    }
    drop(streams);
    setup.server.stop().await;
}

#[tokio::test]
async fn a_callers_calls_beyond_its_share_get_429_and_another_caller_calls() {
    let limits = Limits {
        calls: 2,
        ..Limits::default()
    };
    let setup = Setup::start(limits).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let holding = |id: i64| {
        let mut params = json!({"name": "hold", "arguments": {}, "_meta": meta()});
        params["_meta"]["progressToken"] = json!(id);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let mut headers = modern_headers("tools/call", Some("hold"));
        headers.push(("Authorization", bob));
        setup.server.request("POST", &headers, Some(&message))
    };
    let mut held = Vec::new();
    for id in 1..=2 {
        let mut stream = Stream::open(setup.server.address, &holding(id)).await;
        let progress = stream.event().await.unwrap();
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        held.push(stream);
    }
    let refused = Stream::open(setup.server.address, &holding(3))
        .await
        .whole()
        .await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.header("retry-after"), Some("1"));
    let error = &refused.message()["error"];
    assert_eq!(error["code"], -32603, "{error}");
    assert_eq!(error["data"]["maxCallsPerCaller"], 2, "{error}");
    // Alice's calls are hers to count.
    for _ in 0..3 {
        let params = json!({"name": "quick", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}});
        let called = setup
            .modern(alice, "tools/call", Some("quick"), params)
            .await;
        assert_eq!(called.status, 200, "{}", called.body);
        assert_eq!(called.message()["result"]["content"][0]["text"], "done");
    }
    drop(held);
    setup.server.stop().await;
}

#[tokio::test]
async fn a_callers_tasks_beyond_its_share_are_refused_and_another_caller_starts_one() {
    // Running at once: bob's third waiting task is refused, alice's is not.
    let limits = Limits {
        tasks: 2,
        ..Limits::default()
    };
    let setup = Setup::start(limits).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    for _ in 0..2 {
        setup.task(bob, "greet").await;
    }
    let params = json!({"name": "greet", "arguments": {}});
    let refused = setup.modern(bob, "tools/call", Some("greet"), params).await;
    let error = &refused.message()["error"];
    assert_eq!(error["code"], -32603, "{error}");
    assert_eq!(error["data"]["maxTasksPerCaller"], 2, "{error}");
    setup.task(alice, "greet").await;
    setup.server.stop().await;

    // Kept: bob's share of the store, all running, refuses his next, not
    // alice's.
    let limits = Limits {
        kept: 2,
        ..Limits::default()
    };
    let setup = Setup::start(limits).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    for _ in 0..2 {
        setup.task(bob, "greet").await;
    }
    let params = json!({"name": "greet", "arguments": {}});
    let refused = setup.modern(bob, "tools/call", Some("greet"), params).await;
    let error = &refused.message()["error"];
    assert_eq!(error["code"], -32603, "{error}");
    assert_eq!(error["data"]["maxTasksPerOwner"], 2, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("2 tasks of this caller"), "{message}");
    setup.task(alice, "greet").await;
    setup.server.stop().await;

    // Ended: bob's flood of tasks drops his own oldest, never alice's,
    // and she starts more.
    let limits = Limits {
        kept: 5,
        ..Limits::default()
    };
    let setup = Setup::start(limits).await;
    let (alice, bob) = (&setup.alice, &setup.bob);
    let hers = setup.task(alice, "quick").await;
    setup.until(alice, &hers, "completed").await;
    let mut his = Vec::new();
    for _ in 0..30 {
        let task_id = setup.task(bob, "quick").await;
        setup.until(bob, &task_id, "completed").await;
        his.push(task_id);
    }
    let oldest = setup.on_task(bob, "tasks/get", &his[0], json!({})).await;
    assert_eq!(oldest["error"]["code"], -32602, "{oldest}");
    setup.until(bob, &his[29], "completed").await;
    setup.until(alice, &hers, "completed").await;
    let next = setup.task(alice, "quick").await;
    setup.until(alice, &next, "completed").await;
    setup.server.stop().await;
}
