//! `toolbox task get|cancel ID --tasks redis://...`: an operator reads and
//! cancels a task that another process started, through the Redis they
//! share.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_runtime::{Registry, ToolContext, ToolUse, tool};
use tool_tasks::{RedisTaskStore, TaskOptions, TaskStatus, Tasks};

#[path = "../../../tests/support/redis.rs"]
mod redis;

use super::{code, run, stderr, stdout};

/// Waits until cancelled.
#[tool(register = false)]
async fn lingers(ctx: &ToolContext) -> String {
    ctx.cancelled().await;
    "stopped".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_reads_and_cancels_a_task_from_the_command_line() {
    let redis = redis::Redis::start();
    let store = RedisTaskStore::connect(&redis.url).await.unwrap();
    let tasks = Tasks::shared(Arc::new(store)).with_options(
        TaskOptions::default()
            .with_poll_interval(Duration::from_millis(10))
            .with_heartbeat(Duration::from_millis(200)),
    );
    let registry = Registry::builder().tool(LingersTool).build().unwrap();
    let started = tasks
        .start(
            &registry,
            ToolUse::new("op-1", "lingers", json!({})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let url = redis.url.clone();
    let id = started.id.clone();

    let (read, cancelled) = tokio::task::spawn_blocking(move || {
        let read = run(&["task", "get", &id, "--tasks", &url]);
        let cancelled = run(&["task", "cancel", &id, "--tasks", &url]);
        (read, cancelled)
    })
    .await
    .unwrap();
    assert_eq!(code(&read), 0, "{}", stderr(&read));
    let task: Value = serde_json::from_str(&stdout(&read)).expect("the task as JSON");
    assert_eq!(task["id"], started.id.as_str());
    assert_eq!(task["status"], "working");
    assert_eq!(task["record"]["tool"], "lingers");
    assert_eq!(code(&cancelled), 0, "{}", stderr(&cancelled));
    assert!(
        stdout(&cancelled).contains("asked task"),
        "{}",
        stdout(&cancelled)
    );

    let done = tasks.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Cancelled);

    let url = redis.url.clone();
    let (again, unknown, not_redis) = tokio::task::spawn_blocking(move || {
        (
            run(&["task", "cancel", &started.id, "--tasks", &url]),
            run(&["task", "get", "no-such-task", "--tasks", &url]),
            run(&["task", "get", "x", "--tasks", "http://127.0.0.1:1/"]),
        )
    })
    .await
    .unwrap();
    assert_eq!(code(&again), 0);
    assert!(
        stdout(&again).contains("is not running: cancelled"),
        "{}",
        stdout(&again)
    );
    assert_eq!(code(&unknown), 1);
    assert!(
        stderr(&unknown).contains("no task \"no-such-task\""),
        "{}",
        stderr(&unknown)
    );
    assert_eq!(code(&not_redis), 2);
    assert!(
        stderr(&not_redis).contains("redis://"),
        "{}",
        stderr(&not_redis)
    );
}

/// One JSON-RPC request of revision 2026-07-28 to the MCP endpoint `url`,
/// declaring the tasks extension; its answer (plain JSON, or the last
/// event of an event stream).
fn rpc(url: &str, method: &str, name: &str, params: Value) -> Value {
    use std::io::{Read, Write};
    let address = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once('/'))
        .map(|(address, _)| address)
        .expect("an http URL");
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(address).expect("the server accepts");
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_owned()
    };
    let json = body
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&body);
    serde_json::from_str(json).unwrap_or_else(|_| panic!("a JSON-RPC answer: {head}\n{body}"))
}

/// The body of a chunked HTTP answer.
fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Reads the task on `url` every 50 ms until its status is not `working`.
fn settled(url: &str, id: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let task = rpc(url, "tasks/get", id, json!({"taskId": id}))["result"].clone();
        if task["status"] != "working" || std::time::Instant::now() > deadline {
            return task;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_servers_share_their_tasks_through_redis() {
    use super::serve_http::HttpServer;

    let redis = redis::Redis::start();
    let store = redis.url.clone();
    let first = HttpServer::start(&["--tasks", &store]);
    let second = HttpServer::start(&["--tasks", &store]);
    let document = |pause: u64| {
        json!({"name": "process_document",
               "arguments": {"text": "One part.\n\nAnother part.", "pause_ms": pause}})
    };

    // Started on one, read to its end on the other.
    let created = rpc(&first.url, "tools/call", "process_document", document(100));
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    let done_id = created["taskId"].as_str().unwrap().to_owned();
    let done = settled(&second.url, &done_id);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(
        done["result"]["structuredContent"]["words"].is_number(),
        "{done}"
    );

    // Started on one, cancelled through the other.
    let created = rpc(
        &first.url,
        "tools/call",
        "process_document",
        document(20_000),
    );
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let ack = rpc(&second.url, "tasks/cancel", &id, json!({"taskId": id}));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = settled(&first.url, &id);
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");

    // A server that stops mid-task: its finished task still answers, its
    // running one reads as failed once its heartbeats stop.
    let created = rpc(
        &first.url,
        "tools/call",
        "process_document",
        document(20_000),
    );
    let running_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    drop(first);
    let restarted = HttpServer::start(&["--tasks", &store]);
    let done = rpc(
        &restarted.url,
        "tasks/get",
        &done_id,
        json!({"taskId": done_id}),
    );
    assert_eq!(done["result"]["status"], "completed", "{done}");
    let lost = settled(&second.url, &running_id);
    assert_eq!(lost["status"], "failed", "{lost}");
    assert!(
        lost["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("stopped before it finished")),
        "{lost}"
    );
    assert!(lost["error"]["code"].is_number(), "{lost}");
}
