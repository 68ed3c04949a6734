//! The server's `stdio` transport: newline-delimited JSON-RPC over a byte
//! stream pair ([`McpServer::serve_io`]), or this process's stdin and
//! stdout ([`McpServer::serve_stdio`]).
//!
//! The lines are read and decoded here rather than by rmcp's own stream
//! transport, so that no request goes unanswered:
//!
//! - A line that is not JSON (bad syntax, invalid UTF-8, a lone surrogate
//!   escape, nesting deeper than the parser allows) or is longer than
//!   [`MAX_LINE`] gets a JSON-RPC `-32700` (parse error). Its `id` is the
//!   one a lenient scan of the raw line finds at the top level, else
//!   `null`.
//! - JSON that is not a JSON-RPC message gets `-32600` (invalid request),
//!   unless it looks like a notification (a `method`, no `id`), which is
//!   dropped as the protocol wants.
//! - A request for a method the server serves (`tools/call`, `tools/list`,
//!   `initialize`, `ping`) whose `params` do not fit the method, such as
//!   `arguments` that are not an object, gets `-32602` (invalid params).
//!
//! Each message goes out in one write; the output is flushed when no more
//! messages wait, so under load several messages share a write and a
//! flush. When stdin and stdout are pipes (as an MCP client starts a
//! server), they are driven by Tokio's reactor rather than its blocking
//! thread pool (rmcp's [`stdio_pipes`](rmcp::transport::stdio_pipes)).

use std::borrow::Cow;
use std::io;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwapOption;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientJsonRpcMessage, ClientNotification,
    ClientRequest, CustomRequest, InitializeRequestParams, JsonObject, JsonRpcMessage,
    JsonRpcNotification, JsonRpcRequest, JsonRpcVersion2_0, PaginatedRequestParams,
    ProgressNotification, ProgressNotificationParam, RequestId, RequestMetaObject,
    ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::{Peer, RoleServer};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tool_runtime::{CancellationToken, LogLevel};

use super::{McpServer, Notify};

/// The longest line (one message) read, newline included: 16 MiB, as
/// rmcp's own limit. A longer line is answered with a parse error and
/// skipped, without being held in memory.
pub(super) const MAX_LINE: usize = 16 * 1024 * 1024;

/// JSON-RPC's "parse error".
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "invalid request".
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i64 = -32602;

/// How many bytes of queued messages one write takes at most.
const BATCH: usize = 256 * 1024;

/// Serves `server` on this process's stdin and stdout: [`McpServer::serve_stdio`].
pub(super) async fn serve_stdio(server: McpServer) -> io::Result<()> {
    let (reader, writer) = rmcp::transport::stdio_pipes();
    serve(server, reader, writer).await
}

/// Serves `server` on a byte stream pair until the reader ends:
/// [`McpServer::serve_io`].
pub(super) async fn serve<R, W>(server: McpServer, reader: R, writer: W) -> io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let transport = LineTransport::new(reader, writer);
    let calls = Arc::clone(&transport.calls);
    // Weak: the output closes when the transport closes, whatever calls
    // still hold of it.
    let queue = transport
        .queue
        .as_ref()
        .map(mpsc::UnboundedSender::downgrade);
    let running = rmcp::serve_server(server, transport)
        .await
        .map_err(io::Error::other)?;
    // Set up: from now on the transport runs calls itself.
    if let Some(queue) = queue {
        calls.store(Some(Arc::new(Calls {
            server: running.service().same_session(),
            peer: running.peer().clone(),
            queue,
            running: Mutex::new(HashMap::new()),
            ended: tokio::sync::Notify::new(),
        })));
    }
    running.waiting().await.map_err(io::Error::other)?;
    Ok(())
}

