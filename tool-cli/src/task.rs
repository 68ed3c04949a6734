//! The `task` command: an operator's view of the tasks in a shared task
//! store (feature `redis`): read one by its id, or cancel it wherever it
//! runs.

use std::process::ExitCode;

use crate::command::TaskCommand;
use crate::output::{pretty, print_out};
use crate::{EXIT_TOOL_ERROR, usage_error};

/// Runs `task get|cancel ID --tasks URL`.
pub(crate) async fn task(command: TaskCommand) -> ExitCode {
    let (id, url, cancel) = match &command {
        TaskCommand::Get { id, tasks } => (id, tasks, false),
        TaskCommand::Cancel { id, tasks } => (id, tasks, true),
    };
    let tasks = match open(url, false).await {
        Ok(tasks) => tasks,
        Err(code) => return code,
    };
    let known = match tasks.get(id).await {
        Ok(task) => task,
        Err(error) => return failed(error),
    };
    let Some(task) = known else {
        eprintln!(
            "error: no task \"{}\" in {url} (never made, or forgotten after its time to live)",
            tool_runtime::__private::quote::name(id)
        );
        return ExitCode::from(EXIT_TOOL_ERROR);
    };
    if !cancel {
        let value = serde_json::to_value(&task).unwrap_or_default();
        return print_out(&pretty(&value));
    }
    match tasks.cancel(id).await {
        Ok(true) => print_out(&format!("asked task {id} to stop ({})", task.record.tool)),
        Ok(false) => print_out(&format!("task {id} is not running: {}", task.status)),
        Err(error) => failed(error),
    }
}

/// The task store `store` names: `memory` (this process's, for `serve`
/// alone) or a Redis URL; or the exit code of why not.
pub(crate) async fn open(store: &str, memory: bool) -> Result<tool_tasks::Tasks, ExitCode> {
    if store == "memory" && memory {
        return Ok(tool_tasks::Tasks::in_memory());
    }
    if !(store.starts_with("redis://") || store.starts_with("rediss://")) {
        let kinds = if memory {
            "`memory` or a Redis URL, redis://HOST:PORT/"
        } else {
            "a Redis URL, redis://HOST:PORT/, which other processes reach too"
        };
        return Err(usage_error(format!(
            "--tasks {store}: a task store is {kinds}"
        )));
    }
    redis(store).await
}

#[cfg(feature = "redis")]
async fn redis(url: &str) -> Result<tool_tasks::Tasks, ExitCode> {
    match tool_tasks::RedisTaskStore::connect(url).await {
        Ok(store) => Ok(tool_tasks::Tasks::new(store)),
        Err(error) => Err(failed(error)),
    }
}

#[cfg(not(feature = "redis"))]
async fn redis(url: &str) -> Result<tool_tasks::Tasks, ExitCode> {
    Err(usage_error(format!(
        "--tasks {url}: this program is built without tool-cli's `redis` feature, \
         so it reaches no Redis"
    )))
}

fn failed(error: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::from(EXIT_TOOL_ERROR)
}
