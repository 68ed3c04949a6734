//! Execution records: what one call did, from start to end, as data.
//!
//! Every call made through [`Registry::stream`](crate::Registry::stream) or
//! [`Registry::invoke_recorded`](crate::Registry::invoke_recorded) keeps a
//! [`ToolCallRecord`]: its status, the last progress the tool reported, a
//! timestamped trace of the steps it took, when it started and ended, and
//! the final result. The record can be watched while the tool runs and
//! serialises to JSON for logs, UIs and audit trails.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::events::{LogLevel, ToolEvent, TraceEntry};
use crate::spec::error::ToolErrorKind;
use crate::spec::result::ToolResult;

/// Where a call is in its life.
///
/// Serialises as `"in_progress"`, `"completed"`, `"incomplete"` or
/// `"failed"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// The call has started and has not ended yet.
    InProgress,
    /// The tool ran to the end and its result is a success.
    Completed,
    /// The call was stopped before the tool finished: it was cancelled
    /// (the context's cancellation token fired) or it ran past its timeout.
    /// The result is an error of kind
    /// [`Cancelled`](ToolErrorKind::Cancelled) or
    /// [`TimedOut`](ToolErrorKind::TimedOut); whatever the tool reported
    /// before that is kept.
    Incomplete,
    /// The call ended with an error result for any other reason: unknown
    /// tool, invalid arguments, an `Err` or a panic in the tool, a refused
    /// approval, a disabled tool, a retry request, or an error
    /// [`ToolResult`] the tool built itself.
    Failed,
}

impl CallStatus {
    /// The status a finished call with this result has.
    pub fn of(result: &ToolResult) -> Self {
        if result.is_success() {
            return CallStatus::Completed;
        }
        match result.error_kind {
            Some(ToolErrorKind::Cancelled | ToolErrorKind::TimedOut) => CallStatus::Incomplete,
            _ => CallStatus::Failed,
        }
    }

    /// The serialised name: `"in_progress"`, `"completed"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::InProgress => "in_progress",
            CallStatus::Completed => "completed",
            CallStatus::Incomplete => "incomplete",
            CallStatus::Failed => "failed",
        }
    }

    /// Whether the call has ended (any status but `InProgress`).
    pub fn is_finished(self) -> bool {
        self != CallStatus::InProgress
    }
}

impl std::fmt::Display for CallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The record of one tool call: status, progress, trace, times and result.
///
/// Times are whole milliseconds since the Unix epoch (UTC), read from the
/// system clock, in fields named `..._ms`. Serialised with `serde_json`, a
/// record carries `"type": "record"`, beside the tags of the
/// [`ToolEvent`]s (`"progress"`, `"trace"`, `"partial"`, `"result"`), so a
/// log that mixes records and events can tell each line apart:
///
/// ```json
/// {
///   "type": "record",
///   "id": "call-1",
///   "tool": "process_document",
///   "status": "completed",
///   "progress": 1.0,
///   "message": "done",
///   "trace": [{"at_ms": 1767225600000, "step": "split", "message": "3 sections"}],
///   "started_at_ms": 1767225600000,
///   "ended_at_ms": 1767225600042,
///   "result": {"toolUseId": "call-1", "status": "success", "content": [{"text": "..."}]},
///   "error_kind": null
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "record")]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// The tool use id.
    pub id: String,
    /// The tool's name, as the model asked for it.
    pub tool: String,
    /// Where the call is in its life.
    pub status: CallStatus,
    /// The last progress the tool reported, in `[0, 1]`; `None` until it
    /// reports any. Reported values outside the range are clamped into it
    /// and NaN reports are ignored.
    pub progress: Option<f64>,
    /// The message of the last progress report.
    pub message: Option<String>,
    /// Every trace entry the tool reported, oldest first.
    pub trace: Vec<TraceEntry>,
    /// When the call started, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// When the call ended, in milliseconds since the Unix epoch; `None`
    /// while it runs.
    pub ended_at_ms: Option<u64>,
    /// The final result, once the call has ended.
    pub result: Option<ToolResult>,
    /// For an error result, its kind (which the serialised
    /// [`ToolResult`] leaves out).
    pub error_kind: Option<ToolErrorKind>,
    /// When the model was given less than the full result (it was over its
    /// [`ResultLimit`](crate::limits::ResultLimit)), the handle the full result is
    /// kept under: read it back with
    /// [`Registry::full_result`](crate::Registry::full_result). Left out of
    /// the serialised record when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_result: Option<crate::spec::limit::ResultHandle>,
    /// What the call warned of, oldest first: the note of a deprecated
    /// tool (which the registry adds to each of its calls), and every
    /// message the tool logged at [`LogLevel::Warning`] or above. Left out
    /// of the serialised record when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The tool use id of the call this one was made from: a call made
    /// with the context of a running call (as a `code_mode` script's calls
    /// are made with the `code_mode` call's) is that call's child. `None`
    /// for a call made with a context of no call, and then left out of the
    /// serialised record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