/// The `tools/call` requests of a session that the transport runs itself
/// once the session is set up, instead of handing them to rmcp: the call
/// goes from the line read to the tool and its answer onto the output, with
/// no task, channel or context of rmcp's in between. Everything else
/// (`initialize`, `tools/list`, `ping`, `logging/setLevel`, the client's
/// answers to sampling and elicitation requests, calls whose `_meta` holds
/// more than a progress token) still goes to rmcp, and both paths serve the
/// same session: [`McpServer::same_session`].
struct Calls {
    server: McpServer,
    peer: Peer<RoleServer>,
    /// The transport's output, while it is open.
    queue: mpsc::WeakUnboundedSender<Vec<u8>>,
    /// The calls running, to cancel on `notifications/cancelled`.
    running: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Told each time a call ends.
    ended: tokio::sync::Notify,
}

/// How long calls still running when the input ends may take to finish and
/// be answered, as rmcp gives its own; then they are cancelled.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

impl Calls {
    /// Runs `message` if it is a call this transport runs, or cancels the
    /// call it names if it is the cancellation of one: `None`. Anything
    /// else is given back, for rmcp.
    fn take(self: &Arc<Self>, message: ClientJsonRpcMessage) -> Option<ClientJsonRpcMessage> {
        match message {
            JsonRpcMessage::Request(JsonRpcRequest {
                id,
                request: ClientRequest::CallToolRequest(call),
                jsonrpc,
            }) => {
                let meta = call.extensions.get::<RequestMetaObject>();
                let plain =
                    meta.is_none_or(|meta| meta.0.0.keys().all(|key| key == "progressToken"));
                if !plain {
                    return Some(JsonRpcMessage::Request(JsonRpcRequest {
                        jsonrpc,
                        id,
                        request: ClientRequest::CallToolRequest(call),
                    }));
                }
                self.start(id, call);
                None
            }
            JsonRpcMessage::Notification(JsonRpcNotification {
                notification: ClientNotification::CancelledNotification(cancelled),
                jsonrpc,
            }) => {
                let token = cancelled
                    .params
                    .request_id
                    .as_ref()
                    .and_then(|id| self.running().get(id).cloned());
                match token {
                    Some(token) => {
                        token.cancel();
                        None
                    }
                    None => Some(JsonRpcMessage::Notification(JsonRpcNotification {
                        jsonrpc,
                        notification: ClientNotification::CancelledNotification(cancelled),
                    })),
                }
            }
            other => Some(other),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs the call `id` on a task of its own and writes its answer; none
    /// for a call cancelled meanwhile, as MCP asks.
    fn start(self: &Arc<Self>, id: RequestId, call: CallToolRequest) {
        let progress_token = call
            .extensions
            .get::<RequestMetaObject>()
            .and_then(|meta| meta.get_progress_token());
        let cancelled = CancellationToken::new();
        self.running().insert(id.clone(), cancelled.clone());
        let calls = Arc::clone(self);
        tokio::spawn(async move {
            let tool_use = super::tool_use(&id, call.params);
            let outcome = calls
                .server
                .run_call(tool_use, progress_token, &calls.peer, &cancelled, &*calls)
                .await;
            // No answer for a cancelled call, as MCP asks.
            if !cancelled.is_cancelled() {
                calls.write(&super::answer(id.clone(), outcome));
            }
            calls.running().remove(&id);
            calls.ended.notify_waiters();
        });
    }

    /// Queues `message` for the output.
    fn write(&self, message: &ServerJsonRpcMessage) {
        match serde_json::to_vec(message) {
            Ok(mut bytes) => {
                bytes.push(b'\n');
                // A closed output: the session is over, nobody reads.
                if let Some(queue) = self.queue.upgrade() {
                    let _ = queue.send(bytes);
                }
            }
            Err(error) => tracing::error!(%error, "a message could not be serialised"),
        }
    }

    /// Waits until no call is running.
    async fn finish(&self) {
        loop {
            let ended = self.ended.notified();
            if self.running().is_empty() {
                return;
            }
            ended.await;
        }
    }

    /// Cancels every call still running: the session is over.
    fn cancel_all(&self) {
        for token in self.running().values() {
            token.cancel();
        }
    }
}

impl Notify for Calls {
    async fn progress(&self, params: ProgressNotificationParam) {
        self.write(&ServerJsonRpcMessage::notification(
            ServerNotification::ProgressNotification(ProgressNotification::new(params)),
        ));
    }

    async fn log(&self, level: LogLevel, logger: &str, message: String) {
        self.write(&ServerJsonRpcMessage::notification(
            super::logging::notification(level, logger, message),
        ));
    }
}

/// Newline-delimited JSON-RPC over a reader and a writer, the writer
/// driven by a task of its own fed through a queue.
struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line read so far (a read cancelled by rmcp's `select!` resumes
    /// it).
    line: Vec<u8>,
    /// Skipping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
    /// Messages to write, serialized with their newline; `None` once
    /// closed.
    queue: Option<mpsc::UnboundedSender<Vec<u8>>>,
    writer: Option<JoinHandle<()>>,
    /// The calls this transport runs itself, once the session is set up.
    calls: Arc<ArcSwapOption<Calls>>,
}

/// What a line holds.
#[expect(
    clippy::large_enum_variant,
    reason = "a message is moved out at once; boxing it costs an allocation a message"
)]
enum Decoded {
    Message(ClientJsonRpcMessage),
    /// An error reply, to write instead of passing anything on.
    Reply(Vec<u8>),
    /// Nothing to pass on nor answer.
    Nothing,
}

