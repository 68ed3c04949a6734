//! What a running call reports: progress, trace entries and partial
//! outputs ([`ToolEvent`]), the [`Progress`] handle tools report with, and
//! the [`ToolCallStream`] a caller reads them from.

pub(crate) mod record;

/// The trait a streaming tool's return type implements
/// (`fn f(..) -> impl Stream<Item = T>`).
pub use futures_core::Stream;
pub use record::{CallStatus, ToolCallRecord};

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use crate::context::CancellationToken;
use futures_core::stream::FusedStream;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::events::record::unix_millis;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::result::{ToolOutput, ToolResult};

/// One thing a call reported while it ran, or its end.
///
/// A [`ToolCallStream`] yields these in the order they happened and ends
/// with exactly one [`ToolEvent::Result`]. Serialises with a `"type"` tag:
///
/// ```
/// use tool_runtime::ToolEvent;
/// use serde_json::json;
///
/// let event = ToolEvent::Progress { progress: 0.5, message: "half way".into() };
/// assert_eq!(
///     serde_json::to_value(&event).unwrap(),
///     json!({"type": "progress", "progress": 0.5, "message": "half way"})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolEvent {
    /// How far the tool is, in `[0, 1]`, with a short message.
    Progress {
        /// The fraction done, clamped into `[0, 1]`.
        progress: f64,
        /// What the tool is doing.
        message: String,
    },
    /// A step the tool took, timestamped.
    Trace(TraceEntry),
    /// An intermediate output: an item a streaming tool yielded, or a
    /// value passed to [`Progress::partial`].
    Partial {
        /// The output as JSON (text is a JSON string).
        value: Value,
    },
    /// A log message from the tool ([`Progress::log`]); an MCP server sends
    /// it to the client as `notifications/message`.
    Log {
        /// How severe it is.
        level: LogLevel,
        /// What the tool says.
        message: String,
    },
    /// The call's final result; always the last event.
    Result(ToolResult),
}

/// How severe a log message is: the eight levels of syslog (RFC 5424),
/// which MCP's logging uses, least severe first, so levels compare by
/// severity (`LogLevel::Warning > LogLevel::Info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level's name as MCP writes it (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One timestamped entry of a call's trace.
///
/// `at_ms` is milliseconds since the Unix epoch by the system clock. Its
/// `Display` text is `step: message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEntry {
    /// When the entry was reported, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The step's name (`"split"`, `"analyse"`, ...).
    pub step: String,
    /// What happened.
    pub message: String,
}

impl fmt::Display for TraceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.step, self.message)
    }
}

/// Where one call's reports go: the event channel of a stream, the record
/// of a recorded call, or both.
pub(crate) struct CallSink {
    events: Option<mpsc::UnboundedSender<ToolEvent>>,
    record: watch::Sender<ToolCallRecord>,
    finished: AtomicBool,
}

impl CallSink {
    /// A sink keeping a record, and sending events when `events` is given.
    pub(crate) fn new(
        record: ToolCallRecord,
        events: Option<mpsc::UnboundedSender<ToolEvent>>,
    ) -> (Arc<Self>, watch::Receiver<ToolCallRecord>) {
        let (sender, receiver) = watch::channel(record);
        let sink = Arc::new(Self {
            events,
            record: sender,
            finished: AtomicBool::new(false),
        });
        (sink, receiver)
    }

    fn report(&self, event: ToolEvent) {
        if self.finished.load(Ordering::Acquire) {
            return;
        }
        self.record.send_modify(|record| record.apply(&event));
        if let Some(events) = &self.events {
            // The receiver is gone only when the stream was dropped; then
            // nobody is listening and the event has nowhere to go.
            let _ = events.send(event);
        }
    }

    /// Ends the record with `result`; later reports are ignored.
    pub(crate) fn finish(&self, result: &ToolResult) {
        self.finished.store(true, Ordering::Release);
        self.record.send_modify(|record| record.finish(result));
    }

    /// The record as it is now.
    pub(crate) fn snapshot(&self) -> ToolCallRecord {
        self.record.borrow().clone()
    }
}

/// The handle a tool reports progress, trace entries and partial outputs
/// with.
///
/// A tool gets one by declaring a `progress: Progress` parameter (injected,
/// never part of the schema) or from its context with
/// [`ToolContext::progress_handle`](crate::ToolContext::progress_handle);
/// [`ToolContext`](crate::ToolContext) has the same three methods. It works
/// in sync and async tools alike, is cheap to clone, and can be moved into
/// threads and tasks the tool starts.
///
/// Reports reach whoever watches the call (a [`ToolCallStream`] or a
/// recorded call) and are logged as `tracing` events at debug level.
/// Reporting is never an error: with nobody watching (a plain
/// [`Registry::invoke`](crate::Registry::invoke), or a direct call) or
/// after the call has ended, reports are dropped.
///
/// ```
/// use tool_runtime::{tool, events::Progress};
///
/// /// Counts the words of a text, one paragraph at a time.
/// #[tool]
/// fn word_count(text: String, progress: Progress) -> usize {
///     let paragraphs: Vec<&str> = text.split("\n\n").collect();
///     let mut words = 0;
///     for (i, paragraph) in paragraphs.iter().enumerate() {
///         words += paragraph.split_whitespace().count();
///         progress.trace("count", format!("paragraph {} has {words} words so far", i + 1));
///         progress.progress((i + 1) as f64 / paragraphs.len() as f64, "counting");
///     }
///     words
/// }
/// # assert!(WordCountTool::SPEC.params.len() == 1);
/// ```
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<CallSink>>,
}

