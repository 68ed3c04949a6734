//! Tool calls as tasks: started now, read later, from any holder of the
//! same store.
//!
//! [`Registry::start_task`](crate::Registry::start_task) runs a call on a
//! Tokio task of its own and hands back a [`Task`] at once: its id, its
//! [`TaskStatus`] and the call's [`ToolCallRecord`](crate::ToolCallRecord)
//! (progress, trace, result). [`Tasks`] reads it back by id
//! ([`get`](Tasks::get), [`wait`](Tasks::wait)) and cancels it
//! ([`cancel`](Tasks::cancel)). Where tasks live is a [`TaskStore`]:
//! [`MemoryTaskStore`] in this process by default; a store outside the
//! process lets several processes share them, and a task whose process
//! ended reads as [`Failed`](TaskStatus::Failed), not as running forever.
//!
//! | the call's record | the task |
//! | --- | --- |
//! | running (`in_progress`) | `working`, its last progress message as the status message |
//! | ended with a result (`completed`, `failed`, a timeout) | `completed`, the result kept (an error result too) |
//! | cancelled (`incomplete`, kind `cancelled`) | `cancelled` |
//! | the tool panicked, or the runtime failed (kinds `panicked`, `internal`) | `failed`, the error result kept |
//! | its process not heard from for three heartbeats | `failed`, saying so |
//! | waiting for an answer to a request of its own ([`TaskInput`]) | `input_required`, the requests in [`Task::input_requests`] |
//!
//! **Owners and room.** A task may have an owner, the key of whoever
//! started it ([`Tasks::with_owner`]: an MCP server gives each session a
//! key of its own; a caller's identity may be one), kept in
//! [`Task::owner`]. A store keeps each owner's share of tasks: an owner at
//! its share makes room by dropping its own oldest tasks that are
//! [over](Task::is_over) (ended, past their time to live, or lost), never
//! another owner's, and its new task is refused
//! ([`TaskStoreError::OwnerFull`]) only when every task it keeps still
//! runs. A store at its total drops the oldest tasks that are over, of any
//! owner, before it refuses ([`TaskStoreError::Full`]). So no one client
//! can fill the store for the others; a dropped task reads as unknown,
//! as one past its time to live does.

mod input;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod run;
mod store;
mod task;

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

pub use input::TaskInput;
pub use memory::MemoryTaskStore;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;
pub use store::{StoreFuture, TaskStore, TaskStoreError};
pub use task::{Task, TaskStatus};

use crate::events::record::unix_millis;

/// How tasks are run and kept.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskOptions {
    /// How long after it starts a task may be forgotten; `None` keeps it as
    /// long as the store does. One hour by default.
    pub ttl: Option<Duration>,
    /// How often a reader should ask for news of a task. One second by
    /// default.
    pub poll_interval: Duration,
    /// How often a running task's process says it is alive; after three
    /// missed heartbeats the task reads as failed. Five seconds by default.
    pub heartbeat: Duration,
    /// How many tasks may run in this process at once through one
    /// [`Tasks`]; a start beyond it fails with [`TaskError::TooMany`].
    /// 64 by default.
    pub max_running: usize,
    /// The largest result a task keeps, in bytes of its JSON: a call whose
    /// result is larger ends [`Failed`](TaskStatus::Failed), saying so, and
    /// keeps no result. 4 MiB by default.
    pub max_result_bytes: usize,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(60 * 60)),
            poll_interval: Duration::from_secs(1),
            heartbeat: Duration::from_secs(5),
            max_running: 64,
            max_result_bytes: 4 * 1024 * 1024,
        }
    }
}

impl TaskOptions {
    /// Sets [`ttl`](Self::ttl).
    pub fn with_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets [`poll_interval`](Self::poll_interval) (at least 1 ms).
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Sets [`heartbeat`](Self::heartbeat) (at least 1 ms).
    pub fn with_heartbeat(mut self, heartbeat: Duration) -> Self {
        self.heartbeat = heartbeat.max(Duration::from_millis(1));
        self
    }

    /// Sets [`max_result_bytes`](Self::max_result_bytes) (at least 1).
    pub fn with_max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes.max(1);
        self
    }

    /// Sets [`max_running`](Self::max_running) (at least 1).
    pub fn with_max_running(mut self, max_running: usize) -> Self {
        self.max_running = max_running.max(1);
        self
    }
}

