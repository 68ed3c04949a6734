//! The bridge between a script and the registry, on this side.
//!
//! The script's process gets one end of a Unix socket pair (by number, in
//! an environment variable); this process keeps the other. Three things
//! run while the script does:
//!
//! - a reader thread reads request lines (each at most
//!   `max_request_bytes`; a longer one is skipped and answered with an
//!   error) and hands them on through a bounded channel, so a script that
//!   floods requests waits for them to be taken;
//! - a writer thread writes reply lines: the socket is only ever written
//!   there, so a slow script never holds up the calls;
//! - [`run`]'s loop, on the caller's task, starts each call (at most
//!   `max_concurrent_calls` at once), and hands each reply to the writer
//!   as the call ends. It ends when the interpreter's process does (on a
//!   blocking thread, under `python_exec`'s runner); the calls still
//!   running are then stopped and the socket shut down, which ends both
//!   threads.
//!
//! Nothing waits on this side unbounded: the loop takes a request only
//! while no call waits for a free place and the replies the script has
//! not read yet are fewer than `max_unread_reply_bytes`. Otherwise the
//! request stays in the channel, then in the socket, and the script's
//! writes block: a script that floods requests, or never reads its
//! replies, is held back rather than buffered.
//!
//! Nothing the script writes can make this side panic: a line that is not
//! a request gets an error reply (with `"id": null` when it has no id).

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinSet;
use tool_runtime::search::ToolIndex;
use tool_runtime::{
    Content, Registry, ToolContext, ToolError, ToolResult, ToolUse, events::ToolCallRecord,
    spec::ToolErrorKind,
};
use tracing::Instrument;

use super::CodeModeOptions;
use super::prelude::{self, FD_VARIABLE, PyTool};
use super::run::{CodeModeRun, ScriptCall};
use crate::python::{self, PythonRun, SandboxRequired};

/// What every run of one `code_mode` tool shares.
pub(super) struct Inner {
    pub(super) registry: Arc<Registry>,
    pub(super) options: CodeModeOptions,
    /// The exposed tools, as Python functions.
    pub(super) tools: Vec<PyTool>,
    /// Each exposed tool's place in `tools`, by its registry name.
    pub(super) by_name: HashMap<String, usize>,
    /// The index `search_tools` reads, when the tools are more than the
    /// description shows.
    pub(super) index: Option<ToolIndex>,
}

/// How many requests wait between the reader thread and the loop: few,
/// as each may be `max_request_bytes` long.
const QUEUED_REQUESTS: usize = 4;

/// The replies handed to the writer thread and not yet written to the
/// socket (which the script reads): how many bytes, and a signal each time
/// some are written.
#[derive(Default)]
struct Unread {
    bytes: AtomicU64,
    written: Notify,
}

/// What the script asked for.
enum Request {
    /// A tool call.
    Call {
        id: Value,
        tool: String,
        arguments: Value,
    },
    /// `search_tools(query, limit)`.
    Search {
        id: Value,
        query: String,
        limit: usize,
    },
    /// A line that is not a request: the error to reply with.
    Bad { id: Value, message: String },
}

/// A request line as sent: `{"id": 1, "tool": "...", "arguments": {...}}`
/// or `{"id": 2, "search": "...", "limit": 5}`.
#[derive(Deserialize)]
struct Line {
    id: Value,
    tool: Option<String>,
    #[serde(default)]
    arguments: Value,
    search: Option<String>,
    limit: Option<usize>,
}

/// Sets the flag when dropped: the run's future was dropped (or ended),
/// and the interpreter's watch loop stops the script.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What the loop keeps while the script runs.
struct Calls<'a> {
    inner: &'a Inner,
    /// The context the calls are made with: the `code_mode` call's, and
    /// under the sandbox with [`SandboxRequired`].
    ctx: ToolContext,
    /// The `code_mode` call's tool use id.
    parent: Option<String>,
    running: JoinSet<(Value, ToolResult, ToolCallRecord)>,
    queued: VecDeque<(Value, ToolUse)>,
    /// How many calls the script asked for, counting refused ones.
    asked: u64,
    made: Vec<ScriptCall>,
    limit: Option<&'static str>,
    replies: std::sync::mpsc::Sender<Vec<u8>>,
    unread: Arc<Unread>,
}