impl Progress {
    pub(crate) fn new(sink: Option<Arc<CallSink>>) -> Self {
        Self { sink }
    }

    /// Reports how far the tool is: `fraction` in `[0, 1]` (values outside
    /// are clamped into it; NaN is ignored, the whole report with it) and
    /// what it is doing.
    pub fn progress(&self, fraction: f64, message: impl Into<String>) {
        if fraction.is_nan() {
            crate::trace::debug!("ignored a NaN progress report");
            return;
        }
        let progress = fraction.clamp(0.0, 1.0);
        let message = message.into();
        crate::trace::debug!(progress, message = %message, "tool progress");
        self.send(ToolEvent::Progress { progress, message });
    }

    /// Adds a timestamped entry to the call's trace: the step's name and
    /// what happened.
    pub fn trace(&self, step: impl Into<String>, message: impl Into<String>) {
        let (step, message) = (step.into(), message.into());
        crate::trace::debug!(step = %step, message = %message, "tool trace");
        self.send(ToolEvent::Trace(TraceEntry {
            at_ms: unix_millis(),
            step,
            message,
        }));
    }

    /// Logs a message at `level`. It always goes to `tracing` (the
    /// `tool_log` event, at the nearest tracing level: `notice` as info,
    /// `critical` and above as error); when the call is watched it is also
    /// reported as a [`ToolEvent::Log`], which an MCP server sends its
    /// client as `notifications/message` when the level is at or above the
    /// one the client set with `logging/setLevel`.
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        let message = message.into();
        match level {
            LogLevel::Debug => crate::trace::debug!(level = %level, message = %message, "tool_log"),
            LogLevel::Info | LogLevel::Notice => {
                crate::trace::info!(level = %level, message = %message, "tool_log")
            }
            LogLevel::Warning => {
                crate::trace::warning!(level = %level, message = %message, "tool_log")
            }
            _ => crate::trace::error!(level = %level, message = %message, "tool_log"),
        }
        self.send(ToolEvent::Log { level, message });
    }

    /// Reports an intermediate output. A value that does not serialise to
    /// JSON is dropped (and logged).
    pub fn partial(&self, value: impl Serialize) {
        match serde_json::to_value(value) {
            Ok(value) => self.send(ToolEvent::Partial { value }),
            Err(_error) => {
                crate::trace::warning!(error = %_error, "a partial output could not be serialised")
            }
        }
    }

    /// Whether anyone watches this call's reports.
    pub fn is_watched(&self) -> bool {
        self.sink.is_some()
    }

    /// Reports an item a streaming tool yielded.
    pub(crate) fn partial_output(&self, output: &ToolOutput) {
        if self.sink.is_none() {
            return;
        }
        let value = match output.clone().into_value() {
            Ok(value) => value,
            Err(error) => Value::String(error.message().to_owned()),
        };
        self.send(ToolEvent::Partial { value });
    }

    fn send(&self, event: ToolEvent) {
        if let Some(sink) = &self.sink {
            sink.report(event);
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("watched", &self.is_watched())
            .finish()
    }
}

type CallFuture = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

/// One running call, read as a stream of [`ToolEvent`]s; made by
/// [`Registry::stream`](crate::Registry::stream).
///
/// The events come as the tool reports them, in order, and the stream ends
/// with one [`ToolEvent::Result`]. Like any Rust stream it is lazy: the tool
/// runs while the stream is polled, on the task polling it (spawn the
/// stream's consumer to run it in the background). Dropping the stream
/// stops the call at its next await point and ends its record `incomplete`.
///
/// The call's [`ToolCallRecord`] can be read at any time with
/// [`record`](Self::record), or watched with [`watch_record`](Self::watch_record).
#[must_use = "a stream does nothing unless polled"]
pub struct ToolCallStream {
    id: String,
    future: Option<CallFuture>,
    events: mpsc::UnboundedReceiver<ToolEvent>,
    record: watch::Receiver<ToolCallRecord>,
    sink: Arc<CallSink>,
    cancel: CancellationToken,
    result: Option<ToolResult>,
    done: bool,
}

impl ToolCallStream {
    pub(crate) fn new(
        id: String,
        future: CallFuture,
        events: mpsc::UnboundedReceiver<ToolEvent>,
        sink: Arc<CallSink>,
        cancel: CancellationToken,
    ) -> Self {
        let record = sink.record.subscribe();
        Self {
            id,
            future: Some(future),
            events,
            record,
            sink,
            cancel,
            result: None,
            done: false,
        }
    }

