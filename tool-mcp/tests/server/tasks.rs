//! Tasks and sessions: each session's tasks are its own share of the task
//! store, so one session's flood of tasks never keeps another from
//! starting one; and the tools whose calls may run as tasks say so in the
//! tool list of revision 2025-11-25.

use std::time::Duration;

use serde_json::{Value, json};
use tool_mcp::server::McpServer;
use tool_runtime::Registry;
use tool_tasks::{MemoryTaskStore, TaskOptions, Tasks};

use super::{AddTool, BatchTool, Client, NapTool, OnboardTool, TASKS, modern, task_server};

/// The task tools served with tasks kept in `store`, polled every 5 ms.
fn server_with(store: MemoryTaskStore) -> McpServer {
    let registry = Registry::builder()
        .tool(AddTool)
        .tool(NapTool)
        .tool(BatchTool)
        .tool(OnboardTool)
        .build()
        .unwrap();
    let options = TaskOptions::default().with_poll_interval(Duration::from_millis(5));
    McpServer::new(registry).with_tasks(Tasks::new(store).with_options(options))
}

/// The `_meta` of a session's request declaring the tasks extension (no
/// revision: the session's).
fn declaring() -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}})
}

impl Client {
    /// A session of `server` set up with `initialize` at `revision`.
    async fn session(server: McpServer, revision: &str) -> Client {
        let mut client = Client::open(server);
        let params = json!({
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        });
        let (init, _) = client.request(0, "initialize", params).await;
        assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    /// Makes a task of `nap` for 0 ms in the session, waits until it has
    /// ended, and returns its id.
    async fn quick_task(&mut self, id: i64) -> Value {
        let params = json!({"name": "nap", "arguments": {"ms": 0}, "_meta": declaring()});
        let (created, _) = self.call(id, params).await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let task_id = created["result"]["taskId"].clone();
        let mut poll = id * 1000;
        loop {
            poll += 1;
            let task = self.session_task(poll, &task_id).await;
            assert!(task["error"].is_null(), "{task}");
            if task["result"]["status"] == "completed" {
                return task_id;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// The answer to `tasks/get` of `task_id` in the session.
    async fn session_task(&mut self, id: i64, task_id: &Value) -> Value {
        let params = json!({"taskId": task_id, "_meta": declaring()});
        self.request(id, "tasks/get", params).await.0
    }

    /// The session's `tools/list`, each tool's `execution` by its name.
    async fn executions(&mut self, id: i64, meta: Option<Value>) -> Vec<(String, Value)> {
        let params = meta.map_or(json!({}), |meta| json!({"_meta": meta}));
        let (listed, _) = self.request(id, "tools/list", params).await;
        let tools = listed["result"]["tools"].as_array().expect("a tool list");
        tools
            .iter()
            .map(|tool| {
                let name = tool["name"].as_str().unwrap().to_owned();
                (name, tool.get("execution").cloned().unwrap_or(Value::Null))
            })
            .collect()
    }
}

/// A session that makes tasks without end keeps only its share of the
/// store (its own oldest ended tasks are dropped), another session's tasks
/// stay, and that session still starts tasks: with a store of 20 tasks and
/// shares of 5, 30 tasks of one session leave the other's 3 and room for
/// more.
#[tokio::test]
async fn a_sessions_flood_of_tasks_drops_its_own_and_never_blocks_another_session() {
    let store = MemoryTaskStore::new()
        .with_max_tasks(20)
        .with_max_tasks_per_owner(5);
    let server = server_with(store);
    let mut patient = Client::session(server.clone(), "2025-11-25").await;
    let mut flooding = Client::session(server.clone(), "2025-11-25").await;

    let mut kept = Vec::new();
    for id in 1..=3 {
        kept.push(patient.quick_task(id).await);
    }
    let mut flood = Vec::new();
    for id in 1..=30 {
        flood.push(flooding.quick_task(id).await);
    }

    // The flooding session keeps its five newest; its older ones are gone.
    let (gone, recent) = flood.split_at(25);
    for (n, task_id) in gone.iter().enumerate() {
        let answer = flooding.session_task(900 + n as i64, task_id).await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("to make room"), "{message}");
    }
    for (n, task_id) in recent.iter().enumerate() {
        let answer = flooding.session_task(950 + n as i64, task_id).await;
        assert_eq!(answer["result"]["status"], "completed", "{answer}");
    }
    // The other session's tasks are all there, and it starts another.
    for (n, task_id) in kept.iter().enumerate() {
        let answer = patient.session_task(900 + n as i64, task_id).await;
        assert_eq!(answer["result"]["status"], "completed", "{answer}");
    }
    patient.quick_task(4).await;
    assert_eq!(server.tasks().unwrap().running(), 0);
}

/// A session whose share is taken by tasks that all still run gets a
/// clear refusal naming its share; another session starts tasks as
/// before.
#[tokio::test]
async fn a_session_whose_share_all_runs_is_refused_with_its_limit() {
    let server = server_with(MemoryTaskStore::new().with_max_tasks_per_owner(2));
    let mut busy = Client::session(server.clone(), "2025-11-25").await;
    let mut other = Client::session(server.clone(), "2025-11-25").await;
    let long = json!({"name": "nap", "arguments": {"ms": 60_000}, "_meta": declaring()});
    for id in 1..=2 {
        let (created, _) = busy.call(id, long.clone()).await;
        assert_eq!(created["result"]["status"], "working", "{created}");
    }
    let (refused, _) = busy.call(3, long).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_eq!(refused["error"]["data"]["maxTasksPerOwner"], 2, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 tasks of this session"), "{message}");
    other.quick_task(1).await;
}

/// In revision 2025-11-25, a server that serves tasks marks the tools
/// whose calls may run as tasks (`execution.taskSupport`: `optional`, or
/// `required` for those that run only as tasks, after their input or
/// not), and leaves the others as they are (which reads `forbidden`).
/// Revisions without tasks in their tool definitions, and a server that
/// serves no tasks, list the tools unmarked.
#[tokio::test]
async fn task_tools_are_marked_in_the_tool_list_of_revisions_with_tasks() {
    let expected = [
        ("add", Value::Null),
        ("batch", json!({"taskSupport": "required"})),
        ("crash", json!({"taskSupport": "optional"})),
        ("nap", json!({"taskSupport": "optional"})),
        ("onboard", json!({"taskSupport": "required"})),
        ("survey", json!({"taskSupport": "optional"})),
    ];
    let mut current = Client::session(task_server(TaskOptions::default()), "2025-11-25").await;
    let listed = current.executions(1, None).await;
    let expected: Vec<(String, Value)> = expected
        .into_iter()
        .map(|(name, execution)| (name.to_owned(), execution))
        .collect();
    assert_eq!(listed, expected);

    let unmarked = |listed: Vec<(String, Value)>| listed.iter().all(|(_, e)| e.is_null());
    let mut older = Client::session(task_server(TaskOptions::default()), "2025-06-18").await;
    assert!(unmarked(older.executions(1, None).await));
    // A request of an older session that names 2025-11-25 in its `_meta`
    // is listed as 2025-11-25 lists.
    let named = json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"});
    assert_eq!(older.executions(2, Some(named)).await, expected);

    // The stateless revision has tasks as an extension, with no such field.
    let mut stateless = Client::open(task_server(TaskOptions::default()));
    assert!(unmarked(
        stateless.executions(1, Some(modern(json!({})))).await
    ));

    let registry = Registry::builder()
        .tool(NapTool)
        .tool(BatchTool)
        .build()
        .unwrap();
    let mut without = Client::session(McpServer::new(registry), "2025-11-25").await;
    assert!(unmarked(without.executions(1, None).await));
}
