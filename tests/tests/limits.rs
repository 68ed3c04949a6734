//! Limits and failure on the agent path: timeouts, cancellation, panics,
//! blocking tools, concurrent calls with a limit, approval, enabled
//! predicates, retry marking, error redaction, and the tracing span.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;
use tool_runtime::{
    Registry, State, ToolContext, ToolError, ToolSpec, ToolUse, context::Approval,
    context::Approver, events::CallStatus, registry::ErrorDetail, spec::ToolErrorKind, tool,
};

/// Records that a tool ran.
#[derive(Default)]
struct Ran(AtomicBool);

/// Sleeps far longer than its own time limit.
#[tool(timeout = "50ms")]
async fn oversleeps(ran: State<Ran>) -> &'static str {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    ran.0.store(true, Ordering::SeqCst);
    "woke up"
}

/// Sleeps for the given number of milliseconds.
#[tool]
async fn nap(
    /// Milliseconds
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}ms")
}

/// Has a generous limit of its own.
#[tool(timeout = "1h")]
async fn patient(
    /// Milliseconds
    ms: u64,
) -> &'static str {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "patience paid off"
}

/// Waits until cancelled (or forever).
#[tool]
async fn waits(ran: State<Ran>, started: State<Started>) -> &'static str {
    started.0.notify_one();
    std::future::pending::<()>().await;
    ran.0.store(true, Ordering::SeqCst);
    "unreachable"
}

/// Signals that a tool started.
#[derive(Default)]
struct Started(Notify);

/// A blocking tool that waits, on its own thread, for an async task.
#[tool(blocking)]
fn waits_for_async_task(signal: State<Signal>) -> Result<&'static str, String> {
    let receiver = signal.0.lock().unwrap().take().ok_or("no signal channel")?;
    receiver
        .recv_timeout(Duration::from_secs(10))
        .map(|()| "the async task ran meanwhile")
        .map_err(|_| "the executor was stalled: the async task never ran".to_owned())
}

/// The channel the blocking tool waits on.
struct Signal(Mutex<Option<std::sync::mpsc::Receiver<()>>>);

/// A blocking tool that panics.
#[tool(blocking)]
fn blocking_boom() -> String {
    panic!("blocking tool gave up")
}

/// A blocking tool that runs until its call is cancelled.
#[tool(blocking)]
fn spins_until_cancelled(ctx: &ToolContext, ran: State<Ran>) -> &'static str {
    for _ in 0..10_000 {
        if ctx.is_cancelled() {
            ran.0.store(true, Ordering::SeqCst);
            return "noticed";
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    "never cancelled"
}

/// Panics synchronously.
#[tool]
fn sync_boom(
    /// Put into the panic message
    secret: String,
) -> String {
    panic!("sync boom with {secret}")
}

/// Panics after an await.
#[tool]
async fn async_boom() -> String {
    tokio::task::yield_now().await;
    panic!("async boom")
}

/// Counts concurrent calls.
#[derive(Default)]
struct Gauge {
    now: AtomicUsize,
    max: AtomicUsize,
}

/// Sleeps a while, counting how many calls run at once.
#[tool]
async fn counted(
    /// Its position, returned
    index: usize,
    /// Milliseconds
    ms: u64,
    gauge: State<Gauge>,
) -> usize {
    let now = gauge.now.fetch_add(1, Ordering::SeqCst) + 1;
    gauge.max.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    gauge.now.fetch_sub(1, Ordering::SeqCst);
    index
}

/// How many quick calls have finished.
#[derive(Default)]
struct Finished(AtomicUsize, Notify);

/// Finishes at once.
#[tool]
fn quick(finished: State<Finished>) -> &'static str {
    finished.0.fetch_add(1, Ordering::SeqCst);
    finished.1.notify_waiters();
    "quick"
}

/// Finishes only after three quick calls have.
#[tool]
async fn slow(finished: State<Finished>) -> &'static str {
    loop {
        let notified = finished.1.notified();
        if finished.0.load(Ordering::SeqCst) >= 3 {
            return "slow, after three quick ones";
        }
        notified.await;
    }
}

/// Deletes everything.
#[tool(needs_approval)]
fn wipe(
    /// What to wipe
    target: String,
    ran: State<Ran>,
) -> String {
    ran.0.store(true, Ordering::SeqCst);
    format!("wiped {target}")
}

/// Reads a file (annotated destructive for the sake of the test).
#[tool(destructive = true)]
fn shred(ran: State<Ran>) -> &'static str {
    ran.0.store(true, Ordering::SeqCst);
    "shredded"
}

/// Lists secrets.
#[tool]
fn secrets(ran: State<Ran>) -> &'static str {
    ran.0.store(true, Ordering::SeqCst);
    "the secrets"
}

/// Asks the model to try again.
#[tool]
fn lookup(
    /// A customer id
    id: u64,
) -> Result<String, ToolError> {
    Err(ToolError::retry(format!(
        "no customer has id {id}; call list_customers first"
    )))
}

/// Fails with an internal error and with detail.
#[tool]
fn backend(
    /// Which failure
    internal: bool,
) -> Result<String, ToolError> {
    if internal {
        Err(ToolError::internal("connection to db-3:5432 reset by peer"))
    } else {
        Err(
            ToolError::new("the report could not be saved; try again later")
                .with_detail("s3 PutObject 503 on bucket reports-eu"),
        )
    }
}