/// Runs `script` with the bridge to `inner`'s tools; the calls are made
/// with `ctx`, the `code_mode` call's context.
pub(super) async fn run(
    inner: Arc<Inner>,
    script: String,
    ctx: &ToolContext,
) -> Result<CodeModeRun, ToolError> {
    let internal = |what: &str, error: std::io::Error| {
        ToolError::internal(format!("code mode cannot {what}: {error}"))
    };
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(ToolError::new("code_mode runs only inside a Tokio runtime"));
    }
    let options = &inner.options;
    let (ours, theirs) =
        UnixStream::pair().map_err(|error| internal("make a socket pair", error))?;
    let reader = ours
        .try_clone()
        .map_err(|error| internal("share the socket", error))?;
    let writer = ours
        .try_clone()
        .map_err(|error| internal("share the socket", error))?;

    let mut config = options.python.clone();
    config.timeout_ms = options.timeout_ms;
    config.max_output_bytes = options.max_output_bytes;
    config.max_code_bytes = u64::MAX;
    config
        .env
        .insert(FD_VARIABLE.to_owned(), theirs.as_raw_fd().to_string());
    let program = prelude::program(&inner.tools, &script, options.max_request_bytes);
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
    let watched = ctx.clone();
    let mut script_run = tokio::task::spawn_blocking(move || {
        let cancelled = || stop.load(Ordering::Relaxed) || watched.is_cancelled();
        let run = python::run_with_channel(&program, &config, &cancelled, theirs.as_raw_fd());
        drop(theirs);
        run
    });

    let (requests, mut incoming) = mpsc::channel(QUEUED_REQUESTS);
    let max_request = usize::try_from(options.max_request_bytes).unwrap_or(usize::MAX);
    // Unbounded, but never fuller than `max_unread_reply_bytes` and the
    // replies of the calls running: the loop takes no request past it.
    let (replies, outgoing) = std::sync::mpsc::channel::<Vec<u8>>();
    let unread = Arc::new(Unread::default());
    let written = Arc::clone(&unread);
    let spawned = std::thread::Builder::new()
        .name("code-mode-requests".into())
        .spawn(move || read_requests(reader, max_request, &requests))
        .and_then(|_| {
            std::thread::Builder::new()
                .name("code-mode-replies".into())
                .spawn(move || write_replies(writer, &outgoing, &written))
        });
    if let Err(error) = spawned {
        let _ = ours.shutdown(std::net::Shutdown::Both);
        return Err(internal("start its threads", error));
    }

    // Under the sandbox, a tool that runs code runs it there too.
    let calls_ctx = if options.python.sandbox {
        ctx.clone().with_extension(SandboxRequired)
    } else {
        ctx.clone()
    };
    let mut calls = Calls {
        inner: &inner,
        ctx: calls_ctx,
        parent: ctx.tool_use_id().map(str::to_owned),
        running: JoinSet::new(),
        queued: VecDeque::new(),
        asked: 0,
        made: Vec::new(),
        limit: None,
        replies,
        unread,
    };
    let span = tracing::Span::current();
    let outcome = loop {
        let ready = calls.ready();
        tokio::select! {
            outcome = &mut script_run => break outcome,
            Some(request) = incoming.recv(), if ready => calls.take(request, &span),
            Some(done) = calls.running.join_next(), if !calls.running.is_empty() => {
                calls.finish(done, &span);
            }
            () = calls.unread.written.notified(), if !ready => {}
        }
    };
    calls.running.abort_all();
    let _ = ours.shutdown(std::net::Shutdown::Both);
    let run = match outcome {
        Ok(run) => run?,
        Err(error) => {
            return Err(ToolError::internal(format!(
                "the thread running the script failed: {error}"
            )));
        }
    };
    Ok(result(run, calls, options))
}

