//! Tool calls as tasks: started now, read later, from any holder of the
//! same store.
//!
//! [`Tasks::start`] runs a call of a [`Registry`]'s
//! tool on a Tokio task of its own and hands back a [`Task`] at once: its
//! id, its [`TaskStatus`] and the call's
//! [`ToolCallRecord`](tool_runtime_core::events::ToolCallRecord) (progress, trace,
//! result). [`Tasks`] reads it back by id ([`get`](Tasks::get),
//! [`wait`](Tasks::wait)) and cancels it ([`cancel`](Tasks::cancel)).
//! Where tasks live is a [`TaskStore`]: [`MemoryTaskStore`] in this process
//! by default; a store outside the process (`RedisTaskStore`, feature
//! `redis`) lets several processes share them, and a task whose process
//! ended reads as [`Failed`](TaskStatus::Failed), not as running forever.
//!
//! A call run as a task, with these dependencies:
//!
//! ```toml
//! [dependencies]
//! tool-runtime = "0.1"
//! tool-tasks = "0.1"     # features = ["redis"] for RedisTaskStore
//! serde_json = "1"
//! tokio = { version = "1", features = ["macros", "rt"] }
//! ```
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::{tool, Registry, ToolContext, ToolUse};
//! use tool_tasks::{TaskStatus, Tasks};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), tool_tasks::TaskError> {
//! let registry = Registry::builder().tool(AddTool).build().unwrap();
//! let tasks = Tasks::in_memory();
//! let call = ToolUse::new("", "add", json!({"a": 2, "b": 3}));
//! let started = tasks.start(&registry, call, &ToolContext::new()).await?;
//! assert_eq!(started.status, TaskStatus::Working);
//!
//! let done = tasks.wait(&started.id).await?.expect("the task is kept");
//! assert_eq!(done.status, TaskStatus::Completed);
//! assert_eq!(done.result().unwrap().text_content(), "5");
//! # Ok(())
//! # }
//! ```
//!
//! Whether a tool's calls may run as tasks is the tool's declaration, in
//! the core: [`TaskSupport`](tool_runtime_core::spec::TaskSupport)
//! (`#[tool(task)]`). A server that speaks MCP's tasks extension (tool-mcp's
//! `McpServer::with_tasks`) reads it; [`Tasks::start`] itself starts any
//! tool.
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
//! started it ([`Tasks::with_owner`], [`Tasks::for_owner`]: an MCP server
//! names the caller a token shows, or the session of an anonymous client:
//! the core's [`Owner`](tool_runtime_core::context::Owner)), kept with the
//! task in [`Task::owner`], in the store, so every process sharing the
//! store knows it. A handle for an owner reads, answers and cancels that
//! owner's tasks only: another's reads as unknown, as an id never made
//! does. A store keeps each owner's share of tasks: an owner at
//! its share makes room by dropping its own oldest tasks that are
//! [over](Task::is_over) (ended, past their time to live, or lost), never
//! another owner's, and its new task is refused
//! ([`TaskStoreError::OwnerFull`]) only when every task it keeps still
//! runs. A store at its total drops the oldest tasks that are over, of any
//! owner, before it refuses ([`TaskStoreError::Full`]). So no one client
//! can fill the store for the others; a dropped task reads as unknown,
//! as one past its time to live does.
//!
//! **Features.** `redis` (off by default): `RedisTaskStore`, tasks kept in
//! Redis. `tracing` (off by default): a store that does not take a running
//! task's progress is logged as a `tracing` warning.

#![warn(missing_docs)]

mod input;
mod memory;
mod options;
#[cfg(feature = "redis")]
mod redis;
mod run;
mod store;
mod task;

pub use input::TaskInput;
pub use memory::MemoryTaskStore;
pub use options::TaskOptions;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;
pub use store::{StoreFuture, TaskStore, TaskStoreError};
pub use task::{Task, TaskStatus};

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::{Map, Value};
use tool_runtime_core::{Registry, ToolContext, ToolUse, context::ClientRequests};

use crate::task::unix_millis;

