//! Sequential calls: a call of a sequential tool is a barrier among calls
//! made together, in `Registry::invoke_all` and within an MCP session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Barrier, Semaphore};
use tool_mcp::server::McpServer;
use tool_runtime::{
    Registry, ToolContext, ToolError, ToolUse, dynamic::DynamicTool, spec::ToolAnnotations,
};

/// What the tools did, in order: `"a start"`, `"a end"`, ...
type Log = Arc<Mutex<Vec<String>>>;

/// A tool that notes its start, waits for `gate` (a barrier shared with
/// the calls it must overlap, or nothing), yields, and notes its end.
fn recorder(
    name: &'static str,
    log: &Log,
    gate: Option<Arc<Barrier>>,
) -> tool_runtime::dynamic::DynamicToolBuilder {
    let log = Arc::clone(log);
    DynamicTool::builder(
        name,
        "Notes when it starts and ends.",
        json!({"type": "object", "properties": {}}),
    )
    .async_handler(move |_args: Value, _ctx: ToolContext| {
        let log = Arc::clone(&log);
        let gate = gate.clone();
        async move {
            log.lock().unwrap().push(format!("{name} start"));
            if let Some(gate) = gate {
                gate.wait().await;
            }
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            log.lock().unwrap().push(format!("{name} end"));
            Ok::<_, ToolError>(name)
        }
    })
}

fn at(log: &[String], entry: &str) -> usize {
    log.iter()
        .position(|seen| seen == entry)
        .unwrap_or_else(|| panic!("{entry} is not in {log:?}"))
}

/// `a` and `b` overlapped, `s` started after both ended, and `c` and `d`
/// started after `s` ended (and overlapped).
fn assert_barrier(log: &[String]) {
    let (a_end, b_end) = (at(log, "a end"), at(log, "b end"));
    assert!(
        at(log, "a start") < b_end && at(log, "b start") < a_end,
        "{log:?}"
    );
    assert!(a_end.max(b_end) < at(log, "s start"), "{log:?}");
    let s_end = at(log, "s end");
    assert!(
        s_end < at(log, "c start") && s_end < at(log, "d start"),
        "{log:?}"
    );
    assert!(at(log, "c start") < at(log, "d end") && at(log, "d start") < at(log, "c end"));
}

fn calls(names: &[&str]) -> Vec<ToolUse> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| ToolUse::new(format!("call-{i}"), *name, json!({})))
        .collect()
}

/// `invoke_all`, bounded by a generous time so that a broken barrier (a
/// gate that never opens) fails rather than hangs.
async fn invoke_all(registry: &Registry, names: &[&str]) -> Vec<String> {
    let ctx = ToolContext::new();
    let run = registry.invoke_all(calls(names), &ctx);
    let results = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the calls finished");
    results.iter().map(|result| result.text_content()).collect()
}

#[tokio::test]
async fn a_sequential_call_waits_for_the_calls_before_it_and_holds_those_after() {
    let log = Log::default();
    let (first, second) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let registry = Registry::builder()
        .tool(recorder("a", &log, Some(first.clone())).build().unwrap())
        .tool(recorder("b", &log, Some(first)).build().unwrap())
        .tool(recorder("s", &log, None).sequential(true).build().unwrap())
        .tool(recorder("c", &log, Some(second.clone())).build().unwrap())
        .tool(recorder("d", &log, Some(second)).build().unwrap())
        .build()
        .unwrap();
    assert!(registry.is_sequential("s"));
    assert!(!registry.is_sequential("a"));
    let results = invoke_all(&registry, &["a", "b", "s", "c", "d"]).await;
    assert_eq!(results, ["a", "b", "s", "c", "d"]);
    assert_barrier(&log.lock().unwrap());
}

#[tokio::test]
async fn the_concurrency_limit_still_bounds_the_stretches_between_barriers() {
    let log = Log::default();
    let registry = Registry::builder()
        .tool(recorder("a", &log, None).build().unwrap())
        .tool(recorder("b", &log, None).build().unwrap())
        .tool(recorder("s", &log, None).sequential(true).build().unwrap())
        .tool(recorder("c", &log, None).build().unwrap())
        .concurrency_limit(1)
        .build()
        .unwrap();
    let results = invoke_all(&registry, &["a", "b", "s", "c"]).await;
    assert_eq!(results, ["a", "b", "s", "c"]);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "a start", "a end", "b start", "b end", "s start", "s end", "c start", "c end"
        ]
    );
}

#[tokio::test]
async fn sequential_destructive_makes_every_destructive_tool_a_barrier() {
    let destructive = ToolAnnotations {
        destructive: Some(true),
        ..ToolAnnotations::NONE
    };
    let log = Log::default();
    let (first, second) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let builder = Registry::builder()
        .tool(recorder("a", &log, Some(first.clone())).build().unwrap())
        .tool(recorder("b", &log, Some(first)).build().unwrap())
        .tool(
            recorder("s", &log, None)
                .annotations(destructive)
                .build()
                .unwrap(),
        )
        .tool(recorder("c", &log, Some(second.clone())).build().unwrap())
        .tool(recorder("d", &log, Some(second)).build().unwrap());
    assert!(!builder.clone().build().unwrap().is_sequential("s"));
    let registry = builder.sequential_destructive(true).build().unwrap();
    assert!(registry.is_sequential("s"));
    invoke_all(&registry, &["a", "b", "s", "c", "d"]).await;
    assert_barrier(&log.lock().unwrap());

    // Without the setting, a destructive tool overlaps the calls around it:
    // all three wait for one another.
    let log = Log::default();
    let all = Arc::new(Barrier::new(3));
    let registry = Registry::builder()
        .tool(recorder("a", &log, Some(all.clone())).build().unwrap())
        .tool(
            recorder("s", &log, Some(all.clone()))
                .annotations(destructive)
                .build()
                .unwrap(),
        )
        .tool(recorder("b", &log, Some(all)).build().unwrap())
        .build()
        .unwrap();
    assert_eq!(
        invoke_all(&registry, &["a", "s", "b"]).await,
        ["a", "s", "b"]
    );
}