/// The run's result: the interpreter's, the calls made, and the limit
/// that stopped the script or that it ran into.
fn result(run: PythonRun, calls: Calls<'_>, options: &CodeModeOptions) -> CodeModeRun {
    let limit = run.limit.clone().or(calls.limit.map(str::to_owned));
    let error = match limit.as_deref() {
        Some("timeout") => Some(format!(
            "the script ran past its time limit of {} ms and was stopped",
            options.timeout_ms
        )),
        Some("calls") => Some(format!(
            "the script asked for {} tool calls, more than the limit of {}; the calls past it raised ToolCallError",
            calls.asked, options.max_calls
        )),
        Some("cancelled") => Some("the call was cancelled, and the script stopped".to_owned()),
        Some(other) => Some(format!("the script ran into its {other} limit")),
        None => None,
    };
    CodeModeRun {
        stdout: run.stdout,
        stderr: run.stderr,
        exit_code: run.exit_code,
        killed: run.killed,
        limit,
        error,
        stdout_truncated: run.stdout_truncated,
        stderr_truncated: run.stderr_truncated,
        duration_ms: run.duration_ms,
        calls: calls.made,
    }
}

impl Calls<'_> {
    /// Whether the loop takes another request: no call waits for a place,
    /// and the script has fewer than `max_unread_reply_bytes` of replies
    /// to read.
    fn ready(&self) -> bool {
        self.queued.is_empty()
            && self.unread.bytes.load(Ordering::Acquire) < self.inner.options.max_unread_reply_bytes
    }

    /// Takes one request: answers it, starts the call, or queues it.
    fn take(&mut self, request: Request, span: &tracing::Span) {
        match request {
            Request::Bad { id, message } => self.reply(&id, failure(&message, "invalid_request")),
            Request::Search { id, query, limit } => {
                let value = self.search(&query, limit.clamp(1, 50));
                self.reply(&id, json!({"ok": true, "value": value}));
            }
            Request::Call {
                id,
                tool,
                arguments,
            } => {
                if !self.inner.by_name.contains_key(&tool) {
                    let message = format!(
                        "no tool named \"{}\" is offered to this script",
                        tool_runtime::__private::quote::name(&tool)
                    );
                    self.reply(&id, failure(&message, ToolErrorKind::UnknownTool.as_str()));
                    return;
                }
                self.asked += 1;
                if self.asked > u64::from(self.inner.options.max_calls) {
                    self.limit = Some("calls");
                    let message = format!(
                        "this script may make at most {} tool calls",
                        self.inner.options.max_calls
                    );
                    self.reply(&id, failure(&message, "limit"));
                    return;
                }
                let call_id = match &self.parent {
                    Some(parent) => format!("{parent}.{}", self.asked),
                    None => format!("code_mode.{}", self.asked),
                };
                self.queued
                    .push_back((id, ToolUse::new(call_id, tool, arguments)));
                self.start_queued(span);
            }
        }
    }

    /// Starts queued calls while fewer than the limit run.
    fn start_queued(&mut self, span: &tracing::Span) {
        let limit = self.inner.options.max_concurrent_calls as usize;
        while self.running.len() < limit {
            let Some((id, tool_use)) = self.queued.pop_front() else {
                return;
            };
            let registry = Arc::clone(&self.inner.registry);
            let ctx = self.ctx.clone();
            let call = async move {
                let (result, record) = registry.invoke_recorded(tool_use, &ctx).await;
                (id, result, record)
            };
            self.running.spawn(call.instrument(span.clone()));
        }
    }

    /// A call ended: its reply, its record, and the next queued call.
    fn finish(
        &mut self,
        done: Result<(Value, ToolResult, ToolCallRecord), tokio::task::JoinError>,
        span: &tracing::Span,
    ) {
        match done {
            Ok((id, result, record)) => {
                // A result cut or refused for the model's sake reaches the
                // script whole (within max_reply_bytes): the script's
                // output is what the model reads.
                let full = result
                    .full_result
                    .as_ref()
                    .and_then(|handle| self.inner.registry.full_result(handle).ok());
                let shown = full.as_deref().unwrap_or(&result);
                let reply = reply_for(shown, self.inner.options.max_reply_bytes, &record.tool);
                self.reply(&id, reply);
                self.ctx.trace(
                    "tool_call",
                    format!(
                        "{} {} {} in {} ms",
                        record.id,
                        record.tool,
                        record.status,
                        record.duration_ms().unwrap_or(0)
                    ),
                );
                self.made.push(ScriptCall {
                    id: record.id.clone(),
                    parent: record.parent.clone(),
                    tool: record.tool.clone(),
                    status: record.status,
                    error_kind: record.error_kind.map(|kind| kind.as_str().to_owned()),
                    duration_ms: record.duration_ms(),
                });
            }
            // A call's task is aborted only once the script has ended; a
            // panic is caught by the registry. Nothing is waiting then.
            Err(error) => {
                tracing::warn!(%error, "a code mode call's task failed");
            }
        }
        self.start_queued(span);
    }

    /// The tools that best match `query`, as the script reads them.
    fn search(&self, query: &str, limit: usize) -> Value {
        let found: Vec<usize> = match &self.inner.index {
            Some(index) => index
                .search(query, limit)
                .iter()
                .filter_map(|hit| self.inner.by_name.get(&hit.name).copied())
                .collect(),
            None => (0..self.inner.tools.len()).take(limit).collect(),
        };
        let found: Vec<Value> = found
            .into_iter()
            .map(|i| {
                let tool = &self.inner.tools[i];
                let spec = self.inner.registry.get(&tool.name).map(|tool| tool.spec());
                json!({
                    "name": tool.ident,
                    "signature": tool.signature(),
                    "description": spec.map(|spec| spec.description.to_string()),
                })
            })
            .collect();
        Value::Array(found)
    }

    /// Hands the reply to the writer (which is gone only once the script's
    /// end of the socket is), counting it as unread until it is written.
    fn reply(&self, id: &Value, mut reply: Value) {
        reply["id"] = id.clone();
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        let size = line.len() as u64;
        self.unread.bytes.fetch_add(size, Ordering::AcqRel);
        if self.replies.send(line).is_err() {
            self.unread.bytes.fetch_sub(size, Ordering::AcqRel);
        }
    }
}

