//! A tool's scopes (`#[tool(scopes(..))]`) against the caller a token
//! shows: a call of a tool whose scopes the token lacks is refused `403`
//! with the challenge that names them, before it is dispatched, and a token
//! with them calls it; `tools/list` leaves out what each caller may not
//! call; over stdio, where the server's context holds the caller, the call
//! ends with the core's tool error.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tool_mcp::auth::ResourceServer;
use tool_mcp::server::{HttpOptions, McpServer};
use tool_runtime::context::{Caller, CancellationToken};
use tool_runtime::{Registry, ToolContext, tool};

use super::{AuthServer, Key, WhoamiTool, claims, text};
use crate::{Answer, Server, call, modern_headers, modern_meta};

/// How many times `write_note` ran: only the test of the refusal before
/// dispatch calls it.
static WRITTEN: AtomicU32 = AtomicU32::new(0);

/// Writes a note.
#[tool(scopes("notes:write"))]
fn write_note(text: String) -> String {
    WRITTEN.fetch_add(1, Ordering::SeqCst);
    format!("noted: {text}")
}

/// Reads the notes.
#[tool(scopes("notes:read"))]
fn read_notes() -> &'static str {
    "no notes"
}

fn registry() -> Registry {
    Registry::builder()
        .tool(WhoamiTool)
        .tool(WriteNoteTool)
        .tool(ReadNotesTool)
        .build()
        .unwrap()
}

/// A protected server of the test's tools, which needs `tools:call` of
/// every request and takes `notes:admin` for `notes:write`; its
/// authorization server, and the bearer header of a token with `scope`.
struct Setup {
    server: Server,
    auth: AuthServer,
    key: Key,
    resource: String,
}

impl Setup {
    async fn start() -> Self {
        let key = Key::new("rsa-1", Algorithm::RS256);
        let auth = AuthServer::start(&[&key]).await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let resource = format!("http://{address}/mcp");
        let resource_server = ResourceServer::builder(&auth.issuer, &resource)
            .required_scopes(["tools:call"])
            .scope_implies("notes:admin", ["notes:write"])
            .build()
            .unwrap();
        let options = HttpOptions::new().resource_server(resource_server);
        let shutdown = CancellationToken::new();
        let server = McpServer::new(registry());
        let task = tokio::spawn(server.serve_http_with(listener, options, shutdown.clone()));
        Setup {
            server: Server {
                address,
                shutdown,
                task,
            },
            auth,
            key,
            resource,
        }
    }

    /// The `Authorization` value of a token granting `scope`.
    fn bearer(&self, scope: &str) -> String {
        let mut claims = claims(&self.auth.issuer, &self.resource);
        claims["scope"] = json!(scope);
        format!("Bearer {}", self.key.sign(&claims))
    }

    /// A revision 2026-07-28 request of `method` (naming `name`) with
    /// `params` and the token `bearer`.
    async fn modern(
        &self,
        bearer: &str,
        method: &str,
        name: Option<&str>,
        mut params: Value,
    ) -> Answer {
        params["_meta"] = modern_meta();
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut headers = modern_headers(method, name);
        headers.push(("Authorization", bearer));
        self.server.send("POST", &headers, Some(&message)).await
    }

    /// A revision 2026-07-28 call of `write_note` with the token `bearer`.
    async fn write_note(&self, bearer: &str) -> Answer {
        let params = json!({"name": "write_note", "arguments": {"text": "hi"}});
        self.modern(bearer, "tools/call", Some("write_note"), params)
            .await
    }

    /// The names `tools/list` gives the token `bearer`, in revision
    /// 2026-07-28, and the list's `cacheScope`.
    async fn listed(&self, bearer: &str) -> (Vec<String>, Value) {
        let answer = self.modern(bearer, "tools/list", None, json!({})).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let result = &answer.message()["result"];
        (names(result), result["cacheScope"].clone())
    }
}

/// The tool names of a `tools/list` result.
fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_call_the_token_lacks_a_scope_for_gets_403_before_dispatch_and_a_stepped_up_token_calls()
{
    let setup = Setup::start().await;
    let port = setup.server.address.port();
    let answer = setup.write_note(&setup.bearer("tools:call")).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(
        answer.header("www-authenticate").unwrap(),
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"the access token lacks a \
             scope this request needs (it needs notes:write tools:call)\", \
             resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\", \
             scope=\"notes:write tools:call\""
        )
    );
    let body: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(body["error"], "insufficient_scope");
    // Refused before the tool ran.
    assert_eq!(WRITTEN.load(Ordering::SeqCst), 0);

    // In a session of revision 2025-06-18 as well.
    let bearer = setup.bearer("tools:call");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let opened = setup
        .server
        .send("POST", &[("Authorization", &bearer)], Some(&init))
        .await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
        ("Authorization", bearer.as_str()),
    ];
    let message = call(json!(2), "write_note", json!({"text": "hi"}));
    let refused = setup.server.send("POST", &headers, Some(&message)).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(WRITTEN.load(Ordering::SeqCst), 0);

    // A token with the scope calls the tool; so does one with a scope that
    // implies it.
    let answer = setup
        .write_note(&setup.bearer("tools:call notes:write"))
        .await;
    assert_eq!(text(&answer), "noted: hi");
    let answer = setup
        .write_note(&setup.bearer("tools:call notes:admin"))
        .await;
    assert_eq!(text(&answer), "noted: hi");
    assert_eq!(WRITTEN.load(Ordering::SeqCst), 2);
    // A tool that needs no scope of its own is called as before.
    let params = json!({"name": "whoami", "arguments": {}});
    let bearer = setup.bearer("tools:call");
    let answer = setup
        .modern(&bearer, "tools/call", Some("whoami"), params)
        .await;
    assert_eq!(text(&answer), "alice m2m tools:call");
    setup.server.stop().await;
}