fn call(name: &str, input: Value) -> ToolUse {
    ToolUse::new(format!("{name}-1"), name, input)
}

fn ran_state(ctx: &ToolContext) -> State<Ran> {
    ctx.app_state::<Ran>()
        .expect("the test put a Ran on the context")
}

#[tokio::test(start_paused = true)]
async fn a_tool_past_its_own_timeout_is_stopped() {
    let registry = Registry::builder().tool(OversleepsTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    let (result, record) = registry
        .invoke_recorded(call("oversleeps", json!({})), &ctx)
        .await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::TimedOut));
    assert_eq!(
        result.text_content(),
        "tool oversleeps timed out after 50ms and was stopped"
    );
    assert_eq!(record.status, CallStatus::Incomplete);
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
}

#[tokio::test(start_paused = true)]
async fn the_registry_default_timeout_applies_unless_the_tool_has_its_own() {
    let registry = Registry::builder()
        .tool(NapTool)
        .tool(PatientTool)
        .default_timeout(Duration::from_millis(20))
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let result = registry.invoke(call("nap", json!({"ms": 5})), &ctx).await;
    assert_eq!(result.text_content(), "slept 5ms");

    let result = registry.invoke(call("nap", json!({"ms": 500})), &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::TimedOut));
    assert_eq!(
        result.text_content(),
        "tool nap timed out after 20ms and was stopped"
    );

    // The tool's own limit (an hour) wins over the registry's default.
    let result = registry
        .invoke(call("patient", json!({"ms": 500})), &ctx)
        .await;
    assert_eq!(result.text_content(), "patience paid off");
}

#[tokio::test]
async fn a_timed_out_blocking_tool_sees_its_cancellation() {
    let registry = Registry::builder()
        .tool(SpinsUntilCancelledTool)
        .default_timeout(Duration::from_millis(20))
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    let result = registry
        .invoke(call("spins_until_cancelled", json!({})), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::TimedOut));
    // The blocking thread cannot be stopped, but its context is cancelled.
    let ran = ran_state(&ctx);
    for _ in 0..2_000 {
        if ran.0.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert!(
        ran.0.load(Ordering::SeqCst),
        "the tool saw the cancellation"
    );
}