/// How a bounded line read ended.
enum Read {
    Line,
    TooLong,
    End,
}

impl<R: AsyncRead + Send + Unpin> LineTransport<R> {
    fn new<W>(reader: R, writer: W) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (queue, queued) = mpsc::unbounded_channel();
        Self {
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            discarding: false,
            queue: Some(queue),
            writer: Some(tokio::spawn(write_out(writer, queued))),
            calls: Arc::new(ArcSwapOption::empty()),
        }
    }

    /// Queues `bytes` (whole lines) for the writer.
    fn enqueue(&self, bytes: Vec<u8>) -> io::Result<()> {
        self.queue
            .as_ref()
            .and_then(|queue| queue.send(bytes).ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "the output is closed"))
    }

    /// Reads one line into `self.line`, never holding more than
    /// [`MAX_LINE`] bytes of it. Cancel-safe: bytes are moved from the
    /// buffer to `self.line` with no await in between.
    async fn read_line(&mut self) -> io::Result<Read> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::End);
            }
            let newline = memchr(available);
            let take = newline.map_or(available.len(), |at| at + 1);
            if self.discarding {
                self.discarding = newline.is_none();
                self.reader.consume(take);
                continue;
            }
            if self.line.len() + take > MAX_LINE {
                // The head of the line, for its id.
                let head = &self.line[..];
                let id = scan_id(if head.is_empty() { available } else { head });
                let reply = error_reply(
                    id,
                    PARSE_ERROR,
                    format!("parse error: the message is longer than {MAX_LINE} bytes"),
                );
                self.line.clear();
                self.discarding = newline.is_none();
                self.reader.consume(take);
                // A closed output is seen by the next send.
                let _ = self.enqueue(reply);
                return Ok(Read::TooLong);
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume(take);
            if newline.is_some() {
                return Ok(Read::Line);
            }
        }
    }
}