impl ToolCallRecord {
    /// A record of a call that starts now.
    pub fn started(id: impl Into<String>, tool: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            tool: tool.into(),
            status: CallStatus::InProgress,
            progress: None,
            message: None,
            trace: Vec::new(),
            started_at_ms: unix_millis(),
            ended_at_ms: None,
            result: None,
            error_kind: None,
            full_result: None,
            warnings: Vec::new(),
            parent: None,
        }
    }

    /// The same record, made a child of the call whose tool use id is
    /// `parent` (when there is one); see [`parent`](Self::parent).
    pub fn with_parent(mut self, parent: Option<&str>) -> Self {
        self.parent = parent.map(str::to_owned);
        self
    }

    /// Whether the call has ended.
    pub fn is_finished(&self) -> bool {
        self.status.is_finished()
    }

    /// How long the call ran, by the system clock; `None` while it runs.
    pub fn duration_ms(&self) -> Option<u64> {
        self.ended_at_ms
            .map(|end| end.saturating_sub(self.started_at_ms))
    }

    /// The trace as text lines, `step: message` each.
    pub fn trace_lines(&self) -> impl Iterator<Item = String> + '_ {
        self.trace.iter().map(|entry| entry.to_string())
    }

    /// Folds one reported event into the record. Partial outputs and
    /// results are not kept here (the result is set by [`finish`](Self::finish)).
    pub(crate) fn apply(&mut self, event: &ToolEvent) {
        match event {
            ToolEvent::Progress { progress, message } => {
                self.progress = Some(*progress);
                self.message = Some(message.clone());
            }
            ToolEvent::Trace(entry) => self.trace.push(entry.clone()),
            ToolEvent::Log { level, message } if *level >= LogLevel::Warning => {
                self.warnings.push(message.clone())
            }
            ToolEvent::Partial { .. } | ToolEvent::Log { .. } | ToolEvent::Result(_) => {}
        }
    }

    /// Ends the record with `result`.
    pub(crate) fn finish(&mut self, result: &ToolResult) {
        self.status = CallStatus::of(result);
        self.ended_at_ms = Some(unix_millis().max(self.started_at_ms));
        self.error_kind = if result.is_error() {
            result.error_kind
        } else {
            None
        };
        self.full_result = result.full_result.clone();
        self.result = Some(result.clone());
    }
}

/// Milliseconds since the Unix epoch by the system clock (0 if the clock
/// reads before 1970).
pub(crate) fn unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::error::ToolError;

    #[test]
    fn status_follows_the_result() {
        let ok = ToolResult::text("1", "fine");
        assert_eq!(CallStatus::of(&ok), CallStatus::Completed);
        let timed_out = ToolResult::from_error(
            "1",
            &ToolError::with_kind(ToolErrorKind::TimedOut, "too slow"),
        );
        assert_eq!(CallStatus::of(&timed_out), CallStatus::Incomplete);
        let cancelled = ToolResult::from_error(
            "1",
            &ToolError::with_kind(ToolErrorKind::Cancelled, "stopped"),
        );
        assert_eq!(CallStatus::of(&cancelled), CallStatus::Incomplete);
        let failed = ToolResult::from_error("1", &ToolError::new("broken"));
        assert_eq!(CallStatus::of(&failed), CallStatus::Failed);
        assert_eq!(
            CallStatus::of(&ToolResult::error("1", "hand-made error")),
            CallStatus::Failed
        );
    }

    #[test]
    fn finish_sets_the_end() {
        let mut record = ToolCallRecord::started("7", "t");
        assert!(!record.is_finished());
        assert_eq!(record.duration_ms(), None);
        record.finish(&ToolResult::from_error("7", &ToolError::retry("again")));
        assert_eq!(record.status, CallStatus::Failed);
        assert_eq!(record.error_kind, Some(ToolErrorKind::Retry));
        assert!(record.ended_at_ms.unwrap() >= record.started_at_ms);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json["status"], "failed");
        assert_eq!(json["error_kind"], "retry");
        let back: ToolCallRecord = serde_json::from_value(json).unwrap();
        assert_eq!(back.status, CallStatus::Failed);
    }
}