#[tokio::test]
async fn cancelling_the_context_stops_the_tool() {
    let registry = Registry::builder().tool(WaitsTool).build().unwrap();
    let ctx = ToolContext::new()
        .with_app_state(Ran::default())
        .with_app_state(Started::default());
    let started = ctx.app_state::<Started>().unwrap();
    let token = ctx.cancellation_token().clone();
    let cancel = async {
        started.0.notified().await;
        token.cancel();
    };
    let ((result, record), ()) = tokio::join!(
        registry.invoke_recorded(call("waits", json!({})), &ctx),
        cancel
    );
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(
        result.text_content(),
        "the call to waits was cancelled before it finished"
    );
    assert_eq!(record.status, CallStatus::Incomplete);
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_never_runs() {
    let registry = Registry::builder().tool(SecretsTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    ctx.cancellation_token().cancel();
    let result = registry.invoke(call("secrets", json!({})), &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
}

#[tokio::test]
async fn every_way_a_call_ends_has_its_status() {
    let registry = Registry::builder()
        .tool(NapTool)
        .tool(SyncBoomTool)
        .tool(AsyncBoomTool)
        .tool(LookupTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let cases = [
        (call("nap", json!({"ms": 0})), CallStatus::Completed, None),
        (
            call("nap", json!({"ms": "soon"})),
            CallStatus::Failed,
            Some(ToolErrorKind::InvalidArguments),
        ),
        (
            call("sync_boom", json!({"secret": "x"})),
            CallStatus::Failed,
            Some(ToolErrorKind::Panicked),
        ),
        (
            call("async_boom", json!({})),
            CallStatus::Failed,
            Some(ToolErrorKind::Panicked),
        ),
        (
            call("lookup", json!({"id": 42})),
            CallStatus::Failed,
            Some(ToolErrorKind::Retry),
        ),
    ];
    for (tool_use, status, kind) in cases {
        let name = tool_use.name.clone();
        let (result, record) = registry.invoke_recorded(tool_use, &ctx).await;
        assert_eq!(record.status, status, "{name}: {}", result.text_content());
        assert_eq!(result.error_kind, kind, "{name}");
        assert_eq!(record.error_kind, kind, "{name}");
    }
}

#[tokio::test]
async fn panics_become_error_results_in_sync_async_and_blocking_tools() {
    let registry = Registry::builder()
        .tool(SyncBoomTool)
        .tool(AsyncBoomTool)
        .tool(BlockingBoomTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let texts = [
        registry
            .invoke(call("sync_boom", json!({"secret": "k"})), &ctx)
            .await,
        registry.invoke(call("async_boom", json!({})), &ctx).await,
        registry
            .invoke(call("blocking_boom", json!({})), &ctx)
            .await,
    ]
    .map(|result| {
        assert_eq!(result.error_kind, Some(ToolErrorKind::Panicked));
        result.text_content()
    });
    assert_eq!(
        texts,
        [
            "tool sync_boom panicked: sync boom with k",
            "tool async_boom panicked: async boom",
            "tool blocking_boom panicked: blocking tool gave up",
        ]
    );
    // The registry keeps serving.
    let again = registry.invoke(call("async_boom", json!({})), &ctx).await;
    assert_eq!(again.error_kind, Some(ToolErrorKind::Panicked));
}

#[tokio::test(flavor = "current_thread")]
async fn a_blocking_tool_does_not_stall_the_executor() {
    let (sender, receiver) = std::sync::mpsc::channel();
    let registry = Registry::builder()
        .tool(WaitsForAsyncTaskTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Signal(Mutex::new(Some(receiver))));
    // One thread runs both: the tool waits for the async task, which can
    // only run if the tool is off this thread.
    let (result, ()) = tokio::join!(
        registry.invoke(call("waits_for_async_task", json!({})), &ctx),
        async {
            tokio::task::yield_now().await;
            sender.send(()).unwrap();
        }
    );
    assert_eq!(result.text_content(), "the async task ran meanwhile");
}

#[tokio::test(start_paused = true)]
async fn invoke_all_honours_the_limit_and_keeps_input_order() {
    let registry = Registry::builder()
        .tool(CountedTool)
        .tool(SyncBoomTool)
        .concurrency_limit(2)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Gauge::default());
    let durations = [40u64, 10, 30, 5, 20, 1];
    let mut uses: Vec<ToolUse> = durations
        .iter()
        .enumerate()
        .map(|(i, ms)| ToolUse::new(format!("c{i}"), "counted", json!({"index": i, "ms": ms})))
        .collect();
    // A failing call and an unknown tool spoil only their own results.
    uses.insert(2, ToolUse::new("boom", "sync_boom", json!({"secret": "s"})));
    uses.insert(4, ToolUse::new("ghost", "no_such_tool", json!({})));

    let results = registry.invoke_all(uses.clone(), &ctx).await;
    assert_eq!(results.len(), uses.len());
    for (tool_use, result) in uses.iter().zip(&results) {
        assert_eq!(result.tool_use_id, tool_use.id);
    }
    let numbers: Vec<String> = results
        .iter()
        .filter(|r| r.is_success())
        .map(|r| r.text_content())
        .collect();
    assert_eq!(numbers, ["0", "1", "2", "3", "4", "5"]);
    assert_eq!(results[2].error_kind, Some(ToolErrorKind::Panicked));
    assert_eq!(results[4].error_kind, Some(ToolErrorKind::UnknownTool));

    let gauge = ctx.app_state::<Gauge>().unwrap();
    assert_eq!(
        gauge.max.load(Ordering::SeqCst),
        2,
        "at most two at once, and two did overlap"
    );
    assert_eq!(gauge.now.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn without_a_limit_invoke_all_runs_everything_at_once() {
    let registry = Registry::builder().tool(CountedTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Gauge::default());
    let uses =
        (0..5).map(|i| ToolUse::new(format!("c{i}"), "counted", json!({"index": i, "ms": 10})));
    let results = registry.invoke_all(uses, &ctx).await;
    assert!(results.iter().all(|r| r.is_success()));
    assert_eq!(
        ctx.app_state::<Gauge>().unwrap().max.load(Ordering::SeqCst),
        5
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_call_does_not_hold_up_the_others() {
    let registry = Registry::builder()
        .tool(SlowTool)
        .tool(QuickTool)
        .concurrency_limit(2)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Finished::default());
    // The slow call takes a slot first and needs all three quick calls to
    // finish in the other slot before it can.
    let uses = vec![
        call("slow", json!({})),
        call("quick", json!({})),
        call("quick", json!({})),
        call("quick", json!({})),
    ];
    let results = tokio::time::timeout(Duration::from_secs(60), registry.invoke_all(uses, &ctx))
        .await
        .expect("the quick calls used the free slot while the slow one waited");
    let texts: Vec<String> = results.iter().map(|r| r.text_content()).collect();
    assert_eq!(
        texts,
        ["slow, after three quick ones", "quick", "quick", "quick"]
    );
}

#[tokio::test]
async fn approval_approves_rejects_and_refuses_without_an_approver() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let approving = Registry::builder()
        .tool(WipeTool)
        .approver(Approver::new(move |request| {
            log.lock()
                .unwrap()
                .push((request.tool().to_owned(), request.input.clone()));
            if request.input["target"] == "cache" {
                Approval::Approve
            } else {
                Approval::reject("only the cache may be wiped")
            }
        }))
        .build()
        .unwrap();

    let ctx = ToolContext::new().with_app_state(Ran::default());
    let result = approving
        .invoke(call("wipe", json!({"target": "cache"})), &ctx)
        .await;
    assert_eq!(result.text_content(), "wiped cache");
    assert!(ran_state(&ctx).0.load(Ordering::SeqCst));

    let ctx = ToolContext::new().with_app_state(Ran::default());
    let (result, record) = approving
        .invoke_recorded(call("wipe", json!({"target": "database"})), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotApproved));
    assert_eq!(
        result.text_content(),
        "the call to wipe was rejected: only the cache may be wiped"
    );
    assert_eq!(record.status, CallStatus::Failed);
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
    assert_eq!(
        *asked.lock().unwrap(),
        [
            ("wipe".to_owned(), json!({"target": "cache"})),
            ("wipe".to_owned(), json!({"target": "database"})),
        ]
    );

    // No approver anywhere: refused, never run.
    let bare = Registry::builder().tool(WipeTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    let result = bare
        .invoke(call("wipe", json!({"target": "cache"})), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotApproved));
    assert_eq!(
        result.text_content(),
        "the call to wipe needs approval and no approver is configured, so it was not run"
    );
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
}

#[tokio::test]
async fn the_context_approver_wins_and_may_be_async() {
    let registry = Registry::builder()
        .tool(WipeTool)
        .approver(Approver::new(|_| Approval::reject("the registry says no")))
        .build()
        .unwrap();
    let approver = Approver::new_async(|request| async move {
        tokio::task::yield_now().await;
        if request.context.state().get("user") == Some(&json!("admin")) {
            Approval::Approve
        } else {
            Approval::reject(format!("{} is for admins", request.tool()))
        }
    });
    let admin = ToolContext::new()
        .with_state("user", json!("admin"))
        .with_approver(approver.clone())
        .with_app_state(Ran::default());
    let result = registry
        .invoke(call("wipe", json!({"target": "logs"})), &admin)
        .await;
    assert_eq!(result.text_content(), "wiped logs");

    let guest = ToolContext::new()
        .with_state("user", json!("guest"))
        .with_approver(approver)
        .with_app_state(Ran::default());
    let result = registry
        .invoke(call("wipe", json!({"target": "logs"})), &guest)
        .await;
    assert_eq!(
        result.text_content(),
        "the call to wipe was rejected: wipe is for admins"
    );
}

#[tokio::test]
async fn a_registry_predicate_can_require_approval() {
    let registry = Registry::builder()
        .tool(ShredTool)
        .tool(SecretsTool)
        .require_approval(|spec: &ToolSpec| spec.annotations.destructive == Some(true))
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    let result = registry.invoke(call("shred", json!({})), &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotApproved));
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
    let result = registry.invoke(call("secrets", json!({})), &ctx).await;
    assert_eq!(result.text_content(), "the secrets");
}

#[tokio::test]
async fn the_enabled_predicate_hides_and_refuses_tools() {
    let registry = Registry::builder()
        .tool(SecretsTool)
        .tool(NapTool)
        .enabled_when(|spec, ctx| {
            spec.name != "secrets" || ctx.state().get("admin") == Some(&json!(true))
        })
        .build()
        .unwrap();
    let guest = ToolContext::new().with_app_state(Ran::default());
    let names: Vec<&str> = registry.specs_for(&guest).map(|s| &*s.name).collect();
    assert_eq!(names, ["nap"]);
    assert_eq!(
        registry.specs().count(),
        2,
        "specs() still lists every tool"
    );
    let result = registry.invoke(call("secrets", json!({})), &guest).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Disabled));
    assert_eq!(
        result.text_content(),
        "tool secrets is not available here; do not call it again in this conversation"
    );
    assert!(!ran_state(&guest).0.load(Ordering::SeqCst));

    let admin = ToolContext::new()
        .with_state("admin", json!(true))
        .with_app_state(Ran::default());
    let names: Vec<&str> = registry.specs_for(&admin).map(|s| &*s.name).collect();
    assert_eq!(names, ["nap", "secrets"]);
    let result = registry.invoke(call("secrets", json!({})), &admin).await;
    assert_eq!(result.text_content(), "the secrets");
}

#[tokio::test]
async fn an_unknown_name_never_suggests_a_hidden_tool() {
    let registry = Registry::builder()
        .tool(SecretsTool)
        .tool(NapTool)
        .allow(["secret*", "nap"])
        .enabled_when(|spec, ctx| {
            spec.name != "secrets" || ctx.state().get("admin") == Some(&json!(true))
        })
        .build()
        .unwrap();
    let guest = ToolContext::new();
    let result = registry.invoke(call("secret", json!({})), &guest).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::UnknownTool));
    assert_eq!(
        result.text_content(),
        "unknown tool \"secret\"; available tools: nap"
    );
    let error = registry
        .call_json("secret", json!({}), &guest)
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        "unknown tool \"secret\"; available tools: nap"
    );
    let result = registry.invoke(call("shred", json!({})), &guest).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotAllowed));
    assert_eq!(
        result.text_content(),
        "tool \"shred\" is not allowed here; the tools you may call are: nap"
    );

    let admin = ToolContext::new().with_state("admin", json!(true));
    let result = registry.invoke(call("secret", json!({})), &admin).await;
    assert_eq!(
        result.text_content(),
        "unknown tool \"secret\"; did you mean \"secrets\"?; available tools: nap, secrets"
    );
}