#[tokio::test]
async fn tools_list_leaves_out_what_each_token_may_not_call() {
    let setup = Setup::start().await;
    let (listed, cache) = setup.listed(&setup.bearer("tools:call")).await;
    assert_eq!(listed, ["whoami"]);
    assert_eq!(cache, "private");
    let (listed, _) = setup.listed(&setup.bearer("tools:call notes:read")).await;
    assert_eq!(listed, ["read_notes", "whoami"]);
    let (listed, _) = setup
        .listed(&setup.bearer("tools:call notes:read notes:admin"))
        .await;
    assert_eq!(listed, ["read_notes", "whoami", "write_note"]);

    // In a session of revision 2025-06-18, for the token of each request.
    let narrow = setup.bearer("tools:call");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let opened = setup
        .server
        .send("POST", &[("Authorization", &narrow)], Some(&init))
        .await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
        ("Authorization", narrow.as_str()),
    ];
    let listed = setup.server.send("POST", &headers, Some(&list)).await;
    assert_eq!(names(&listed.message()["result"]), ["whoami"]);
    setup.server.stop().await;
}

#[tokio::test]
async fn a_server_that_authenticates_no_one_lists_and_calls_every_tool() {
    let server = Server::start(McpServer::new(registry()), HttpOptions::new()).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": modern_meta()}});
    let listed = server
        .send("POST", &modern_headers("tools/list", None), Some(&list))
        .await;
    let result = &listed.message()["result"];
    assert_eq!(names(result), ["read_notes", "whoami", "write_note"]);
    assert_eq!(result["cacheScope"], "public");
    let message = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_notes", "arguments": {}, "_meta": modern_meta()}});
    let headers = modern_headers("tools/call", Some("read_notes"));
    let answer = server.send("POST", &headers, Some(&message)).await;
    assert_eq!(text(&answer), "no notes");
    server.stop().await;
}

/// A stdio session with `server`, over an in-memory pipe: each request
/// written as a line, the answer to it read back.
struct Piped {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Piped {
    async fn start(server: McpServer) -> Self {
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(read, write));
        let (read, writer) = tokio::io::split(client);
        let mut piped = Piped {
            writer,
            lines: BufReader::new(read).lines(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}});
        piped.ask(init).await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        piped.send(&initialized).await;
        piped
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    /// Sends `request` and reads its answer; a hang guard, not a timing
    /// check.
    async fn ask(&mut self, request: Value) -> Value {
        self.send(&request).await;
        loop {
            let next = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line());
            let line = next.await.expect("an answer").unwrap().expect("open");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("id") == request.get("id") {
                return message;
            }
        }
    }
}

#[tokio::test]
async fn over_stdio_the_caller_of_the_server_s_context_gets_the_core_s_tool_error() {
    let caller = Caller::new("ops").with_scopes(["notes:read"]);
    let server = McpServer::new(registry()).with_context(ToolContext::new().with_caller(caller));
    let mut piped = Piped::start(server).await;
    let answer = piped
        .ask(call(json!(1), "write_note", json!({"text": "hi"})))
        .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert_eq!(
        result["content"][0]["text"],
        "the call to write_note needs the scope \"notes:write\", which the caller was not \
         granted, so it was not run"
    );
    let answer = piped.ask(call(json!(2), "read_notes", json!({}))).await;
    assert_eq!(answer["result"]["content"][0]["text"], "no notes");
    let listed = piped
        .ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
        .await;
    assert_eq!(names(&listed["result"]), ["read_notes", "whoami"]);

    // Without a caller (a stdio server's parent process is trusted),
    // nothing is checked.
    let mut piped = Piped::start(McpServer::new(registry())).await;
    let listed = piped
        .ask(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert_eq!(
        names(&listed["result"]),
        ["read_notes", "whoami", "write_note"]
    );
    let answer = piped.ask(call(json!(2), "read_notes", json!({}))).await;
    assert_eq!(answer["result"]["content"][0]["text"], "no notes");
}