/// The error reply with `message` and `kind`.
fn failure(message: &str, kind: &str) -> Value {
    json!({"ok": false, "error": message, "kind": kind})
}

/// The reply for a call's result: its value (a value kept beside
/// formatted text, else JSON as it is, text as a string, several blocks as
/// a list, media as their stand-in text), or its error.
fn reply_for(result: &ToolResult, max_bytes: u64, tool: &str) -> Value {
    if result.is_error() {
        let kind = result.error_kind.unwrap_or(ToolErrorKind::Failed);
        return failure(&result.text_content(), kind.as_str());
    }
    let block = |content: &Content| match content {
        Content::Text(text) => Value::String(text.clone()),
        Content::Json(value) => value.clone(),
        other => Value::String(other.stand_in()),
    };
    let value = match result.content.as_slice() {
        _ if result.structured_content.is_some() => result
            .structured_content
            .as_deref()
            .cloned()
            .unwrap_or_default(),
        [] => Value::Null,
        [one] => block(one),
        many => Value::Array(many.iter().map(block).collect()),
    };
    let size = value.to_string().len() as u64;
    if size > max_bytes {
        let message = format!(
            "the result of {tool} is {size} bytes of JSON, more than the limit of {max_bytes} bytes a script may receive"
        );
        return failure(&message, "limit");
    }
    json!({"ok": true, "value": value})
}

/// Reads request lines until the socket ends or the loop is gone.
fn read_requests(socket: UnixStream, max_line: usize, requests: &mpsc::Sender<Request>) {
    let mut reader = BufReader::new(socket);
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = u64::try_from(max_line)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        match (&mut reader).take(limit).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let request = if line.last() != Some(&b'\n') && line.len() > max_line {
            if !skip_line(&mut reader) {
                return;
            }
            Request::Bad {
                id: Value::Null,
                message: format!("a request line is longer than the limit of {max_line} bytes"),
            }
        } else {
            parse(&line)
        };
        if requests.blocking_send(request).is_err() {
            return;
        }
    }
}