#[tokio::test]
async fn an_unknown_name_lists_only_tools_inside_the_allowlist() {
    let registry = Registry::builder()
        .tool(SecretsTool)
        .tool(NapTool)
        .tool(ShredTool)
        .allow(["nap", "shred"])
        .build()
        .unwrap();
    let result = registry
        .invoke(call("nap", json!({"ms": 0})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "slept 0ms");
    // "secrets*" is not allowed, so "secret" is refused, listing the others.
    let result = registry
        .invoke(call("secret", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::NotAllowed));
    assert_eq!(
        result.text_content(),
        "tool \"secret\" is not allowed here; the tools you may call are: nap, shred"
    );
}

#[tokio::test]
async fn an_unknown_name_survives_a_panicking_enabled_predicate() {
    let registry = Registry::builder()
        .tool(SecretsTool)
        .tool(NapTool)
        .enabled_when(|spec, _ctx| {
            assert_ne!(spec.name, "secrets", "the predicate gives up on secrets");
            true
        })
        .build()
        .unwrap();
    let result = registry
        .invoke(call("secret", json!({})), &ToolContext::new())
        .await;
    assert_eq!(
        result.text_content(),
        "unknown tool \"secret\"; available tools: nap"
    );
}

/// Cancels its own call's token, then waits for something that never comes.
#[tool]
async fn gives_up(ctx: &ToolContext) -> &'static str {
    ctx.cancellation_token().cancel();
    std::future::pending::<()>().await;
    "unreachable"
}

