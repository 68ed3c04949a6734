//! `toolbox task get|cancel ID --tasks redis://...`: an operator reads and
//! cancels a task that another process started, through the Redis they
//! share.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_runtime::{
    RedisTaskStore, Registry, TaskOptions, TaskStatus, Tasks, ToolContext, ToolUse, tool,
};

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
    let started = registry
        .start_task(
            ToolUse::new("op-1", "lingers", json!({})),
            &ToolContext::new(),
            &tasks,
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