/// Reads up to the end of the line; false when the socket ended first.
fn skip_line(reader: &mut BufReader<UnixStream>) -> bool {
    loop {
        let buffer = match reader.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(buffer) => buffer,
        };
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return true;
            }
            None => {
                let all = buffer.len();
                reader.consume(all);
            }
        }
    }
}

/// One request line, read.
fn parse(line: &[u8]) -> Request {
    let line: Line = match serde_json::from_slice(line) {
        Ok(line) => line,
        Err(error) => {
            // The id, if the line is JSON with one, so the error reaches
            // whoever waits for it.
            let id = serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|value| value.get("id").cloned())
                .unwrap_or(Value::Null);
            return Request::Bad {
                id,
                message: format!("the request is not one this bridge reads: {error}"),
            };
        }
    };
    match (line.tool, line.search) {
        (Some(tool), None) => Request::Call {
            id: line.id,
            tool,
            arguments: match line.arguments {
                Value::Null => json!({}),
                arguments => arguments,
            },
        },
        (None, Some(query)) => Request::Search {
            id: line.id,
            query,
            limit: line.limit.unwrap_or(5),
        },
        _ => Request::Bad {
            id: line.id,
            message: "a request names either a \"tool\" or a \"search\"".to_owned(),
        },
    }
}

/// Writes reply lines until the loop is gone or the socket fails, telling
/// the loop of each line written.
fn write_replies(
    mut socket: UnixStream,
    replies: &std::sync::mpsc::Receiver<Vec<u8>>,
    unread: &Unread,
) {
    while let Ok(line) = replies.recv() {
        if socket.write_all(&line).is_err() {
            return;
        }
        unread.bytes.fetch_sub(line.len() as u64, Ordering::AcqRel);
        unread.written.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_answered_not_panicked_on() {
        for line in [
            &b"not json\n"[..],
            b"{\"id\": 3}\n",
            b"{\"id\": 4, \"tool\": \"a\", \"search\": \"b\"}\n",
            b"[1, 2]\n",
            b"\xff\xfe\n",
        ] {
            assert!(matches!(parse(line), Request::Bad { .. }), "{line:?}");
        }
        match parse(b"{\"id\": 7, \"tool\": 1}\n") {
            Request::Bad { id, .. } => assert_eq!(id, 7),
            _ => panic!("a tool that is not a string is refused"),
        }
        match parse(b"{\"id\": 1, \"tool\": \"t\"}\n") {
            Request::Call { arguments, .. } => assert_eq!(arguments, json!({})),
            _ => panic!("a call without arguments has none"),
        }
    }

    #[test]
    fn overlong_lines_are_skipped_whole() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        theirs
            .write_all(b"{\"id\": 1, \"tool\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n{\"id\": 2, \"tool\": \"t\"}\n")
            .unwrap();
        drop(theirs);
        let (sender, mut receiver) = mpsc::channel(4);
        read_requests(ours, 30, &sender);
        drop(sender);
        assert!(matches!(receiver.try_recv(), Ok(Request::Bad { .. })));
        assert!(matches!(receiver.try_recv(), Ok(Request::Call { .. })));
        assert!(receiver.try_recv().is_err());
    }

    #[test]
    fn results_become_values_and_large_ones_errors() {
        let text = ToolResult::text("1", "hello");
        assert_eq!(reply_for(&text, 100, "t")["value"], "hello");
        let value = ToolResult::json("1", json!({"a": [1, 2]}));
        assert_eq!(reply_for(&value, 100, "t")["value"], json!({"a": [1, 2]}));
        let large = reply_for(&ToolResult::text("1", "x".repeat(200)), 100, "t");
        assert_eq!(large["ok"], false);
        assert_eq!(large["kind"], "limit");
        let error =
            ToolResult::from_error("1", &ToolError::with_kind(ToolErrorKind::NotApproved, "no"));
        assert_eq!(reply_for(&error, 100, "t")["kind"], "not_approved");
    }
}