/// Cancels its own call's token and returns all the same.
#[tool]
fn cancels_itself(ctx: &ToolContext) -> &'static str {
    ctx.cancellation_token().cancel();
    "done anyway"
}

/// Hands a clone of its context to a task that cancels the call.
#[tool]
async fn cancels_from_a_task(ctx: &ToolContext) -> &'static str {
    let clone = ctx.clone();
    tokio::spawn(async move { clone.cancellation_token().cancel() });
    ctx.cancelled().await;
    std::future::pending::<()>().await;
    "unreachable"
}

#[tokio::test]
async fn a_call_cancelling_its_own_token_ends_cancelled_and_spares_the_caller() {
    let registry = Registry::builder()
        .tool(GivesUpTool)
        .tool(CancelsFromATaskTool)
        .tool(CancelsItselfTool)
        .tool(NapTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    for name in ["gives_up", "cancels_from_a_task", "cancels_itself"] {
        let (result, record) = registry.invoke_recorded(call(name, json!({})), &ctx).await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled), "{name}");
        assert_eq!(
            result.text_content(),
            format!("the call to {name} was cancelled before it finished")
        );
        assert_eq!(record.status, CallStatus::Incomplete);
    }
    assert!(
        !ctx.is_cancelled(),
        "only the call's own token was cancelled"
    );
    let result = registry.invoke(call("nap", json!({"ms": 1})), &ctx).await;
    assert_eq!(result.text_content(), "slept 1ms");
}

#[tokio::test]
async fn retry_requests_are_marked() {
    let registry = Registry::builder().tool(LookupTool).build().unwrap();
    let (result, record) = registry
        .invoke_recorded(call("lookup", json!({"id": 7})), &ToolContext::new())
        .await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::Retry));
    assert_eq!(
        result.text_content(),
        "no customer has id 7; call list_customers first"
    );
    assert_eq!(
        serde_json::to_value(&record).unwrap()["error_kind"],
        "retry"
    );
}

#[tokio::test]
async fn panics_and_internal_errors_can_be_redacted_and_detail_is_never_sent() {
    let full = Registry::builder()
        .tool(SyncBoomTool)
        .tool(BackendTool)
        .build()
        .unwrap();
    let redacted = Registry::builder()
        .tool(SyncBoomTool)
        .tool(BackendTool)
        .error_detail(ErrorDetail::Redacted)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let panic_call = || call("sync_boom", json!({"secret": "hunter2"}));
    let internal_call = || call("backend", json!({"internal": true}));
    let detail_call = || call("backend", json!({"internal": false}));

    let text = full.invoke(panic_call(), &ctx).await.text_content();
    assert_eq!(text, "tool sync_boom panicked: sync boom with hunter2");
    let text = redacted.invoke(panic_call(), &ctx).await.text_content();
    assert_eq!(text, "tool sync_boom panicked; the details were logged");

    let result = full.invoke(internal_call(), &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Internal));
    assert_eq!(
        result.text_content(),
        "tool backend failed with an internal error: connection to db-3:5432 reset by peer"
    );
    let result = redacted.invoke(internal_call(), &ctx).await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Internal));
    assert_eq!(
        result.text_content(),
        "tool backend failed with an internal error; the details were logged"
    );

    for registry in [&full, &redacted] {
        let (result, record) = registry.invoke_recorded(detail_call(), &ctx).await;
        assert_eq!(
            result.text_content(),
            "the report could not be saved; try again later"
        );
        let json = serde_json::to_string(&record).unwrap();
        assert!(!json.contains("reports-eu"), "{json}");
    }
}

/// Makes every callsite interesting to every thread, whichever test
/// reaches it first: a process-wide subscriber, then the cached interests
/// rebuilt.
///
/// tracing caches a callsite's interest when the callsite is first reached.
/// While a single subscriber is registered (a test's, scoped to its thread),
/// another test's thread that reaches a callsite first asks only its own
/// default, which is none, and the callsite is cached as never enabled, for
/// the first test's thread too. A global subscriber interested in
/// everything is always asked as well.
fn interest_in_every_callsite() {
    static GLOBAL: std::sync::Once = std::sync::Once::new();
    GLOBAL.call_once(|| {
        tracing::subscriber::set_global_default(tracing_subscriber::registry())
            .expect("no other global subscriber in this test binary");
    });
    tracing::callsite::rebuild_interest_cache();
}

