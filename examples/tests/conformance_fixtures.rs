//! The `conformance-server` example's tools for the 2026-07-28 scenarios of
//! the MCP conformance suite (`server-stateless`, `input-required-result-*`,
//! `tasks-*`), driven over stdio as those scenarios drive them over HTTP:
//! each request carries the revision and the client's capabilities in its
//! `_meta`, a tool's requests come back as `input_required` results
//! answered by calling again, and a task's wait in the task for
//! `tasks/update`.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The server, spawned, and the client's ends of its pipes.
struct Server {
    _child: Child,
    input: ChildStdin,
    output: Lines<BufReader<ChildStdout>>,
    next_id: i64,
}

/// The `_meta` the conformance suite sends, with `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "conformance-test-client", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// The suite's default capabilities.
fn all() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

impl Server {
    fn start() -> Self {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("conformance-server starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap()).lines();
        Server {
            _child: child,
            input,
            output,
            next_id: 0,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.input.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.output.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server is running");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `method` with `params` (`_meta` added unless given) and
    /// returns its answer and the messages before it.
    async fn request(&mut self, method: &str, mut params: Value) -> (Value, Vec<Value>) {
        if params.get("_meta").is_none() {
            params["_meta"] = meta(all());
        }
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) {
                return (message, before);
            }
            before.push(message);
        }
    }

    async fn call(&mut self, name: &str, extra: Value) -> Value {
        let mut params = json!({"name": name, "arguments": {}});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        self.request("tools/call", params).await.0
    }
}

/// The `input_required` result of `answer`, checked.
fn input_required(answer: &Value) -> &Value {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    result
}

/// The text of a complete result.
fn text(answer: &Value) -> &str {
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn the_custom_header_tool_declares_its_header_parameter() {
    let mut server = Server::start();
    let (listed, _) = server.request("tools/list", json!({})).await;
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "test_custom_headers")
        .expect("test_custom_headers is listed")
        .clone();
    // What http-custom-header-server-validation looks for: a top-level
    // string property with `x-mcp-header`.
    assert_eq!(
        tool["inputSchema"]["properties"]["region"],
        json!({"type": "string", "description": "The region to run in", "x-mcp-header": "Region"})
    );
    // Over stdio there are no headers: the call runs.
    let answer = server
        .call(
            "test_custom_headers",
            json!({"arguments": {"region": "Hello"}}),
        )
        .await;
    assert_eq!(text(&answer), "region: Hello");
}

#[tokio::test]
async fn the_stateless_diagnostic_tools_behave_as_server_stateless_expects() {
    let mut server = Server::start();
    let (listed, _) = server.request("tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    for name in [
        "test_missing_capability",
        "test_streaming_elicitation",
        "test_logging_tool",
        "test_trigger_tool_change",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }

    // Sampling needed, not declared: -32021 naming it.
    let (missing, _) = server
        .request(
            "tools/call",
            json!({"name": "test_missing_capability", "arguments": {}, "_meta": meta(json!({}))}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32021, "{missing}");
    assert_eq!(
        missing["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );

    // A question mid-call: a result, no request of the server's.
    let (asked, before) = server
        .request(
            "tools/call",
            json!({"name": "test_streaming_elicitation", "arguments": {},
                "_meta": meta(json!({"elicitation": {}}))}),
        )
        .await;
    input_required(&asked);
    assert!(before.is_empty(), "{before:?}");

    // No log level, no log messages; with one, some.
    let (_, before) = server
        .request(
            "tools/call",
            json!({"name": "test_logging_tool", "arguments": {}}),
        )
        .await;
    assert!(before.is_empty(), "{before:?}");
    let mut with_level = meta(all());
    with_level["io.modelcontextprotocol/logLevel"] = json!("debug");
    let (_, before) = server
        .request(
            "tools/call",
            json!({"name": "test_logging_tool", "arguments": {}, "_meta": with_level}),
        )
        .await;
    assert_eq!(before.len(), 2, "{before:?}");

    // A subscription hears of the change the trigger makes.
    server
        .send(
            json!({"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
            "params": {"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}}),
        )
        .await;
    let ack = server.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let (changed, before) = server
        .request(
            "tools/call",
            json!({"name": "test_trigger_tool_change", "arguments": {}}),
        )
        .await;
    let mut seen = before;
    if seen.is_empty() {
        seen.push(server.next().await);
    }
    assert_eq!(text(&changed), "added test_toggled_tool");
    assert_eq!(seen[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen"
    );
}

#[tokio::test]
async fn the_input_required_fixtures_go_round_by_round() {
    let mut server = Server::start();

    // Basic elicitation, and its retry (A1).
    let first = server
        .call("test_input_required_result_elicitation", json!({}))
        .await;
    let result = input_required(&first);
    assert_eq!(
        result["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state = result["requestState"].clone();
    let done = server
        .call(
            "test_input_required_result_elicitation",
            json!({"inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
                "requestState": state}),
        )
        .await;
    assert_eq!(text(&done), "Hello, Alice!");
    // Answers without the state (A14): this server takes unsolicited
    // answers (`with_unsolicited_answers`), so the one that fits its
    // question is used and the extra one ignored; with the state, an extra
    // answer is ignored too; wrong key (A7): asked again; not a result
    // (A15): an error.
    let extra = server
        .call(
            "test_input_required_result_elicitation",
            json!({"inputResponses": {
                "user_name": {"action": "accept", "content": {"name": "Alice"}},
                "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}}
            }}),
        )
        .await;
    assert_eq!(text(&extra), "Hello, Alice!");
    let extra = server
        .call(
            "test_input_required_result_elicitation",
            json!({"inputResponses": {
                "user_name": {"action": "accept", "content": {"name": "Alice"}},
                "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}}
            }, "requestState": state}),
        )
        .await;
    assert_eq!(text(&extra), "Hello, Alice!");
    let wrong = server
        .call(
            "test_input_required_result_elicitation",
            json!({"inputResponses": {"wrong_key": {"action": "accept", "content": {}}}}),
        )
        .await;
    input_required(&wrong);
    let invalid = server
        .call(
            "test_input_required_result_elicitation",
            json!({"inputResponses": {"user_name": 12345}}),
        )
        .await;
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");

    // Sampling (A2) and roots (A3).
    let first = server
        .call("test_input_required_result_sampling", json!({}))
        .await;
    let requests = input_required(&first)["inputRequests"].clone();
    assert_eq!(
        requests["capital_question"]["method"],
        "sampling/createMessage"
    );
    let done = server
        .call(
            "test_input_required_result_sampling",
            json!({"inputResponses": {"capital_question": {"role": "assistant", "model": "test-model",
                "content": {"type": "text", "text": "Paris"}, "stopReason": "endTurn"}},
                "requestState": first["result"]["requestState"]}),
        )
        .await;
    assert_eq!(text(&done), "The model says: Paris");
    let first = server
        .call("test_input_required_result_list_roots", json!({}))
        .await;
    let requests = input_required(&first)["inputRequests"].clone();
    let (key, request) = requests.as_object().unwrap().iter().next().unwrap();
    assert_eq!(request["method"], "roots/list");
    let done = server
        .call(
            "test_input_required_result_list_roots",
            json!({"inputResponses": {key.as_str(): {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}},
                "requestState": first["result"]["requestState"]}),
        )
        .await;
    assert_eq!(text(&done), "Client roots: file:///test/root");

    // Request state (A4) and tampering (A12).
    let first = server
        .call("test_input_required_result_request_state", json!({}))
        .await;
    let state = input_required(&first)["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let done = server
        .call(
            "test_input_required_result_request_state",
            json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
                "requestState": state}),
        )
        .await;
    assert!(text(&done).contains("state-ok"), "{done}");
    let first = server
        .call("test_input_required_result_tampered_state", json!({}))
        .await;
    let state = input_required(&first)["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let tampered = server
        .call(
            "test_input_required_result_tampered_state",
            json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
                "requestState": format!("{state}-TAMPERED")}),
        )
        .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");

    // Three requests at once (A5).
    let first = server
        .call("test_input_required_result_multiple_inputs", json!({}))
        .await;
    let requests = input_required(&first)["inputRequests"].clone();
    let mut methods: Vec<&str> = requests
        .as_object()
        .unwrap()
        .values()
        .map(|request| request["method"].as_str().unwrap())
        .collect();
    methods.sort();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"]
    );
    let mut answers = serde_json::Map::new();
    for (key, request) in requests.as_object().unwrap() {
        let answer = match request["method"].as_str().unwrap() {
            "elicitation/create" => json!({"action": "accept", "content": {"name": "Alice"}}),
            "sampling/createMessage" => {
                json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "Hello there!"}})
            }
            _ => json!({"roots": [{"uri": "file:///test/root"}]}),
        };
        answers.insert(key.clone(), answer);
    }
    let done = server
        .call(
            "test_input_required_result_multiple_inputs",
            json!({"inputResponses": answers, "requestState": first["result"]["requestState"]}),
        )
        .await;
    assert_eq!(text(&done), "Hello there! Alice (1 roots)");

    // Two rounds of questions, then the result (A6).
    let first = server
        .call("test_input_required_result_multi_round", json!({}))
        .await;
    assert!(input_required(&first)["inputRequests"]["step1"].is_object());
    let second = server
        .call(
            "test_input_required_result_multi_round",
            json!({"inputResponses": {"step1": {"action": "accept", "content": {"name": "Alice"}}},
                "requestState": first["result"]["requestState"]}),
        )
        .await;
    let result = input_required(&second);
    assert!(result["inputRequests"]["step2"].is_object(), "{second}");
    assert_ne!(result["requestState"], first["result"]["requestState"]);
    let done = server
        .call(
            "test_input_required_result_multi_round",
            json!({"inputResponses": {"step2": {"action": "accept", "content": {"color": "blue"}}},
                "requestState": result["requestState"]}),
        )
        .await;
    assert_eq!(text(&done), "Alice likes blue");

    // Only what the client can answer is asked (A13).
    let (sampling_only, _) = server
        .request(
            "tools/call",
            json!({"name": "test_input_required_result_capabilities", "arguments": {},
                "_meta": meta(json!({"sampling": {}}))}),
        )
        .await;
    let requests = input_required(&sampling_only)["inputRequests"].clone();
    let methods: Vec<&str> = requests
        .as_object()
        .unwrap()
        .values()
        .map(|request| request["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["sampling/createMessage"], "{sampling_only}");

    // Never on other requests (A11).
    let (listed, _) = server.request("tools/list", json!({})).await;
    assert_eq!(listed["result"]["resultType"], "complete");
}

/// The suite's capabilities with the tasks extension declared.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

impl Server {
    /// Polls `tasks/get` for `task_id` until `done` holds of the task.
    async fn task_until(&mut self, task_id: &Value, done: impl Fn(&Value) -> bool) -> Value {
        loop {
            let (task, _) = self
                .request(
                    "tasks/get",
                    json!({"taskId": task_id, "_meta": meta(with_tasks())}),
                )
                .await;
            let task = task["result"].clone();
            if done(&task) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test]
async fn the_task_fixtures_behave_as_the_tasks_scenarios_expect() {
    let mut server = Server::start();
    // Without the extension: in the request, or -32021 for a tool that
    // runs only as a task.
    let plain = json!({"_meta": meta(all())});
    let mut params = plain.clone();
    params["arguments"] = json!({"seconds": 0, "label": "now"});
    let answer = server.call("slow_compute", params).await;
    assert_eq!(text(&answer), "computed now in 0 s");
    let refused = server.call("failing_job", plain).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // With it: tasks, and a question that waits in its task.
    let tasks = json!({"_meta": meta(with_tasks())});
    let mut params = tasks.clone();
    params["arguments"] = json!({"filename": "a.txt"});
    let created = server.call("confirm_delete", params).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].clone();
    let waiting = server
        .task_until(&task_id, |task| task["status"] != "working")
        .await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    assert_eq!(
        waiting["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let (ack, _) = server
        .request(
            "tasks/update",
            json!({"taskId": task_id, "_meta": meta(with_tasks()),
                   "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = server
        .task_until(&task_id, |task| task["status"] == "completed")
        .await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "a.txt: confirmed=true"
    );

    let created = server.call("protocol_error_job", tasks).await;
    let failed = server
        .task_until(&created["result"]["taskId"], |task| {
            task["status"] != "working"
        })
        .await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"]["code"].is_number() && failed.get("result").is_none());
}
