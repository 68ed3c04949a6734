//! Calls as tasks: started at once, read later by id from any holder of
//! the store, cancelled from any of them, bounded, and never left running
//! forever when their process is gone.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

#[path = "../../support/redis.rs"]
mod redis;
use redis::Redis;
use tool_runtime::context::{Caller, Owner};
use tool_runtime::{Registry, ToolContext, ToolError, ToolUse, tool};
use tool_tasks::{
    MemoryTaskStore, RedisTaskStore, Task, TaskError, TaskOptions, TaskStatus, TaskStore,
    TaskStoreError, Tasks,
};

/// Reports half-way, then answers.
#[tool(register = false)]
async fn halves(ctx: &ToolContext, text: String) -> String {
    ctx.progress(0.5, "half-way");
    tokio::time::sleep(Duration::from_millis(20)).await;
    text.to_uppercase()
}

/// Waits until cancelled: the registry then drops the call, and the guard
/// tells the test.
#[tool(register = false)]
async fn waits(
    ctx: &ToolContext,
    probe: tool_runtime::State<Arc<Probe>>,
) -> Result<String, ToolError> {
    let _guard = Stopped {
        probe: Arc::clone(&probe),
    };
    probe.started.notify_one();
    ctx.cancelled().await;
    Err(ToolError::new("stopped"))
}

/// What `waits` tells the test: that it started, and that it was stopped.
#[derive(Default)]
struct Probe {
    started: tokio::sync::Notify,
    stopped: tokio::sync::Notify,
}

/// Tells the probe when the call's future is dropped.
struct Stopped {
    probe: Arc<Probe>,
}

impl Drop for Stopped {
    fn drop(&mut self) {
        self.probe.stopped.notify_one();
    }
}

/// Panics.
#[tool(register = false)]
fn breaks() -> String {
    panic!("out of order")
}

fn registry(probe: &Arc<Probe>) -> Registry {
    Registry::builder()
        .tool(BreaksTool)
        .tool(HalvesTool)
        .tool(WaitsTool)
        .state(Arc::clone(probe))
        .build()
        .unwrap()
}

fn quick() -> TaskOptions {
    TaskOptions::default()
        .with_poll_interval(Duration::from_millis(5))
        .with_heartbeat(Duration::from_millis(50))
}

/// A task starts at once and is read back with its result, whatever the
/// result is; unknown ids are none.
async fn results(tasks: Tasks) {
    let probe = Arc::new(Probe::default());
    let registry = registry(&probe);
    let call = ToolUse::new("", "halves", json!({"text": "done"}));
    let started = tasks
        .start(&registry, call, &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(started.status, TaskStatus::Working);
    assert_eq!(started.id.len(), 32);
    assert_eq!(
        started.record.id, started.id,
        "a tool use without an id takes the task's"
    );

    let done = tasks.wait(&started.id).await.unwrap().expect("kept");
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result().unwrap().text_content(), "DONE");
    assert_eq!(done.record.progress, Some(0.5));
    assert_eq!(done.status_message.as_deref(), Some("half-way"));
    assert!(done.updated_at_ms >= done.created_at_ms);
    assert_eq!(tasks.running(), 0);

    // Wrong arguments: the task completes with the error result.
    let call = ToolUse::new("t2", "halves", json!({"text": 5}));
    let started = tasks
        .start(&registry, call, &ToolContext::new())
        .await
        .unwrap();
    let done = tasks.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert!(done.result().unwrap().is_error());
    assert!(done.status_message.unwrap().contains("text"));

    // A panic is no result of the tool's own: the task fails.
    let call = ToolUse::new("t3", "breaks", json!({}));
    let started = tasks
        .start(&registry, call, &ToolContext::new())
        .await
        .unwrap();
    let done = tasks.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Failed);
    assert!(done.result().unwrap().is_error());

    assert_eq!(tasks.get("no-such-task").await.unwrap(), None);
    assert!(!tasks.cancel("no-such-task").await.unwrap());
}