    /// The id of the tool use this call serves.
    pub fn tool_use_id(&self) -> &str {
        &self.id
    }

    /// The call's record as it is now.
    pub fn record(&self) -> ToolCallRecord {
        self.record.borrow().clone()
    }

    /// A receiver that sees every change to the call's record (progress,
    /// trace entries, the end), for watching it from another task.
    pub fn watch_record(&self) -> watch::Receiver<ToolCallRecord> {
        self.record.clone()
    }

    /// Cancels this call only: the tool stops at its next await point and
    /// the stream ends with a [`Cancelled`](crate::spec::ToolErrorKind::Cancelled)
    /// error result.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// The next event, or `None` after the result: the same as
    /// `StreamExt::next`, without importing it.
    pub async fn next_event(&mut self) -> Option<ToolEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// Runs the call to its end, dropping the events, and returns the result
    /// and the final record. (Dropping the stream instead stops the call and
    /// ends its record `incomplete`.)
    pub async fn finish(mut self) -> (ToolResult, ToolCallRecord) {
        let mut last = None;
        while let Some(event) = self.next_event().await {
            if let ToolEvent::Result(result) = event {
                last = Some(result);
            }
        }
        let record = self.record();
        let result = last
            .or_else(|| record.result.clone())
            .unwrap_or_else(|| ToolResult::error(self.id.clone(), "the call produced no result"));
        (result, record)
    }
}

impl Stream for ToolCallStream {
    type Item = ToolEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ToolEvent>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        loop {
            // Reported events first, so they come before the result.
            if let Ok(event) = this.events.try_recv() {
                return Poll::Ready(Some(event));
            }
            let Some(future) = this.future.as_mut() else {
                break;
            };
            match future.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    this.future = None;
                    this.result = Some(result);
                }
                Poll::Pending => {
                    // Wake up for events sent from other threads or tasks
                    // (a blocking tool, a task the tool spawned) as well.
                    return match this.events.poll_recv(cx) {
                        Poll::Ready(Some(event)) => Poll::Ready(Some(event)),
                        Poll::Ready(None) | Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
        match this.result.take() {
            Some(result) => Poll::Ready(Some(ToolEvent::Result(result))),
            None => {
                this.done = true;
                Poll::Ready(None)
            }
        }
    }
}

/// A stream dropped before its call ended stops the call; its record ends
/// `incomplete`, so whoever watches it is not left waiting.
impl Drop for ToolCallStream {
    fn drop(&mut self) {
        if self.future.take().is_some() {
            self.cancel.cancel();
            let tool = self.sink.snapshot().tool;
            let error = ToolError::with_kind(
                ToolErrorKind::Cancelled,
                format!(
                    "the call to {tool} was cancelled before it finished: its stream was dropped"
                ),
            );
            self.sink
                .finish(&ToolResult::from_error(self.id.clone(), &error));
        }
    }
}

impl FusedStream for ToolCallStream {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl fmt::Debug for ToolCallStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCallStream")
            .field("tool_use_id", &self.id)
            .field("running", &self.future.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialise_with_a_type_tag_and_read_back() {
        let events = [
            ToolEvent::Progress {
                progress: 0.25,
                message: "a quarter".into(),
            },
            ToolEvent::Trace(TraceEntry {
                at_ms: 1_767_225_600_000,
                step: "split".into(),
                message: "4 sections".into(),
            }),
            ToolEvent::Partial {
                value: json!({"rows": 2}),
            },
            ToolEvent::Result(ToolResult::text("doc-1", "done")),
        ];
        let json: Vec<Value> = events
            .iter()
            .map(|event| serde_json::to_value(event).unwrap())
            .collect();
        assert_eq!(
            json,
            [
                json!({"type": "progress", "progress": 0.25, "message": "a quarter"}),
                json!({"type": "trace", "at_ms": 1_767_225_600_000u64, "step": "split", "message": "4 sections"}),
                json!({"type": "partial", "value": {"rows": 2}}),
                json!({"type": "result", "toolUseId": "doc-1", "status": "success", "content": [{"text": "done"}]}),
            ]
        );
        for (event, value) in events.iter().zip(json) {
            assert_eq!(&serde_json::from_value::<ToolEvent>(value).unwrap(), event);
        }
    }

    #[test]
    fn reports_after_the_end_are_dropped() {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let (sink, record) = CallSink::new(ToolCallRecord::started("1", "t"), Some(sender));
        let progress = Progress::new(Some(Arc::clone(&sink)));
        progress.trace("a", "before");
        sink.finish(&ToolResult::text("1", "ok"));
        progress.trace("b", "after");
        progress.progress(0.9, "after");
        assert!(matches!(receiver.try_recv(), Ok(ToolEvent::Trace(e)) if e.step == "a"));
        assert!(receiver.try_recv().is_err());
        let record = record.borrow();
        assert_eq!(record.trace.len(), 1);
        assert_eq!(record.progress, None);
    }
}
