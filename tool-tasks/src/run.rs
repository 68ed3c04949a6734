//! Running a call as a task: the task is stored before its id is handed
//! out, then a Tokio task runs the call, folds its progress into the
//! stored task, says it is alive at each heartbeat, cancels the call when
//! a holder of the store asks, and stores the end.

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_core::Stream;
use tool_runtime_core::context::CancellationToken;
use tool_runtime_core::{
    Registry, ToolCallStream, ToolContext, ToolEvent, ToolUse, context::ClientRequests,
    events::ToolCallRecord,
};

use crate::input::TaskInput;
use crate::store::TaskStore;
use crate::task::Task;
use crate::{TaskError, Tasks};

/// The shortest time between two stores of a running task's progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Starts `tool_use` as a task in `tasks`' store ([`Tasks::start`],
/// [`Tasks::start_with_client`]).
pub(crate) async fn start(
    tasks: &Tasks,
    registry: &Registry,
    mut tool_use: ToolUse,
    ctx: &ToolContext,
    client: impl FnOnce(TaskInput) -> Option<Arc<dyn ClientRequests>>,
) -> Result<Task, TaskError> {
    let slot = Slot::take(&tasks.running, tasks.options.max_running)?;
    let id = new_id();
    if tool_use.id.is_empty() {
        tool_use.id = id.clone();
    }
    let record = ToolCallRecord::started(tool_use.id.clone(), tool_use.name.clone());
    let owner = tasks.owner.as_deref().map(str::to_owned);
    let task = Task::started(id, record, &tasks.options, owner);
    tasks.store.create(task.clone()).await?;
    let token = CancellationToken::new();
    let mut ctx = ctx.clone().with_cancellation(token.clone());
    if let Some(client) = client(TaskInput::new(Arc::clone(&tasks.store), task.id.clone())) {
        ctx = ctx.with_client(client);
    }
    let call = Call {
        registry: registry.clone(),
        store: Arc::clone(&tasks.store),
        ctx,
        token,
        heartbeat: tasks.options.heartbeat,
        max_result_bytes: tasks.options.max_result_bytes,
        _slot: slot,
    };
    tokio::spawn(call.run(task.clone(), tool_use));
    Ok(task)
}

/// One running task's call and what it needs.
struct Call {
    registry: Registry,
    store: Arc<dyn TaskStore>,
    ctx: ToolContext,
    token: CancellationToken,
    heartbeat: Duration,
    max_result_bytes: usize,
    _slot: Slot,
}

impl Call {
    async fn run(self, mut task: Task, tool_use: ToolUse) {
        let mut events = self.registry.stream(tool_use, &self.ctx);
        // The first beat one period from now: an interval's immediate first
        // tick would wait for the timer's next millisecond.
        let mut heartbeat =
            tokio::time::interval_at(tokio::time::Instant::now() + self.heartbeat, self.heartbeat);
        let id = task.id.clone();
        let mut cancel = self.store.cancel_requested(&id);
        let mut cancelling = false;
        let mut stored_at = Instant::now();
        loop {
            tokio::select! {
                event = next(&mut events) => match event {
                    Some(ToolEvent::Result(_)) | None => break,
                    Some(ToolEvent::Progress { .. }) if stored_at.elapsed() >= PROGRESS_EVERY => {
                        task.progressed(events.record());
                        self.store_now(&task).await;
                        stored_at = Instant::now();
                    }
                    Some(_) => {}
                },
                _ = heartbeat.tick() => {
                    task.progressed(events.record());
                    self.store_now(&task).await;
                    stored_at = Instant::now();
                }
                _ = &mut cancel, if !cancelling => {
                    cancelling = true;
                    self.token.cancel();
                }
            }
        }
        drop(cancel);
        // The call is over, and its place among the running tasks free,
        // before its end is stored: a reader that sees the task ended knows
        // the tool's future is gone and the task no longer counts as running.
        let record = events.record();
        drop(events);
        let Call {
            store,
            max_result_bytes,
            _slot: slot,
            ..
        } = self;
        drop(slot);
        task.finished(record);
        task.bound_result(max_result_bytes);
        store_now(&*store, &task).await;
    }

    async fn store_now(&self, task: &Task) {
        store_now(&*self.store, task).await;
    }
}

/// Stores the task; a store that fails is logged, and the call goes on
/// (its next store, or its end, may get through).
async fn store_now(store: &dyn TaskStore, task: &Task) {
    if let Err(_error) = store.update(task.clone()).await {
        #[cfg(feature = "tracing")]
        tracing::warn!(task = %task.id, error = %_error, "the task store did not take the task");
    }
}

/// The call's next event.
async fn next(events: &mut ToolCallStream) -> Option<ToolEvent> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *events).poll_next(cx)).await
}

/// A place among the tasks running in this process; freed when dropped.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(running: &Arc<AtomicUsize>, limit: usize) -> Result<Self, TaskError> {
        if running.fetch_add(1, Ordering::AcqRel) >= limit {
            running.fetch_sub(1, Ordering::AcqRel);
            return Err(TaskError::TooMany { limit });
        }
        Ok(Slot(Arc::clone(running)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A new task id: 32 hex digits, SipHash of a counter and the clock under
/// the standard library's randomly seeded keys, so ids are hard to guess
/// (an id is what lets a holder of the store read a task's result).
fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut id = String::with_capacity(32);
    for half in 0..2u8 {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(n);
        hasher.write_u128(nanos);
        hasher.write_u8(half);
        let _ = write!(id, "{:016x}", hasher.finish());
    }
    id
}
