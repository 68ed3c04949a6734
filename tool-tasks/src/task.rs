//! A task: a tool call that runs on after whoever started it has its
//! answer, with the call's execution record and where the task is in its
//! life.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use tool_runtime_core::{
    ToolResult, events::CallStatus, events::ToolCallRecord, spec::ToolErrorKind,
};

/// Where a task is in its life, as MCP's tasks extension names it.
///
/// Serialises as `"working"`, `"input_required"`, `"completed"`,
/// `"failed"` or `"cancelled"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The call is running.
    Working,
    /// The call waits for an answer from whoever started it.
    InputRequired,
    /// The call ended with a result: a success, or an error result the
    /// tool gave or the registry made (invalid arguments, a timeout...).
    Completed,
    /// The call produced no result of its own: the tool panicked, the
    /// runtime failed, or the process running it ended before it finished.
    Failed,
    /// The call was cancelled before it finished.
    Cancelled,
}

impl TaskStatus {
    /// The serialised name: `"working"`, `"input_required"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the task has ended: completed, failed or cancelled.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The status of a task whose call ended with `result`: cancelled for a
    /// cancelled call, failed when the call produced no result of its own
    /// (the tool panicked, or the runtime failed: kinds
    /// [`Panicked`](ToolErrorKind::Panicked) and
    /// [`Internal`](ToolErrorKind::Internal)), completed for any other
    /// result, error results included.
    pub fn of(result: &ToolResult) -> Self {
        if !result.is_error() {
            return TaskStatus::Completed;
        }
        match result.error_kind {
            Some(ToolErrorKind::Cancelled) => TaskStatus::Cancelled,
            Some(ToolErrorKind::Panicked | ToolErrorKind::Internal) => TaskStatus::Failed,
            _ => TaskStatus::Completed,
        }
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One task: its id, its status, and the execution record of the call it
/// runs ([`ToolCallRecord`]: the last progress, the trace, the times and,
/// once it ends, the result).
///
/// Times are whole milliseconds since the Unix epoch, as in the record. A
/// task serialises to JSON (`"type": "task"`), which is how stores that
/// live outside the process keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "task")]
#[non_exhaustive]
pub struct Task {
    /// The task's id: 32 hex digits, hard to guess, made when it starts.
    pub id: String,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// Why it is where it is, in words: the call's last progress message
    /// while it runs, why it failed or was cancelled.
    pub status_message: Option<String>,
    /// The call's execution record.
    pub record: ToolCallRecord,
    /// When the task was made.
    pub created_at_ms: u64,
    /// When the task last changed.
    pub updated_at_ms: u64,
    /// How long after it was made the task may be forgotten; `None` keeps
    /// it as long as its store does.
    pub ttl_ms: Option<u64>,
    /// How often it is worth asking for news of the task.
    pub poll_interval_ms: u64,
    /// When the process running the call last said it was alive.
    pub heartbeat_at_ms: u64,
    /// How long without a heartbeat before a running task is taken for
    /// lost (the process running it ended) and reads as failed.
    pub lost_after_ms: u64,
    /// The call's requests to whoever started it that wait for an answer,
    /// by key (unique over the task's life): what the call asked, as the
    /// client that gave it its context shaped it (over MCP, `method` and
    /// `params`). Filled by the store ([`TaskStore::request_input`](crate::TaskStore::request_input)).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, Value>,
    /// Who started the task, as the [`Tasks`](crate::Tasks) that started it
    /// names them ([`Tasks::with_owner`](crate::Tasks::with_owner)): the
    /// one whose handle reads, answers and cancels it, and the key a store
    /// counts the task against when it keeps each owner's share. Kept with
    /// the task, in every store. `None` counts against the store's total
    /// only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl Task {
    /// A task that starts now with the call `record` describes.
    pub(crate) fn started(
        id: String,
        record: ToolCallRecord,
        options: &crate::TaskOptions,
        owner: Option<String>,
    ) -> Self {
        let now = unix_millis();
        Task {
            id,
            status: TaskStatus::Working,
            status_message: None,
            record,
            created_at_ms: now,
            updated_at_ms: now,
            ttl_ms: options.ttl.map(millis),
            poll_interval_ms: millis(options.poll_interval),
            heartbeat_at_ms: now,
            lost_after_ms: millis(options.heartbeat) * 3,
            input_requests: BTreeMap::new(),
            owner,
        }
    }

    /// The call's result, once the task has ended (for a failed task, the
    /// error result that says why, when the call got that far).
    pub fn result(&self) -> Option<&ToolResult> {
        self.record.result.as_ref()
    }

    /// Whether the task has ended.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// Whether the task is past its time to live at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.ttl_ms
            .is_some_and(|ttl| now_ms >= self.created_at_ms.saturating_add(ttl))
    }

    /// Whether the task is still running at `now_ms` by its record, but its
    /// process has not been heard from for
    /// [`lost_after_ms`](Self::lost_after_ms): it stopped before the call
    /// ended.
    pub fn is_lost(&self, now_ms: u64) -> bool {
        !self.is_terminal() && now_ms.saturating_sub(self.heartbeat_at_ms) > self.lost_after_ms
    }

    /// Whether nothing runs for the task any more at `now_ms`: it ended, it
    /// is past its time to live, or its process is lost. These are the
    /// tasks a store may drop to make room for new ones.
    pub fn is_over(&self, now_ms: u64) -> bool {
        self.is_terminal() || self.is_expired(now_ms) || self.is_lost(now_ms)
    }

    /// The task with `requests` as its waiting input requests (see
    /// [`TaskStore::request_input`](crate::TaskStore::request_input)): input
    /// required while any waits and the call otherwise works.
    pub fn with_input_requests(mut self, requests: BTreeMap<String, Value>) -> Self {
        if self.status == TaskStatus::Working && !requests.is_empty() {
            self.status = TaskStatus::InputRequired;
        }
        self.input_requests = requests;
        self
    }

    /// The task as its reader should see it at `now_ms`: a task still
    /// running whose process has not been heard from for
    /// [`lost_after_ms`](Self::lost_after_ms) is failed, with the reason.
    pub fn observed(mut self, now_ms: u64) -> Self {
        let silent = now_ms.saturating_sub(self.heartbeat_at_ms);
        if self.is_lost(now_ms) {
            self.status = TaskStatus::Failed;
            self.status_message = Some(format!(
                "the process running this task stopped before it finished \
                 (not heard from for {} s)",
                silent / 1000
            ));
            self.updated_at_ms = now_ms;
        }
        self
    }

    /// Folds the running call's record in: its progress message becomes
    /// the status message.
    pub(crate) fn progressed(&mut self, record: ToolCallRecord) {
        if let Some(message) = record.message.as_ref().filter(|m| !m.is_empty()) {
            self.status_message = Some(message.clone());
        }
        self.record = record;
        self.touch();
    }

    /// Ends the task with the call's final record.
    pub(crate) fn finished(&mut self, record: ToolCallRecord) {
        self.status = match &record.result {
            Some(result) => TaskStatus::of(result),
            None => TaskStatus::Failed,
        };
        self.status_message = match self.status {
            TaskStatus::Cancelled => Some("the call was cancelled".to_owned()),
            _ if record.status == CallStatus::Completed => record.message.clone(),
            _ => record.result.as_ref().map(ToolResult::text_content),
        };
        self.record = record;
        self.touch();
    }

    /// Keeps the result only when its JSON is at most `max_bytes`: a
    /// larger one fails the task, saying how large it was.
    pub(crate) fn bound_result(&mut self, max_bytes: usize) {
        let Some(result) = &self.record.result else {
            return;
        };
        let size = serde_json::to_vec(result).map_or(usize::MAX, |json| json.len());
        if size > max_bytes {
            self.record.result = None;
            self.status = TaskStatus::Failed;
            self.status_message = Some(format!(
                "the call's result is {size} bytes, over the {max_bytes} a task keeps"
            ));
        }
    }

    /// Marks the task changed (and its process alive) now.
    pub(crate) fn touch(&mut self) {
        let now = unix_millis().max(self.updated_at_ms);
        self.updated_at_ms = now;
        self.heartbeat_at_ms = now;
    }
}

/// Milliseconds since the Unix epoch by the system clock (0 if the clock
/// reads before 1970), as a [`ToolCallRecord`]'s times are.
pub(crate) fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A duration in whole milliseconds, saturating.
fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
