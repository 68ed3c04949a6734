//! Tool calls as tasks: started now, read later, from any holder of the
//! same store.
//!
//! [`Tasks::start`] runs a call of a [`Registry`](tool_runtime_core::Registry)'s
//! tool on a Tokio task of its own and hands back a [`Task`] at once: its
//! id, its [`TaskStatus`] and the call's
//! [`ToolCallRecord`](tool_runtime_core::ToolCallRecord) (progress, trace,
//! result). [`Tasks`] reads it back by id ([`get`](Tasks::get),
//! [`wait`](Tasks::wait)) and cancels it ([`cancel`](Tasks::cancel)).
//! Where tasks live is a [`TaskStore`]: [`MemoryTaskStore`] in this process
//! by default; a store outside the process (`RedisTaskStore`, feature
//! `redis`) lets several processes share them, and a task whose process
//! ended reads as [`Failed`](TaskStatus::Failed), not as running forever.
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
//! the core: [`TaskSupport`](tool_runtime_core::TaskSupport)
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
mod tasks;

pub use input::TaskInput;
pub use memory::MemoryTaskStore;
pub use options::TaskOptions;
#[cfg(feature = "redis")]
pub use redis::RedisTaskStore;
pub use store::{StoreFuture, TaskStore, TaskStoreError};
pub use task::{Task, TaskStatus};
pub use tasks::{TaskError, Tasks};