/// A tool for the MCP session: notes its start, waits for a permit of
/// `release` when given one, and notes its end.
fn held(name: &'static str, log: &Log, release: Option<Arc<Semaphore>>) -> DynamicTool {
    let log = Arc::clone(log);
    DynamicTool::builder(
        name,
        "Notes when it starts and ends.",
        json!({"type": "object", "properties": {}}),
    )
    .async_handler(move |_args: Value, _ctx: ToolContext| {
        let log = Arc::clone(&log);
        let release = release.clone();
        async move {
            log.lock().unwrap().push(format!("{name} start"));
            if let Some(release) = release {
                release.acquire().await.unwrap().forget();
            }
            tokio::task::yield_now().await;
            log.lock().unwrap().push(format!("{name} end"));
            Ok::<_, ToolError>(name)
        }
    })
    .sequential(name == "s")
    .build()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_session_runs_a_sequential_call_alone() {
    let log = Log::default();
    let release = Arc::new(Semaphore::new(0));
    let registry = Registry::builder()
        .tool(held("a", &log, Some(release.clone())))
        .tool(held("b", &log, Some(release.clone())))
        .tool(held("s", &log, None))
        .tool(held("c", &log, None))
        .build()
        .unwrap();
    let (client, server) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(McpServer::new(registry).serve_io(server_read, server_write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let mut messages = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    ];
    for (id, name) in [(1, "a"), (2, "b"), (3, "s"), (4, "c")] {
        messages.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}));
    }
    messages.push(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    for message in messages {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut answers = Vec::new();
    let mut released = false;
    while answers.len() < 4 {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("an answer");
        let message: Value = serde_json::from_str(&line).unwrap();
        match message["id"].as_u64() {
            // Every call has arrived: `a` and `b` may finish now. Until
            // then, neither `s` nor `c` may have started.
            Some(5) => {
                let started = |log: &Log| {
                    let log = log.lock().unwrap();
                    log.iter()
                        .filter(|e| *e == "a start" || *e == "b start")
                        .count()
                        == 2
                };
                while !started(&log) {
                    tokio::task::yield_now().await;
                }
                let seen = log.lock().unwrap().clone();
                assert!(
                    !seen.iter().any(|e| e == "s start" || e == "c start"),
                    "{seen:?}"
                );
                release.add_permits(2);
                released = true;
            }
            Some(1..=4) => {
                assert!(released, "a call was answered before a and b were released");
                let text = message["result"]["content"][0]["text"].as_str().unwrap();
                answers.push(text.to_owned());
            }
            _ => {}
        }
    }
    answers.sort();
    assert_eq!(answers, ["a", "b", "c", "s"]);
    let log = log.lock().unwrap().clone();
    let (a_end, b_end) = (at(&log, "a end"), at(&log, "b end"));
    assert!(
        at(&log, "a start") < b_end && at(&log, "b start") < a_end,
        "{log:?}"
    );
    assert!(a_end.max(b_end) < at(&log, "s start"), "{log:?}");
    assert!(at(&log, "s end") < at(&log, "c start"), "{log:?}");
    drop(write);
    drop(lines);
    serving.await.unwrap().unwrap();
}

/// One MCP session over an in-process byte stream: send a message, read
/// the next one (within a generous time, so that a wrongly held call fails
/// rather than hangs).
struct Session {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Session {
    async fn open(registry: Registry) -> Self {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(McpServer::new(registry).serve_io(server_read, server_write));
        let (read, write) = tokio::io::split(client);
        let mut session = Session {
            write,
            lines: BufReader::new(read).lines(),
        };
        session
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
            )
            .await;
        assert_eq!(session.next().await["id"], 0);
        session
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    async fn call(&mut self, id: u64, name: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}))
            .await;
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("a message");
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sequential_call_holds_no_other_sessions_calls() {
    let log = Log::default();
    let release = Arc::new(Semaphore::new(0));
    let registry = Registry::builder()
        .tool(held("s", &log, Some(release.clone())))
        .tool(held("c", &log, None))
        .build()
        .unwrap();
    let mut first = Session::open(registry.clone()).await;
    let mut second = Session::open(registry).await;
    first.call(1, "s").await;
    while !log.lock().unwrap().iter().any(|e| e == "s start") {
        tokio::task::yield_now().await;
    }
    // `s` runs alone in its own session, and holds it; the other session's
    // call runs and is answered meanwhile.
    second.call(1, "c").await;
    let answer = second.next().await;
    assert_eq!(answer["result"]["content"][0]["text"], "c");
    assert!(!log.lock().unwrap().iter().any(|e| e == "s end"));
    release.add_permits(1);
    let answer = first.next().await;
    assert_eq!(answer["result"]["content"][0]["text"], "s");
}