/// Tasks in one store: start them with
/// [`Registry::start_task`](crate::Registry::start_task), read and cancel
/// them here. Cheap to clone: clones share the store and the count of
/// running tasks.
#[derive(Clone)]
pub struct Tasks {
    store: Arc<dyn TaskStore>,
    options: TaskOptions,
    running: Arc<AtomicUsize>,
    /// Whom the tasks started through this handle are counted against.
    owner: Option<Arc<str>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("options", &self.options)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Tasks in `store`, with the default [`TaskOptions`].
    pub fn new(store: impl TaskStore) -> Self {
        Self::shared(Arc::new(store))
    }

    /// Tasks in a store shared with other holders.
    pub fn shared(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            options: TaskOptions::default(),
            running: Arc::new(AtomicUsize::new(0)),
            owner: None,
        }
    }

    /// Tasks in a new [`MemoryTaskStore`].
    pub fn in_memory() -> Self {
        Self::new(MemoryTaskStore::new())
    }

    /// Sets the options for the tasks started from now on.
    pub fn with_options(mut self, options: TaskOptions) -> Self {
        self.options = options;
        self
    }

    /// The tasks started through this handle from now on are `owner`'s
    /// (kept in [`Task::owner`]): the store counts them against `owner`'s
    /// share, and makes room among `owner`'s own tasks when it is taken
    /// (see [`MemoryTaskStore::with_max_tasks_per_owner`]). An owner is an
    /// opaque key: an MCP server gives each session one of its own, and a
    /// caller's identity may be one; keys of different kinds should not
    /// meet (prefix them: `session:...`, `user:...`). A clone for another
    /// owner shares the store and the count of running tasks.
    ///
    /// ```
    /// use tool_runtime::Tasks;
    ///
    /// let tasks = Tasks::in_memory();
    /// let alice = tasks.clone().with_owner("user:alice");
    /// assert_eq!(alice.owner(), Some("user:alice"));
    /// assert_eq!(tasks.owner(), None);
    /// ```
    pub fn with_owner(mut self, owner: impl Into<Arc<str>>) -> Self {
        self.owner = Some(owner.into());
        self
    }

    /// Whom the tasks started through this handle are counted against;
    /// `None` (the default) counts them against the store's total only.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The options.
    pub fn options(&self) -> &TaskOptions {
        &self.options
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// How many tasks started through this handle (and its clones) run now.
    pub fn running(&self) -> usize {
        self.running.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The task with `id` as it stands now; `None` when the store has none
    /// (never made, or forgotten after its time to live).
    pub async fn get(&self, id: &str) -> Result<Option<Task>, TaskError> {
        let task = self.store.get(id).await?;
        Ok(task.map(|task| task.observed(unix_millis())))
    }

    /// Asks for the task's cancellation, wherever it runs: `true` when the
    /// task is known and still running. The call sees its context
    /// cancelled; the task ends `cancelled` unless the call finished first.
    pub async fn cancel(&self, id: &str) -> Result<bool, TaskError> {
        Ok(self.store.request_cancel(id).await?)
    }

    /// Reads the task every [`poll_interval`](TaskOptions::poll_interval)
    /// until it has ended, and returns it; `None` when the store has no such
    /// task.
    pub async fn wait(&self, id: &str) -> Result<Option<Task>, TaskError> {
        loop {
            match self.get(id).await? {
                Some(task) if !task.is_terminal() => {
                    let interval = Duration::from_millis(task.poll_interval_ms.max(1));
                    tokio::time::sleep(interval).await;
                }
                other => return Ok(other),
            }
        }
    }
}

/// Why a task could not be started or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskError {
    /// The store failed.
    Store(TaskStoreError),
    /// As many tasks as [`TaskOptions::max_running`] run already.
    TooMany {
        /// The limit.
        limit: usize,
    },
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::Store(error) => error.fmt(f),
            TaskError::TooMany { limit } => {
                write!(f, "{limit} tasks run already; try again when one ends")
            }
        }
    }
}

impl std::error::Error for TaskError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TaskError::Store(error) => Some(error),
            TaskError::TooMany { .. } => None,
        }
    }
}

impl From<TaskStoreError> for TaskError {
    fn from(error: TaskStoreError) -> Self {
        TaskError::Store(error)
    }
}