/// Another holder of the store reads a task and cancels it; the call is
/// stopped where it runs.
async fn cancels(starter: Tasks, other: Tasks) {
    let probe = Arc::new(Probe::default());
    let registry = registry(&probe);

    let call = ToolUse::new("c1", "waits", json!({}));
    let started = starter
        .start(&registry, call, &ToolContext::new())
        .await
        .unwrap();
    let read = other
        .get(&started.id)
        .await
        .unwrap()
        .expect("the other holder finds it");
    assert_eq!(read.status, TaskStatus::Working);
    probe.started.notified().await;

    assert!(other.cancel(&started.id).await.unwrap());
    let done = starter.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Cancelled);
    // The registry stops the call: its future is dropped.
    tokio::time::timeout(Duration::from_secs(5), probe.stopped.notified())
        .await
        .expect("the call is stopped");
    assert!(
        !other.cancel(&started.id).await.unwrap(),
        "an ended task is not running"
    );
}

#[tokio::test]
async fn tasks_are_bounded() {
    let probe = Arc::new(Probe::default());
    let registry = registry(&probe);
    let tasks = Tasks::in_memory().with_options(quick().with_max_running(1));
    let first = tasks
        .start(
            &registry,
            ToolUse::new("a", "waits", json!({})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let refused = tasks
        .start(
            &registry,
            ToolUse::new("b", "halves", json!({"text": "x"})),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(refused, TaskError::TooMany { limit: 1 });
    assert!(refused.to_string().contains("1 tasks run already"));
    tasks.cancel(&first.id).await.unwrap();
    tasks.wait(&first.id).await.unwrap();

    // A full store whose one task still runs refuses another.
    let full = Tasks::new(MemoryTaskStore::new().with_max_tasks(1)).with_options(quick());
    let running = full
        .start(
            &registry,
            ToolUse::new("a", "waits", json!({})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let refused = full
        .start(
            &registry,
            ToolUse::new("b", "halves", json!({"text": "y"})),
            &ToolContext::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(refused, TaskError::Store(TaskStoreError::Full { limit: 1 }));
    full.cancel(&running.id).await.unwrap();
    full.wait(&running.id).await.unwrap();

    // A result over the limit is not kept: the task fails, saying so.
    let small = Tasks::in_memory().with_options(quick().with_max_result_bytes(100));
    let started = small
        .start(
            &registry,
            ToolUse::new("big", "halves", json!({"text": "x".repeat(200)})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    let done = small.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Failed);
    assert!(done.result().is_none());
    let message = done.status_message.unwrap();
    assert!(message.contains("over the 100 a task keeps"), "{message}");
}

/// A task is forgotten after its time to live.
async fn forgotten(tasks: Tasks) {
    let probe = Arc::new(Probe::default());
    let registry = registry(&probe);
    let brief = tasks.with_options(quick().with_ttl(Some(Duration::from_millis(30))));
    let started = brief
        .start(
            &registry,
            ToolUse::new("a", "halves", json!({"text": "x"})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(brief.get(&started.id).await.unwrap(), None);
}

/// A task whose process ended (working, not heard from for a minute)
/// reads as failed, with the reason.
async fn lost(store: Arc<dyn TaskStore>) {
    // As a store outside the process would keep it after the process that
    // ran the call ended: working, last heard from a minute ago.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let stale: Task = serde_json::from_value(json!({
        "type": "task",
        "id": "0123456789abcdef0123456789abcdef",
        "status": "working",
        "status_message": null,
        "record": {
            "type": "record", "id": "c1", "tool": "waits", "status": "in_progress",
            "progress": null, "message": null, "trace": [],
            "started_at_ms": now - 60_000, "ended_at_ms": null, "result": null, "error_kind": null
        },
        "created_at_ms": now - 60_000,
        "updated_at_ms": now - 60_000,
        "ttl_ms": null,
        "poll_interval_ms": 1000,
        "heartbeat_at_ms": now - 60_000,
        "lost_after_ms": 15_000
    }))
    .unwrap();
    store.create(stale).await.unwrap();
    let tasks = Tasks::shared(store);
    let read = tasks
        .get("0123456789abcdef0123456789abcdef")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.status, TaskStatus::Failed);
    assert!(
        read.status_message
            .unwrap()
            .contains("stopped before it finished"),
        "the reason is given"
    );
    assert_eq!(
        serde_json::to_value(TaskStatus::InputRequired).unwrap(),
        json!("input_required")
    );
}

// ------------------------------------------- each store, the same scenarios

/// A Redis store on a connection of its own, as another process has.
async fn store(redis: &Redis) -> Arc<dyn TaskStore> {
    Arc::new(
        RedisTaskStore::connect(&redis.url)
            .await
            .expect("Redis answers"),
    )
}

#[tokio::test]
async fn in_memory_a_task_is_read_back_with_its_result() {
    results(Tasks::in_memory().with_options(quick())).await;
}

#[tokio::test]
async fn in_memory_another_holder_reads_and_cancels_a_task() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let starter = Tasks::shared(Arc::clone(&store)).with_options(quick());
    cancels(starter, Tasks::shared(store)).await;
}

#[tokio::test]
async fn in_memory_a_task_is_forgotten_after_its_time_to_live() {
    forgotten(Tasks::in_memory()).await;
}

#[tokio::test]
async fn in_memory_a_task_whose_process_ended_reads_as_failed() {
    lost(Arc::new(MemoryTaskStore::new())).await;
}

#[tokio::test]
async fn in_redis_a_task_is_read_back_with_its_result() {
    let redis = Redis::start();
    results(Tasks::shared(store(&redis).await).with_options(quick())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_redis_another_process_reads_and_cancels_a_task() {
    let redis = Redis::start();
    let starter = Tasks::shared(store(&redis).await).with_options(quick());
    cancels(starter, Tasks::shared(store(&redis).await)).await;
}

#[tokio::test]
async fn in_redis_a_task_is_forgotten_after_its_time_to_live() {
    let redis = Redis::start();
    forgotten(Tasks::shared(store(&redis).await)).await;
}

#[tokio::test]
async fn in_redis_a_task_whose_process_ended_reads_as_failed() {
    let redis = Redis::start();
    lost(store(&redis).await).await;
}

#[tokio::test]
async fn redis_keeps_tasks_apart_by_prefix_and_reports_an_unreachable_server() {
    let redis = Redis::start();
    let first = Tasks::shared(store(&redis).await).with_options(quick());
    let other = Tasks::new(
        RedisTaskStore::connect(&redis.url)
            .await
            .unwrap()
            .with_prefix("another-app:"),
    );
    let probe = Arc::new(Probe::default());
    let started = first
        .start(
            &registry(&probe),
            ToolUse::new("p", "halves", json!({"text": "x"})),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert!(first.get(&started.id).await.unwrap().is_some());
    assert_eq!(other.get(&started.id).await.unwrap(), None);
    first.wait(&started.id).await.unwrap();

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let error = RedisTaskStore::connect(&format!("redis://127.0.0.1:{port}/"))
        .await
        .unwrap_err();
    assert!(matches!(error, TaskStoreError::Unavailable(_)), "{error}");
}

/// Asks whoever started its task for a word, then answers with it.
#[tool(register = false)]
async fn asks(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit_with_schema("A word?", json!({"type": "object"}))
        .await?;
    match answer {
        tool_runtime::context::Elicitation::Accepted(word) => Ok(format!("got {}", word["word"])),
        other => Ok(format!("{other:?}")),
    }
}

/// A client whose requests wait in the task: each elicitation parked under
/// a key, its answer the accepted content.
struct Parked(tool_tasks::TaskInput);

impl tool_runtime::context::ClientRequests for Parked {
    fn sample(
        &self,
        _request: tool_runtime::context::SamplingRequest,
    ) -> tool_runtime::context::ClientFuture<'_, tool_runtime::context::SamplingResponse> {
        Box::pin(async { Err(ToolError::new("no sampling here")) })
    }

    fn elicit(
        &self,
        request: tool_runtime::context::ElicitationRequest,
    ) -> tool_runtime::context::ClientFuture<
        '_,
        tool_runtime::context::Elicitation<serde_json::Value>,
    > {
        Box::pin(async move {
            let key = self.0.key(None, "elicitation");
            let answer = self
                .0
                .ask(&key, json!({"message": request.message}))
                .await
                .map_err(|error| ToolError::new(error.to_string()))?;
            Ok(tool_runtime::context::Elicitation::Accepted(answer))
        })
    }
}

/// A task's request waits in the task until it is answered; answers to
/// keys that do not wait are ignored.
async fn asked(tasks: Tasks) {
    let registry = Registry::builder().tool(AsksTool).build().unwrap();
    let started = tasks
        .start_with_client(
            &registry,
            ToolUse::new("", "asks", json!({})),
            &ToolContext::new(),
            |input| Some(Arc::new(Parked(input)) as Arc<dyn tool_runtime::context::ClientRequests>),
        )
        .await
        .unwrap();
    let waiting = loop {
        let task = tasks.get(&started.id).await.unwrap().unwrap();
        if task.status != TaskStatus::Working {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(waiting.status, TaskStatus::InputRequired);
    assert_eq!(
        waiting.input_requests["elicitation-1"],
        json!({"message": "A word?"})
    );

    // Answers to keys that do not wait are ignored; the right one goes on.
    let mut responses = serde_json::Map::new();
    responses.insert("elicitation-9".into(), json!({"word": "no"}));
    assert!(tasks.respond(&started.id, responses).await.unwrap());
    let task = tasks.get(&started.id).await.unwrap().unwrap();
    assert_eq!(task.status, TaskStatus::InputRequired);
    let mut responses = serde_json::Map::new();
    responses.insert("elicitation-1".into(), json!({"word": "yes"}));
    assert!(tasks.respond(&started.id, responses).await.unwrap());
    let done = tasks.wait(&started.id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result().unwrap().text_content(), "got \"yes\"");
    assert!(done.input_requests.is_empty());
    assert!(
        !tasks
            .respond("unknown", serde_json::Map::new())
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn in_memory_a_tasks_request_waits_in_the_task_until_it_is_answered() {
    asked(Tasks::in_memory().with_options(quick())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_redis_a_tasks_request_waits_in_the_task_until_it_is_answered() {
    let redis = Redis::start();
    asked(Tasks::shared(store(&redis).await).with_options(quick())).await;
}

// ------------------------------------------------ owners and room in a store

/// A task as a store keeps it: `id`, of `owner`, in `status`, made now and
/// kept for an hour.
fn kept(id: &str, owner: Option<&str>, status: &str) -> Task {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    serde_json::from_value(json!({
        "type": "task",
        "id": id,
        "status": status,
        "status_message": null,
        "record": {
            "type": "record", "id": id, "tool": "halves", "status": "in_progress",
            "progress": null, "message": null, "trace": [],
            "started_at_ms": now, "ended_at_ms": null, "result": null, "error_kind": null
        },
        "created_at_ms": now,
        "updated_at_ms": now,
        "ttl_ms": 3_600_000,
        "poll_interval_ms": 1000,
        "heartbeat_at_ms": now,
        "lost_after_ms": 15_000,
        "owner": owner
    }))
    .unwrap()
}

/// Whether `store` finds the task `id`.
async fn finds(store: &dyn TaskStore, id: &str) -> bool {
    store.get(id).await.unwrap().is_some()
}

/// One owner's 10,000 tasks, as quickly as a client can make them, take its
/// share of the store (1,000 by default), its oldest ended ones dropped,
/// and leave room for another owner's.
#[tokio::test]
async fn in_memory_one_owners_ten_thousand_tasks_leave_room_for_another() {
    let store = MemoryTaskStore::new();
    for n in 0..10_000 {
        let task = kept(&format!("a{n}"), Some("session:a"), "completed");
        store.create(task).await.unwrap();
    }
    let share = MemoryTaskStore::DEFAULT_MAX_TASKS_PER_OWNER;
    assert_eq!(share, 1_000);
    assert_eq!(store.owned_by("session:a"), share);
    assert_eq!(store.len(), share);
    assert!(finds(&store, "a9999").await && finds(&store, "a9000").await);
    assert!(!finds(&store, "a8999").await && !finds(&store, "a0").await);

    let other = kept("b0", Some("session:b"), "working");
    store
        .create(other)
        .await
        .expect("another owner starts a task");
    assert!(finds(&store, "b0").await);
    let read = store.get("b0").await.unwrap().unwrap();
    assert_eq!(read.owner.as_deref(), Some("session:b"));
}

/// An owner at its share whose tasks all run is refused, naming its limit,
/// and no other owner's task is dropped for it; a full store drops the
/// oldest tasks that are over (ended, or lost), whoever's, before it
/// refuses.
#[tokio::test]
async fn in_memory_a_full_store_drops_tasks_that_are_over_oldest_first_then_refuses() {
    let store = MemoryTaskStore::new()
        .with_max_tasks(4)
        .with_max_tasks_per_owner(2);
    for (id, owner, status) in [
        ("a1", "a", "working"),
        ("b1", "b", "completed"),
        ("a2", "a", "working"),
        ("b2", "b", "cancelled"),
    ] {
        store.create(kept(id, Some(owner), status)).await.unwrap();
    }
    let refused = store.create(kept("a3", Some("a"), "working")).await;
    assert_eq!(refused, Err(TaskStoreError::OwnerFull { limit: 2 }));
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("2 tasks for this owner"), "{message}");
    for id in ["a1", "a2", "b1", "b2"] {
        assert!(finds(&store, id).await, "{id} is kept");
    }

    // Full: the oldest ended task goes, not a running one.
    store
        .create(kept("c1", Some("c"), "working"))
        .await
        .unwrap();
    assert!(!finds(&store, "b1").await);
    assert!(finds(&store, "b2").await && finds(&store, "a1").await);
    // A task without an owner counts against the total only.
    store.create(kept("n1", None, "working")).await.unwrap();
    assert!(!finds(&store, "b2").await);
    // Everything runs now: refused.
    let refused = store.create(kept("n2", None, "working")).await;
    assert_eq!(refused, Err(TaskStoreError::Full { limit: 4 }));

    // A task whose process stopped is over too.
    let mut silent = kept("c0", Some("c"), "working");
    silent.heartbeat_at_ms -= 60_000;
    let store = MemoryTaskStore::new().with_max_tasks_per_owner(1);
    store.create(silent).await.unwrap();
    store
        .create(kept("c2", Some("c"), "working"))
        .await
        .unwrap();
    assert!(!finds(&store, "c0").await && finds(&store, "c2").await);
}

/// Tasks started through `Tasks::with_owner` are that owner's: the store
/// keeps its share of them, its own oldest ended ones dropped first.
#[tokio::test]
async fn tasks_started_for_an_owner_count_against_its_share() {
    let probe = Arc::new(Probe::default());
    let registry = registry(&probe);
    let store = Arc::new(MemoryTaskStore::new().with_max_tasks_per_owner(2));
    let shared: Arc<dyn TaskStore> = store.clone();
    let tasks = Tasks::shared(shared).with_options(quick());
    let mine = tasks.clone().with_owner("session:mine");
    let mut ids = Vec::new();
    for n in 0..3 {
        let call = ToolUse::new("", "halves", json!({"text": n.to_string()}));
        let started = mine
            .start(&registry, call, &ToolContext::new())
            .await
            .unwrap();
        assert_eq!(started.owner.as_deref(), Some("session:mine"));
        mine.wait(&started.id).await.unwrap();
        ids.push(started.id);
    }
    assert_eq!(store.owned_by("session:mine"), 2);
    assert_eq!(tasks.get(&ids[0]).await.unwrap(), None);
    let last = tasks.get(&ids[2]).await.unwrap().unwrap();
    assert_eq!(last.status, TaskStatus::Completed);
    assert_eq!(last.owner.as_deref(), Some("session:mine"));
}

/// In Redis too, an owner over its share drops its own oldest ended
/// tasks, never another owner's nor those without an owner, and is
/// refused once all it keeps run.
#[tokio::test]
async fn in_redis_an_owner_over_its_share_drops_only_its_own_ended_tasks() {
    let redis = Redis::start();
    let store = RedisTaskStore::connect(&redis.url)
        .await
        .expect("Redis answers")
        .with_max_tasks_per_owner(5);
    for n in 0..3 {
        let task = kept(&format!("b{n}"), Some("session:b"), "completed");
        store.create(task).await.unwrap();
        store
            .create(kept(&format!("n{n}"), None, "completed"))
            .await
            .unwrap();
    }
    for n in 0..40 {
        let task = kept(&format!("a{n}"), Some("session:a"), "completed");
        store.create(task).await.unwrap();
    }
    for n in 0..35 {
        assert!(!finds(&store, &format!("a{n}")).await, "a{n} is dropped");
    }
    for n in 35..40 {
        assert!(finds(&store, &format!("a{n}")).await, "a{n} is kept");
    }
    for n in 0..3 {
        assert!(finds(&store, &format!("b{n}")).await, "b{n} is kept");
        assert!(finds(&store, &format!("n{n}")).await, "n{n} is kept");
    }

    // Five running tasks push the ended ones out; a sixth is refused.
    for n in 0..5 {
        let task = kept(&format!("w{n}"), Some("session:a"), "working");
        store.create(task).await.unwrap();
    }
    let refused = store.create(kept("w5", Some("session:a"), "working")).await;
    assert_eq!(refused, Err(TaskStoreError::OwnerFull { limit: 5 }));
    assert!(!finds(&store, "w5").await);
    for n in 35..40 {
        assert!(!finds(&store, &format!("a{n}")).await, "a{n} made room");
    }
    // Ended, a running task makes room again.
    let mut ended = store.get("w0").await.unwrap().unwrap();
    ended.status = TaskStatus::Completed;
    store.update(ended).await.unwrap();
    store
        .create(kept("w5", Some("session:a"), "working"))
        .await
        .unwrap();
    assert!(!finds(&store, "w0").await && finds(&store, "w5").await);
}

// ------------------------------------------------ a task is its owner's

/// The owner a caller of `subject` is.
fn owner(subject: &str) -> Owner {
    let caller = Caller::new(subject).with_issuer("https://auth.example.com");
    Owner::of_caller(&caller).unwrap()
}

/// A task is its owner's: to another owner's handle it is unknown (none to
/// get, nothing to cancel or answer, as for an id never made), and so to a
/// handle of no one; the owner's handle reads and answers it from any
/// holder of the store (`elsewhere`), and an operator's handle (`all`)
/// reads every task.
async fn kept_apart(alice: Tasks, bob: Tasks, elsewhere: Tasks, all: Tasks) {
    let registry = Registry::builder().tool(AsksTool).build().unwrap();
    let started = alice
        .start_with_client(
            &registry,
            ToolUse::new("", "asks", json!({})),
            &ToolContext::new(),
            |input| Some(Arc::new(Parked(input)) as Arc<dyn tool_runtime::context::ClientRequests>),
        )
        .await
        .unwrap();
    assert_eq!(started.owner.as_deref(), Some(owner("alice").as_str()));
    let id = started.id;
    loop {
        let task = alice.get(&id).await.unwrap().unwrap();
        if task.status == TaskStatus::InputRequired {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let mut bobs = serde_json::Map::new();
    bobs.insert("elicitation-1".into(), json!({"word": "bob"}));
    let nobody = bob.clone().for_owner(None);
    for other in [&bob, &nobody] {
        assert_eq!(other.get(&id).await.unwrap(), None);
        assert_eq!(other.get("never-made").await.unwrap(), None);
        assert!(!other.cancel(&id).await.unwrap());
        assert!(!other.respond(&id, bobs.clone()).await.unwrap());
    }

    // Still alice's, waiting for her: read elsewhere, answered by her.
    let task = elsewhere.get(&id).await.unwrap().expect("hers, wherever");
    assert_eq!(task.status, TaskStatus::InputRequired);
    assert!(task.input_requests.contains_key("elicitation-1"));
    assert!(all.get(&id).await.unwrap().is_some());
    let mut hers = serde_json::Map::new();
    hers.insert("elicitation-1".into(), json!({"word": "alice"}));
    assert!(elsewhere.respond(&id, hers).await.unwrap());
    let done = elsewhere.wait(&id).await.unwrap().unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result().unwrap().text_content(), "got \"alice\"");
}

#[tokio::test]
async fn in_memory_a_task_is_unknown_to_another_owner() {
    let tasks = Tasks::in_memory().with_options(quick());
    let (alice, bob) = (owner("alice"), owner("bob"));
    kept_apart(
        tasks.clone().for_owner(Some(&alice)),
        tasks.clone().for_owner(Some(&bob)),
        tasks.clone().for_owner(Some(&alice)),
        tasks,
    )
    .await;
}

/// Each handle on a connection of its own, as processes sharing one Redis
/// have: the owner is kept with the task in Redis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_redis_a_task_is_unknown_to_another_owner_in_any_process() {
    let redis = Redis::start();
    let (alice, bob) = (owner("alice"), owner("bob"));
    let process = async || Tasks::shared(store(&redis).await).with_options(quick());
    kept_apart(
        process().await.for_owner(Some(&alice)),
        process().await.for_owner(Some(&bob)),
        process().await.for_owner(Some(&alice)),
        process().await,
    )
    .await;

    // An owner at its share, every task of it running, is refused; another
    // owner is not.
    let store = RedisTaskStore::connect(&redis.url)
        .await
        .expect("Redis answers")
        .with_max_tasks_per_owner(2);
    let (alice, bob) = (alice.as_str(), bob.as_str());
    for id in ["b1", "b2"] {
        store.create(kept(id, Some(bob), "working")).await.unwrap();
    }
    let refused = store.create(kept("b3", Some(bob), "working")).await;
    assert_eq!(refused, Err(TaskStoreError::OwnerFull { limit: 2 }));
    store
        .create(kept("a1", Some(alice), "working"))
        .await
        .unwrap();
    assert!(finds(&store, "a1").await && !finds(&store, "b3").await);
}