impl<R: AsyncRead + Send + Unpin> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = io::Result<()>> + Send + 'static {
        // Queued now, in the order rmcp sends: the future only reports.
        let result = serde_json::to_vec(&item)
            .map_err(io::Error::from)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                self.enqueue(bytes)
            });
        std::future::ready(result)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {}
                Ok(Read::TooLong) => continue,
                // A last line without its newline is incomplete: dropped.
                Ok(Read::End) => return None,
                Err(error) => {
                    tracing::error!(%error, "reading a message failed");
                    return None;
                }
            }
            let decoded = decode(trim(&self.line));
            self.line.clear();
            match decoded {
                Decoded::Message(message) => {
                    // Once the session is set up, a call is run here and
                    // rmcp gets the rest.
                    let calls = self.calls.load();
                    let Some(calls) = calls.as_ref() else {
                        return Some(message);
                    };
                    if let Some(message) = calls.take(message) {
                        return Some(message);
                    }
                }
                Decoded::Reply(reply) => {
                    if self.enqueue(reply).is_err() {
                        return None;
                    }
                }
                Decoded::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> io::Result<()> {
        // Calls still running get some time to finish and be answered,
        // as rmcp gives its own; then they are cancelled. The writer ends
        // once the queue is drained and closed: every message sent so far
        // is written and flushed.
        if let Some(calls) = self.calls.swap(None)
            && tokio::time::timeout(DRAIN, calls.finish()).await.is_err()
        {
            calls.cancel_all();
        }
        drop(self.queue.take());
        if let Some(writer) = self.writer.take() {
            writer.await.map_err(io::Error::other)?;
        }
        Ok(())
    }
}

/// Writes the queued messages, as many as are waiting (up to [`BATCH`]
/// bytes) in each write, and flushes whenever the queue is empty.
async fn write_out<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queued: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    let mut batch = Vec::new();
    while let Some(first) = queued.recv().await {
        let mut written = if queued.is_empty() {
            writer.write_all(&first).await
        } else {
            batch.clear();
            batch.extend_from_slice(&first);
            while batch.len() < BATCH {
                match queued.try_recv() {
                    Ok(next) => batch.extend_from_slice(&next),
                    Err(_) => break,
                }
            }
            writer.write_all(&batch).await
        };
        if written.is_ok() && queued.is_empty() {
            written = writer.flush().await;
        }
        if let Err(error) = written {
            // Sends fail from now on, as the queue is closed.
            tracing::debug!(%error, "writing a message failed; the output is closed");
            return;
        }
    }
}

/// The line without its newline, carriage return and byte order mark.
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&byte| byte == b'\n')
}

/// One line decoded: a message for rmcp, an error reply, or nothing.
fn decode(line: &[u8]) -> Decoded {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Nothing;
    }
    if let Some(call) = decode_call(line) {
        return Decoded::Message(call);
    }
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(JsonRpcMessage::Request(request)) => {
            if let ClientRequest::CustomRequest(custom) = &request.request
                && let Some(problem) = invalid_params(custom)
            {
                let id = request.id.clone().into_json_value();
                return Decoded::Reply(error_reply(id, INVALID_PARAMS, problem));
            }
            return Decoded::Message(JsonRpcMessage::Request(request));
        }
        Ok(message) => return Decoded::Message(message),
        Err(error) => error,
    };
    use serde_json::error::Category;
    if let Category::Data = error.classify()
        && let Ok(value) = serde_json::from_slice::<Value>(line)
    {
        // JSON, but no JSON-RPC message rmcp knows.
        let id = value.get("id");
        if id.is_none() && value.get("method").is_some() {
            tracing::debug!(%error, "dropping a notification that could not be read");
            return Decoded::Nothing;
        }
        let id = id.filter(|id| id.is_string() || id.is_number()).cloned();
        return Decoded::Reply(error_reply(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            format!("invalid request: {error}"),
        ));
    }
    Decoded::Reply(error_reply(
        scan_id(line),
        PARSE_ERROR,
        format!("parse error: {error}"),
    ))
}

