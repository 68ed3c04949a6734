//! Where tasks are kept: the [`TaskStore`] trait and its error.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use crate::task::Task;

/// The future a [`TaskStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Where tasks are kept, and how a cancellation reaches the process running
/// the call.
///
/// [`MemoryTaskStore`](crate::MemoryTaskStore) keeps them in the process;
/// a store that lives outside it (a database, Redis) lets several processes
/// share tasks: any of them answers for a task another started, and a task
/// outlives the process that ran it (it then reads as failed, not as
/// running forever: [`Task::observed`]).
///
/// Every method is called with the task's id; a store must not panic on an
/// id it does not know.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task. Once the future is done, [`get`](Self::get) by
    /// any holder of the store finds it.
    ///
    /// A store that bounds its tasks makes room before it refuses one, by
    /// dropping tasks that are [over](Task::is_over), oldest first: among
    /// the task's [owner](Task::owner)'s own when the owner keeps its
    /// share ([`TaskStoreError::OwnerFull`] when none of them is over),
    /// among all when the store keeps its total
    /// ([`TaskStoreError::Full`] when none is over). It never drops
    /// another owner's task to keep an owner within its share.
    fn create(&self, task: Task) -> StoreFuture<'_, ()>;

    /// The task with `id`, as last stored; `None` when there is none (or it
    /// is past its time to live).
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Task>>;

    /// Replaces the stored task with the same id: its progress, its status,
    /// its result. A task that is gone (past its time to live) stays gone.
    fn update(&self, task: Task) -> StoreFuture<'_, ()>;

    /// Asks for the task's cancellation, wherever it runs: `true` when the
    /// task is known and still running.
    fn request_cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;

    /// Done when a cancellation of the task is asked for, by any holder of
    /// the store (at once if it was asked already). The process running the
    /// call waits on it.
    fn cancel_requested<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;

    /// Parks a request of the call's to whoever started it, under `key`
    /// (new in the task's life): until it is answered, [`get`](Self::get)
    /// gives the task with the request in its
    /// [`input_requests`](Task::input_requests), and as
    /// [`InputRequired`](crate::TaskStatus::InputRequired) while it is
    /// otherwise working. The requests are the store's, kept apart from
    /// the task [`update`](Self::update) replaces; a task stored as ended
    /// has none.
    ///
    /// By default, the store keeps no requests: the call's request fails.
    fn request_input<'a>(
        &'a self,
        id: &'a str,
        key: &'a str,
        request: Value,
    ) -> StoreFuture<'a, ()> {
        let _ = (id, key, request);
        Box::pin(std::future::ready(Err(no_input())))
    }

    /// Answers the task's parked requests: each of `responses` whose key is
    /// a request still waiting is kept for the call and the request is no
    /// longer waiting; the others are ignored. `false` when the store has
    /// no such task.
    ///
    /// By default, the store keeps no requests, and fails.
    fn respond<'a>(&'a self, id: &'a str, responses: Map<String, Value>) -> StoreFuture<'a, bool> {
        let _ = (id, responses);
        Box::pin(std::future::ready(Err(no_input())))
    }

    /// Done with the answer to the task's request `key`, once
    /// [`respond`](Self::respond) brings it (at once if it came already).
    /// The process running the call waits on it.
    ///
    /// By default, the store keeps no requests, and fails.
    fn answer<'a>(&'a self, id: &'a str, key: &'a str) -> StoreFuture<'a, Value> {
        let _ = (id, key);
        Box::pin(std::future::ready(Err(no_input())))
    }
}

/// The error of a store that keeps no input requests.
fn no_input() -> TaskStoreError {
    TaskStoreError::Unavailable("this task store keeps no input requests".to_owned())
}

/// Why a [`TaskStore`] could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds as many tasks as it may; none is made.
    Full {
        /// How many tasks it holds at most.
        limit: usize,
    },
    /// The task's owner keeps its share of the store, and every one of
    /// those tasks still runs; none is made.
    OwnerFull {
        /// How many tasks the store keeps for one owner at most.
        limit: usize,
    },
    /// The store could not be reached or did not answer (its message).
    Unavailable(String),
    /// A stored task could not be read back (its message).
    Corrupt(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskStoreError::Full { limit } => {
                write!(f, "the task store holds its limit of {limit} tasks")
            }
            TaskStoreError::OwnerFull { limit } => write!(
                f,
                "the task store keeps its limit of {limit} tasks for this owner, all of them \
                 running; start another once one ends"
            ),
            TaskStoreError::Unavailable(message) => {
                write!(f, "the task store is unavailable: {message}")
            }
            TaskStoreError::Corrupt(message) => {
                write!(f, "a stored task could not be read: {message}")
            }
        }
    }
}

impl std::error::Error for TaskStoreError {}