/// A minimal subscriber that keeps each span's fields.
#[derive(Default)]
struct SpanCapture {
    spans: Mutex<Vec<(String, HashMap<String, String>)>>,
}

struct FieldsVisitor<'a>(&'a mut HashMap<String, String>);

impl tracing::field::Visit for FieldsVisitor<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl tracing::Subscriber for SpanCapture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = HashMap::new();
        attrs.record(&mut FieldsVisitor(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push((attrs.metadata().name().to_owned(), fields));
        tracing::span::Id::from_u64(spans.len() as u64)
    }

    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        let index = usize::try_from(span.into_u64()).unwrap() - 1;
        values.record(&mut FieldsVisitor(&mut spans[index].1));
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, _: &tracing::Event<'_>) {}

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn every_call_runs_in_a_span_with_status_and_duration() {
    interest_in_every_callsite();
    let capture = Arc::new(SpanCapture::default());
    let _guard = tracing::subscriber::set_default(Arc::clone(&capture));
    let registry = Registry::builder()
        .tool(NapTool)
        .tool(LookupTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    registry
        .invoke(ToolUse::new("span-1", "nap", json!({"ms": 1})), &ctx)
        .await;
    registry
        .invoke(ToolUse::new("span-2", "lookup", json!({"id": 1})), &ctx)
        .await;

    let spans = capture.spans.lock().unwrap();
    let calls: Vec<&HashMap<String, String>> = spans
        .iter()
        .filter(|(name, _)| name == "execute_tool")
        .map(|(_, fields)| fields)
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["otel.name"], "execute_tool nap");
    assert_eq!(calls[0]["gen_ai.operation.name"], "execute_tool");
    assert_eq!(calls[0]["gen_ai.tool.name"], "nap");
    assert_eq!(calls[0]["gen_ai.tool.call.id"], "span-1");
    assert_eq!(calls[0]["status"], "completed");
    assert!(calls[0]["duration_ms"].parse::<u64>().is_ok());
    assert!(!calls[0].contains_key("error.type"));
    assert_eq!(calls[1]["gen_ai.tool.name"], "lookup");
    assert_eq!(calls[1]["status"], "failed");
    assert_eq!(calls[1]["error.type"], "retry");
}

#[tokio::test]
async fn a_panicking_policy_hook_is_an_error_result_and_the_tool_does_not_run() {
    let registry = Registry::builder()
        .tool(WipeTool)
        .approver(Approver::new(|_| panic!("approver lost its database")))
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_app_state(Ran::default());
    let result = registry
        .invoke(call("wipe", json!({"target": "cache"})), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Panicked));
    assert_eq!(
        result.text_content(),
        "a policy hook panicked while serving tool wipe"
    );
    assert!(!ran_state(&ctx).0.load(Ordering::SeqCst));
}

// ---------------------------------------------------------------------------
// Tools that read no context: calls made without a context of their own
// ---------------------------------------------------------------------------

/// How many times `tally` ran.
static TALLIED: AtomicUsize = AtomicUsize::new(0);

/// Counts its calls; takes nothing from the context.
#[tool]
fn tally() -> usize {
    TALLIED.fetch_add(1, Ordering::SeqCst) + 1
}

/// How many times `untouched` ran: only calls that must not run it call it,
/// so no other test moves this count while one of them reads it.
static UNTOUCHED: AtomicUsize = AtomicUsize::new(0);

/// Counts its calls; takes nothing from the context. Only called by calls
/// cancelled before they start.
#[tool]
fn untouched() -> usize {
    UNTOUCHED.fetch_add(1, Ordering::SeqCst) + 1
}

/// The same, reading its context.
#[tool]
fn untouched_ctx(ctx: &ToolContext) -> usize {
    assert!(ctx.tool_use_id().is_some());
    UNTOUCHED.fetch_add(1, Ordering::SeqCst) + 1
}

#[test]
fn only_tools_that_read_their_context_say_they_take_one() {
    use tool_runtime::Tool;
    assert!(!NapTool.takes_context(), "arguments only");
    assert!(!TallyTool.takes_context(), "no parameters");
    assert!(WaitsTool.takes_context(), "injected state");
    assert!(GivesUpTool.takes_context(), "&ToolContext");
}