/// A `tools/call` request, read straight into rmcp's types; `None` for any
/// other line, which then takes the general path.
///
/// rmcp's decoder of a client message tries each kind of message and each
/// method in turn, buffering the line and building an error for each miss:
/// some 40,000 instructions a call, half of what the server spends on one.
/// A call, by far the most frequent message, costs a tenth of that here.
/// What this reads is what the general path would: the same parameters,
/// `_meta` in the request's extensions. Anything unusual (parameters it
/// does not know, `arguments` that are not an object) is left to the
/// general path and its error replies.
pub(super) fn decode_call(line: &[u8]) -> Option<ClientJsonRpcMessage> {
    // Read in one pass whatever the method: a line that is not a call
    // fails here (or below) and takes the general path.
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        id: RequestId,
        #[serde(borrow)]
        method: Cow<'a, str>,
        params: Params,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        name: String,
        #[serde(default)]
        arguments: Option<JsonObject>,
        #[serde(rename = "_meta", default)]
        meta: Option<JsonObject>,
    }
    let envelope: Envelope = serde_json::from_slice(line).ok()?;
    if envelope.jsonrpc != "2.0" || envelope.method != "tools/call" {
        return None;
    }
    let params = envelope.params;
    let mut call = CallToolRequestParams::new(params.name);
    call.arguments = params.arguments;
    let mut request = CallToolRequest::new(call);
    if let Some(meta) = params.meta {
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Some(JsonRpcMessage::Request(JsonRpcRequest {
        jsonrpc: JsonRpcVersion2_0,
        id: envelope.id,
        request: ClientRequest::CallToolRequest(request),
    }))
}

/// Why the params of a request that rmcp could not read as its method's
/// request (so it came as a custom one) do not fit, for the methods this
/// server serves; `None` for any other method.
fn invalid_params(request: &CustomRequest) -> Option<String> {
    let method = request.method.as_str();
    let params = request.params.as_ref();
    let error = match method {
        "tools/call" => {
            let Some(params) = params else {
                return Some("invalid params for tools/call: params are missing".into());
            };
            if let Some(arguments) = params.get("arguments")
                && !arguments.is_object()
                && !arguments.is_null()
            {
                return Some(format!(
                    "invalid params for tools/call: arguments must be an object, not {}",
                    kind(arguments)
                ));
            }
            crate::reread::<CallToolRequestParams>(params).err()
        }
        "initialize" => {
            params.and_then(|params| crate::reread::<InitializeRequestParams>(params).err())
        }
        "tools/list" => {
            params.and_then(|params| crate::reread::<PaginatedRequestParams>(params).err())
        }
        "ping" => None,
        _ => return None,
    };
    Some(match error {
        Some(error) => format!("invalid params for {method}: {error}"),
        None => format!("invalid params for {method}"),
    })
}

/// The JSON type of `value`, with its article.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON-RPC error response, serialized with its newline.
fn error_reply(id: Value, code: i64, message: String) -> Vec<u8> {
    let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut bytes = reply.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// The `id` of a line that is not (or not entirely) JSON: a lenient scan
/// for an `"id"` key of the outermost object, whose value is a string or a
/// number; `null` when there is none, or it cannot be read.
fn scan_id(line: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'"' => {
                let end = string_end(line, at);
                let key = &line[at..end];
                at = end;
                if depth == 1 && key == b"\"id\"" {
                    let rest = skip_space(line, at);
                    if line.get(rest) == Some(&b':') {
                        return scan_value(line, skip_space(line, rest + 1));
                    }
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    Value::Null
}

/// Just past the string starting at `start` (its quote), escapes
/// included; the end of the line for an unterminated string.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < line.len() {
        match line[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    line.len()
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The string or number at `at`, or `null`.
fn scan_value(line: &[u8], at: usize) -> Value {
    let end = match line.get(at) {
        Some(b'"') => string_end(line, at),
        Some(b'-' | b'0'..=b'9') => {
            let mut end = at + 1;
            while line
                .get(end)
                .is_some_and(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                end += 1;
            }
            end
        }
        _ => return Value::Null,
    };
    match serde_json::from_slice::<Value>(&line[at..end]) {
        Ok(id @ (Value::String(_) | Value::Number(_))) => id,
        _ => Value::Null,
    }
}