/// Tasks in one store: start them ([`start`](Self::start)), read them,
/// answer their requests and cancel them. Cheap to clone: clones share the store and the count of
/// running tasks.
#[derive(Clone)]
pub struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) options: TaskOptions,
    pub(crate) running: Arc<AtomicUsize>,
    /// Whom the tasks started through this handle are counted against.
    pub(crate) owner: Option<Arc<str>>,
    /// Whether the handle reads only `owner`'s tasks (those without an
    /// owner for `None`), or every task in the store.
    pub(crate) scoped: bool,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("options", &self.options)
            .field("owner", &self.owner)
            .field("scoped", &self.scoped)
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
            scoped: false,
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

    /// The handle of `owner`: the tasks started through it from now on are
    /// `owner`'s (kept in [`Task::owner`]), and it reads, answers and
    /// cancels `owner`'s tasks only; to it, another owner's task is
    /// unknown ([`get`](Self::get) gives `None`, [`cancel`](Self::cancel)
    /// and [`respond`](Self::respond) `false`), as an id never made is.
    /// The store counts `owner`'s tasks against its share, and makes room
    /// among `owner`'s own tasks when it is taken (see
    /// [`MemoryTaskStore::with_max_tasks_per_owner`]).
    ///
    /// An owner is an opaque key, best the core's
    /// [`Owner`](tool_runtime_core::context::Owner) (a caller's, or a
    /// session's; see [`for_owner`](Self::for_owner)); keys of different
    /// kinds should not meet (prefix them: `session:...`, `user:...`). A
    /// clone for another owner shares the store and the count of running
    /// tasks.
    ///
    /// ```
    /// use tool_tasks::Tasks;
    ///
    /// let tasks = Tasks::in_memory();
    /// let alice = tasks.clone().with_owner("user:alice");
    /// assert_eq!(alice.owner(), Some("user:alice"));
    /// assert_eq!(tasks.owner(), None);
    /// ```
    pub fn with_owner(mut self, owner: impl Into<Arc<str>>) -> Self {
        self.owner = Some(owner.into());
        self.scoped = true;
        self
    }

    /// The handle of whoever `owner` is, the owner of a request's calls
    /// ([`ToolContext::owner`]): `Some` is
    /// [`with_owner`](Self::with_owner); `None`, a request of no one (no
    /// caller, no session), starts tasks without an owner and reads,
    /// answers and cancels only those.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use tool_runtime::context::{Caller, Owner};
    /// use tool_tasks::Tasks;
    ///
    /// let tasks = Tasks::in_memory();
    /// let ada = Owner::of_caller(&Caller::new("ada")).unwrap();
    /// let hers = tasks.clone().for_owner(Some(&ada));
    /// assert_eq!(hers.owner(), Some(ada.as_str()));
    /// let nobody = tasks.clone().for_owner(None);
    /// assert_eq!(nobody.owner(), None);
    /// # }
    /// ```
    pub fn for_owner(mut self, owner: Option<&tool_runtime_core::context::Owner>) -> Self {
        self.owner = owner.map(Arc::<str>::from);
        self.scoped = true;
        self
    }

    /// Whom the tasks started through this handle are counted against;
    /// `None` (the default) counts them against the store's total only.
    ///
    /// A handle made for no owner in particular ([`new`](Self::new),
    /// [`shared`](Self::shared), [`in_memory`](Self::in_memory), not made
    /// [`for_owner`](Self::for_owner)) reads every task of the store,
    /// whoever's: an operator's view, not one to serve clients with.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// Whether the handle reads `task`: any task, for a handle of no owner
    /// in particular; else a task of the handle's owner (one without an
    /// owner, for a handle of no one).
    fn reads(&self, task: &Task) -> bool {
        !self.scoped || task.owner.as_deref() == self.owner.as_deref()
    }

    /// Whether the task `id` is one the handle reads (a handle of no owner
    /// in particular reads every task, without asking the store).
    async fn known(&self, id: &str) -> Result<bool, TaskError> {
        if !self.scoped {
            return Ok(true);
        }
        let task = self.store.get(id).await?;
        Ok(task.is_some_and(|task| self.reads(&task)))
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

    /// Starts `tool_use`, a call of one of `registry`'s tools, as a task
    /// kept in this store, and returns the task as first stored, once any
    /// holder of the store can find it.
    ///
    /// The call runs on a Tokio task of its own with `ctx`'s state, client
    /// and log level, but not its cancellation: a task outlives the request
    /// that started it. [`cancel`](Self::cancel) cancels it, from any
    /// holder of the store. A tool use without an id takes the task's. A
    /// start beyond [`TaskOptions::max_running`] fails with
    /// [`TaskError::TooMany`]; one the store refuses, with
    /// [`TaskError::Store`].
    ///
    /// Any tool may run as a task here: whether a tool allows it
    /// ([`TaskSupport`](tool_runtime_core::spec::TaskSupport)) is for a server to
    /// read, as tool-mcp's does. The crate guide has an example.
    pub async fn start(
        &self,
        registry: &Registry,
        tool_use: ToolUse,
        ctx: &ToolContext,
    ) -> Result<Task, TaskError> {
        crate::run::start(self, registry, tool_use, ctx, |_| None).await
    }

    /// Starts `tool_use` as a task, as [`start`](Self::start) does, with a
    /// client of the task's own: `client` makes it from the task's
    /// [`TaskInput`], which parks each request of the call's (an
    /// elicitation, a sampling request) in the task until
    /// [`respond`](Self::respond) brings its answer; the task reads as
    /// [`InputRequired`](crate::TaskStatus::InputRequired) meanwhile.
    /// `None` keeps `ctx`'s client.
    pub async fn start_with_client(
        &self,
        registry: &Registry,
        tool_use: ToolUse,
        ctx: &ToolContext,
        client: impl FnOnce(TaskInput) -> Option<Arc<dyn ClientRequests>>,
    ) -> Result<Task, TaskError> {
        crate::run::start(self, registry, tool_use, ctx, client).await
    }

    /// The task with `id` as it stands now; `None` when the store has none
    /// (never made, or forgotten after its time to live), or it is another
    /// owner's (see [`with_owner`](Self::with_owner)).
    pub async fn get(&self, id: &str) -> Result<Option<Task>, TaskError> {
        let task = self.store.get(id).await?;
        Ok(task
            .filter(|task| self.reads(task))
            .map(|task| task.observed(unix_millis())))
    }

    /// Asks for the task's cancellation, wherever it runs: `true` when the
    /// task is known (and the handle's owner's) and still running. The
    /// call sees its context cancelled; the task ends `cancelled` unless
    /// the call finished first.
    pub async fn cancel(&self, id: &str) -> Result<bool, TaskError> {
        if !self.known(id).await? {
            return Ok(false);
        }
        Ok(self.store.request_cancel(id).await?)
    }

    /// Answers the requests the task `id` waits on, by key (see
    /// [`Task::input_requests`]): answers to keys that do not wait are
    /// ignored, and the task reads as input required until every request
    /// is answered. `false` when the store has no such task, or it is
    /// another owner's.
    pub async fn respond(
        &self,
        id: &str,
        responses: Map<String, Value>,
    ) -> Result<bool, TaskError> {
        if !self.known(id).await? {
            return Ok(false);
        }
        Ok(self.store.respond(id, responses).await?)
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