#[tokio::test]
async fn a_tool_without_context_still_answers_to_cancellation() {
    let registry = Registry::builder()
        .tool(UntouchedTool)
        .tool(NapTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    ctx.cancellation_token().cancel();
    let (result, record) = registry
        .invoke_recorded(call("untouched", json!({})), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(record.status, CallStatus::Incomplete);
    assert_eq!(UNTOUCHED.load(Ordering::SeqCst), 0, "it never ran");

    // Cancelled while it waits.
    let ctx = ToolContext::new();
    let token = ctx.cancellation_token().clone();
    let cancel = async {
        tokio::task::yield_now().await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(
        registry.invoke(call("nap", json!({"ms": 3_600_000})), &ctx),
        cancel
    );
    assert_eq!(
        result.text_content(),
        "the call to nap was cancelled before it finished"
    );

    // A stream's own token stops it too.
    let events = registry.stream(call("nap", json!({"ms": 3_600_000})), &ToolContext::new());
    events.cancel();
    let (result, record) = events.finish().await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(record.status, CallStatus::Incomplete);
}

#[tokio::test]
async fn a_tool_without_context_is_recorded_and_called_directly() {
    let registry = Registry::builder().tool(TallyTool).build().unwrap();
    let ctx = ToolContext::new();
    let (result, record) = registry
        .invoke_recorded(call("tally", json!({})), &ctx)
        .await;
    assert_eq!(result.tool_use_id, "tally-1");
    assert!(result.is_success(), "{}", result.text_content());
    assert_eq!(record.status, CallStatus::Completed);
    assert_eq!(record.id, "tally-1");
    let counted: usize = result.text_content().parse().unwrap();
    let direct = registry.call_json("tally", json!({}), &ctx).await.unwrap();
    assert_eq!(direct, json!(counted + 1));
}

#[tokio::test]
async fn a_token_handed_out_after_the_call_was_made_still_cancels_it() {
    let registry = Registry::builder()
        .tool(UntouchedTool)
        .tool(UntouchedCtxTool)
        .tool(NapTool)
        .tool(WaitsTool)
        .build()
        .unwrap();

    // Nothing has asked for the context's token when the call is made; a
    // clone hands it out on another thread and cancels it before the call
    // is polled.
    let ctx = ToolContext::new();
    let pending = registry.invoke(call("untouched", json!({})), &ctx);
    let clone = ctx.clone();
    std::thread::spawn(move || clone.cancellation_token().cancel())
        .join()
        .unwrap();
    assert!(ctx.is_cancelled(), "clones share the token");
    let result = pending.await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(UNTOUCHED.load(Ordering::SeqCst), 0, "it never ran");

    // The same for a tool that reads its context.
    let ctx = ToolContext::new();
    let pending = registry.invoke(call("untouched_ctx", json!({})), &ctx);
    ctx.cancellation_token().cancel();
    assert_eq!(pending.await.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(UNTOUCHED.load(Ordering::SeqCst), 0, "it never ran");

    // A call already waiting when the token is first handed out.
    for (name, input) in [("nap", json!({"ms": 3_600_000})), ("waits", json!({}))] {
        let ctx = ToolContext::new()
            .with_app_state(Ran::default())
            .with_app_state(Started::default());
        let cancel = async {
            tokio::task::yield_now().await;
            ctx.cancellation_token().cancel();
        };
        let (result, ()) = tokio::join!(registry.invoke(call(name, input), &ctx), cancel);
        assert_eq!(
            result.text_content(),
            format!("the call to {name} was cancelled before it finished")
        );
    }

    // A context whose token nobody asked for is never cancelled.
    let ctx = ToolContext::new();
    assert!(!ctx.is_cancelled());
    let result = registry.invoke(call("nap", json!({"ms": 1})), &ctx).await;
    assert!(result.is_success(), "{}", result.text_content());
}

/// Takes any JSON.
#[tool]
fn take_any(
    /// Anything
    value: Value,
) -> usize {
    value.to_string().len()
}

/// Takes a number.
#[tool]
fn take_number(
    /// A count
    count: u32,
) -> u32 {
    count
}

/// A value `levels` arrays deep, built without recursion.
fn nested(levels: usize) -> Value {
    let mut value = json!(0);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// Drops a deep value without recursion.
fn take_apart(value: Value) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => stack.append(items),
            Value::Object(members) => {
                stack.extend(std::mem::take(members).into_iter().map(|(_, v)| v))
            }
            _ => {}
        }
    }
}

#[test]
fn arguments_nested_past_the_limit_are_refused_on_a_small_stack() {
    use futures_util::FutureExt;
    // The arguments hold the whole chain; the registry takes them apart.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let registry = Registry::builder().tool(TakeAnyTool).build().unwrap();
            let ctx = ToolContext::new();
            // The agent path owns the value: it refuses it and drops it.
            let call = ToolUse::new("deep", "take_any", json!({}));
            let call = ToolUse {
                input: Value::Object(serde_json::Map::from_iter([(
                    "value".to_owned(),
                    nested(100_000),
                )])),
                ..call
            };
            let result = registry.invoke(call, &ctx).now_or_never().unwrap();
            // The direct path borrows it: refused, and the caller drops it.
            let input = Value::Object(serde_json::Map::from_iter([(
                "value".to_owned(),
                nested(100_000),
            )]));
            let direct = tool_runtime::Tool::call(&TakeAnyTool, &input, &ctx)
                .now_or_never()
                .unwrap();
            take_apart(input);
            (result, direct.err())
        })
        .unwrap();
    let (result, direct) = worker.join().expect("no stack overflow");
    // Just inside the limit still runs (on an ordinary stack).
    let registry = Registry::builder().tool(TakeAnyTool).build().unwrap();
    let fits = Value::Object(serde_json::Map::from_iter([(
        "value".to_owned(),
        nested(tool_runtime::spec::MAX_ARGUMENT_DEPTH - 2),
    )]));
    let fine = registry
        .invoke(ToolUse::new("ok", "take_any", fits), &ToolContext::new())
        .now_or_never()
        .unwrap();
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(
        result.text_content(),
        "invalid arguments for take_any: the arguments nest deeper than 128 levels of objects and arrays"
    );
    assert_eq!(direct.unwrap().kind(), ToolErrorKind::InvalidArguments);
    assert!(fine.is_success(), "{}", fine.text_content());
}

