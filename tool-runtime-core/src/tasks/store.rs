//! Where tasks are kept: the [`TaskStore`] trait and its error.

use std::future::Future;
use std::pin::Pin;

use super::task::Task;

/// The future a [`TaskStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Where tasks are kept, and how a cancellation reaches the process running
/// the call.
///
/// [`MemoryTaskStore`](super::MemoryTaskStore) keeps them in the process;
/// a store that lives outside it (a database, Redis) lets several processes
/// share tasks: any of them answers for a task another started, and a task
/// outlives the process that ran it (it then reads as failed, not as
/// running forever: [`Task::observed`]).
///
/// Every method is called with the task's id; a store must not panic on an
/// id it does not know.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task. Once the future is done, [`get`](Self::get) by
    /// any holder of the store finds it. Fails with
    /// [`TaskStoreError::Full`] when the store takes no more tasks.
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