#[tokio::test]
async fn deep_arguments_are_refused_once_through_the_registry_and_directly() {
    use tool_runtime::Tool;
    let deep = || json!({"value": nested(tool_runtime::spec::MAX_ARGUMENT_DEPTH + 1)});
    let message = "invalid arguments for take_any: the arguments nest deeper than 128 levels \
                   of objects and arrays";
    let ctx = ToolContext::new();
    // The registry checks them before it looks the tool up, and the tool's
    // decoder, handed them as checked, does not refuse them a second time.
    let registry = Registry::builder().tool(TakeAnyTool).build().unwrap();
    let result = registry
        .invoke(ToolUse::new("1", "take_any", deep()), &ctx)
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::InvalidArguments));
    assert_eq!(result.text_content(), message);
    // A direct call is checked where it decodes: `Tool::call`, `call_json`,
    // and the registry's direct path.
    let input = deep();
    let direct = TakeAnyTool.call(&input, &ctx).await.unwrap_err();
    assert_eq!(direct.to_string(), message);
    assert_eq!(direct.argument_errors().len(), 1);
    let json = TakeAnyTool.call_json(&input, &ctx).await.unwrap_err();
    assert_eq!(json.to_string(), message);
    let through = registry.call_json("take_any", deep(), &ctx).await;
    assert_eq!(through.unwrap_err().to_string(), message);
    // Just inside the limit runs on every path.
    let fits = json!({"value": nested(tool_runtime::spec::MAX_ARGUMENT_DEPTH - 2)});
    let invoked = registry
        .invoke(ToolUse::new("2", "take_any", fits.clone()), &ctx)
        .await;
    assert!(invoked.is_success(), "{}", invoked.text_content());
    assert!(TakeAnyTool.call(&fits, &ctx).await.is_ok());
}

#[tokio::test]
async fn input_quoted_back_is_escaped_and_bounded() {
    let registry = Registry::builder().tool(TakeNumberTool).build().unwrap();
    let ctx = ToolContext::new();
    // A name with a terminal escape sequence is shown escaped.
    let result = registry
        .invoke(ToolUse::new("1", "take\u{1b}[31mnumber", json!({})), &ctx)
        .await;
    assert!(
        result
            .text_content()
            .starts_with(r#"unknown tool "take\u{1b}[31mnumber""#),
        "{}",
        result.text_content()
    );
    assert!(!result.text_content().contains('\u{1b}'));
    // A megabyte of name comes back as 64 characters and an ellipsis.
    let long = "n".repeat(1 << 20);
    let result = registry
        .invoke(ToolUse::new("2", long, json!({})), &ctx)
        .await;
    let text = result.text_content();
    assert!(text.len() < 300, "{} bytes", text.len());
    assert!(text.contains(&format!("\"{}…\"", "n".repeat(64))), "{text}");
    // Four megabytes sent to a number field: a short preview.
    let big = "7".repeat(4 << 20);
    let result = registry
        .invoke(
            ToolUse::new("3", "take_number", json!({"count": big})),
            &ctx,
        )
        .await;
    let text = result.text_content();
    assert!(text.len() < 300, "{} bytes", text.len());
    assert!(
        text.starts_with("invalid arguments for take_number: count: expected an integer from 0 to 4294967295, got \"777"),
        "{text}"
    );
    assert!(text.ends_with('…'), "{text}");
    // The same through the text path.
    let args = json!({"count": big}).to_string();
    let error = tool_runtime::Tool::call_str(&TakeNumberTool, &args, &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), text);
    // A long string where a string belongs is no problem.
    let result = registry
        .invoke(
            ToolUse::new("3b", "take_number", json!({"count": 3, "extra": big})),
            &ctx,
        )
        .await;
    assert!(
        result.text_content().contains("extra: unknown field"),
        "{}",
        result.text_content()
    );
    // Keys the model made up are escaped and cut too.
    let key = format!("\u{7}{}", "k".repeat(500));
    let result = registry
        .invoke(
            ToolUse::new("4", "take_number", json!({"count": 1, key: 2})),
            &ctx,
        )
        .await;
    let text = result.text_content();
    assert!(
        text.contains(r#"\u{7}kkk"#) && !text.contains('\u{7}'),
        "{text}"
    );
    assert!(text.len() < 400, "{} bytes", text.len());
}

// The example tools register themselves when linked; the built-in ones
// are named in `bench::fuzz::registry`.
use examples as _;

#[test]
fn generated_arguments_for_every_tool_never_escape_as_panics() {
    // A small run of the fuzz suite; `cargo run --release -p bench --bin
    // fuzz -- 1000000` is the long one (docs/security.md).
    let root = tempfile::tempdir().unwrap();
    let registry = bench::fuzz::registry(root.path());
    let report = bench::fuzz::run(&registry, 1_000, 11);
    assert_eq!(report.cases, 1_000);
    assert_eq!(report.escaped_panics, 0, "{report:?}");
    assert!(report.unnamed.is_empty(), "{:#?}", report.unnamed);
}
