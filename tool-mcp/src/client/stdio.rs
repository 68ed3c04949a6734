//! The stdio transport: a spawned server spoken to on its stdin, its stdout
//! read one line (one JSON-RPC message) at a time, each line bounded as it
//! arrives.
//!
//! A line longer than [`McpLimits::max_result_bytes`] is not kept: the
//! bytes past the limit are read and dropped as they come, and the request
//! it answers fails at once with an error naming the limit. Which request
//! that is comes from the message's top-level `id`, found by a small JSON
//! scanner that reads every byte once; when the limit is crossed before the
//! `id` (some servers write it last), a response with one request pending
//! can only answer that one. Parts nested deeper than
//! [`MAX_MESSAGE_DEPTH`] are cut off (replaced with `null`) so that the
//! rest can still be read; a call's answer cut that way fails the call.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorCode, ErrorData, JsonRpcMessage,
    RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};

use super::limits::{self, MAX_MESSAGE_DEPTH, McpLimits};
use super::shared::Shared;

/// The JSON-RPC error code of an answer the transport refused (one of the
/// codes JSON-RPC leaves to implementations).
const REFUSED: ErrorCode = ErrorCode(-32001);
/// How much of the server's stdout is read at a time.
const READ_BUFFER: usize = 64 << 10;
/// How long a closed server has to exit after its stdin closes, before it
/// is killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);
/// The longest `id` read: ids are numbers or short strings.
const MAX_ID: usize = 128;

/// What a pending request asked for: it decides how a refusal reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Call,
    List,
    Other,
}

/// The requests sent and not answered yet.
type Pending = Arc<Mutex<HashMap<RequestId, Asked>>>;

/// Starts `command` with `args` and `env` on top of this process's
/// environment, its stdin and stdout piped to the transport, its stderr to
/// the caller; it is killed when the transport is dropped.
pub(crate) fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    shared: &Arc<Shared>,
    limits: &McpLimits,
) -> io::Result<(StdioTransport, Option<u32>, Option<ChildStderr>)> {
    let mut child = tokio::process::Command::new(command)
        .args(args)
        .envs(env)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id();
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(io::Error::other(
            "the server's stdin or stdout is not piped",
        ));
    };
    let stderr = child.stderr.take();
    let transport = StdioTransport {
        child,
        stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
        stdout: BufReader::with_capacity(READ_BUFFER, stdout),
        reader: Reader {
            scan: Scan::default(),
            max_bytes: limits.max_result_bytes,
            pending: Pending::default(),
            shared: Arc::clone(shared),
            ready: VecDeque::new(),
        },
    };
    Ok((transport, pid, stderr))
}

/// A spawned server's stdin and stdout as an rmcp transport.
pub(crate) struct StdioTransport {
    child: Child,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    stdout: BufReader<ChildStdout>,
    reader: Reader,
}

impl Transport<RoleClient> for StdioTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        {
            let mut pending = self.reader.pending();
            match &item {
                JsonRpcMessage::Request(request) => {
                    let asked = match &request.request {
                        ClientRequest::CallToolRequest(_) => Asked::Call,
                        ClientRequest::ListToolsRequest(_) => Asked::List,
                        _ => Asked::Other,
                    };
                    pending.insert(request.id.clone(), asked);
                }
                JsonRpcMessage::Notification(notification) => {
                    // A cancelled request's late answer is nobody's.
                    if let ClientNotification::CancelledNotification(cancelled) =
                        &notification.notification
                        && let Some(id) = &cancelled.params.request_id
                    {
                        pending.remove(id);
                    }
                }
                _ => {}
            }
        }
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let stdin = Arc::clone(&self.stdin);
        async move {
            let line = line.map_err(io::Error::other)?;
            let mut stdin = stdin.lock().await;
            let Some(stdin) = stdin.as_mut() else {
                return Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "the server's stdin is closed",
                ));
            };
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        // Cancel-safe: what was read is consumed only together with its
        // processing, which does not wait.
        loop {
            if let Some(message) = self.reader.ready.pop_front() {
                return Some(message);
            }
            let chunk = match self.stdout.fill_buf().await {
                Ok(chunk) => chunk,
                Err(error) => {
                    tracing::warn!(server = %self.reader.shared.server, %error, "cannot read the MCP server's stdout");
                    return None;
                }
            };
            if chunk.is_empty() {
                return None;
            }
            let used = self.reader.take(chunk);
            self.stdout.consume(used);
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.stdin.lock().await.take());
        // What it still writes is read and dropped meanwhile: a server
        // blocked writing (the rest of an answer refused) sees its stdin
        // close too.
        let drain = async {
            let _ = tokio::io::copy(&mut self.stdout, &mut tokio::io::sink()).await;
            std::future::pending::<()>().await
        };
        let exited = tokio::select! {
            status = self.child.wait() => status.is_ok(),
            () = drain => false,
            () = tokio::time::sleep(EXIT_WAIT) => false,
        };
        if !exited {
            self.child.start_kill()?;
            self.child.wait().await?;
        }
        Ok(())
    }
}

/// Turns the server's stdout into messages.
struct Reader {
    scan: Scan,
    max_bytes: usize,
    pending: Pending,
    shared: Arc<Shared>,
    /// Messages to hand over, before reading on.
    ready: VecDeque<ServerJsonRpcMessage>,
}

/// Why an answer was refused.
enum Why {
    Large,
    Deep,
    Unreadable(serde_json::Error),
}

impl Reader {
    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Asked>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads `chunk` up to the end of its first line; the bytes used.
    fn take(&mut self, chunk: &[u8]) -> usize {
        let newline = chunk.iter().position(|&b| b == b'\n');
        let body = &chunk[..newline.unwrap_or(chunk.len())];
        let was_over = self.scan.over;
        self.scan.feed(body);
        if !was_over && self.scan.bytes > self.max_bytes {
            self.scan.over = true;
            self.scan.out = Vec::new();
            self.crossed();
        }
        if newline.is_some() {
            self.line_ended();
        }
        newline.map_or(chunk.len(), |at| at + 1)
    }

    /// The line being read went over the byte limit: its request fails now
    /// when it is known which one that is.
    fn crossed(&mut self) {
        let id = self.scan.id.clone().or_else(|| {
            // A response, and one request waiting: its answer.
            let pending = self.pending();
            (self.scan.response && pending.len() == 1)
                .then(|| pending.keys().next().cloned())
                .flatten()
        });
        if let Some(id) = id {
            self.refuse(id, Why::Large);
            self.scan.settled = true;
        }
    }

    fn line_ended(&mut self) {
        let scan = std::mem::take(&mut self.scan);
        if scan.over {
            if !scan.settled {
                match scan.id {
                    Some(id) => self.refuse(id, Why::Large),
                    None => tracing::warn!(
                        server = %self.shared.server,
                        "a message from the MCP server over `max_result_bytes` was dropped"
                    ),
                }
            }
            return;
        }
        let line = scan.out.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&scan.out);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let cut_call = scan.cut
            && scan
                .id
                .as_ref()
                .is_some_and(|id| self.pending().get(id) == Some(&Asked::Call));
        if cut_call && let Some(id) = scan.id {
            self.refuse(id, Why::Deep);
            return;
        }
        match serde_json::from_slice::<ServerJsonRpcMessage>(line) {
            Ok(message) => {
                let answered = match &message {
                    JsonRpcMessage::Response(response) => Some(&response.id),
                    JsonRpcMessage::Error(error) => error.id.as_ref(),
                    _ => None,
                };
                if let Some(id) = answered {
                    self.pending().remove(id);
                }
                self.ready.push_back(message);
            }
            Err(error) => match scan.id {
                Some(id) => self.refuse(id, Why::Unreadable(error)),
                None => tracing::debug!(
                    server = %self.shared.server,
                    %error,
                    "a message from the MCP server could not be read; ignored"
                ),
            },
        }
    }

    /// Fails the pending request `id` with an error saying why its answer
    /// was refused.
    fn refuse(&mut self, id: RequestId, why: Why) {
        let asked = self.pending().remove(&id);
        let Some(asked) = asked else {
            return;
        };
        let answer = match asked {
            Asked::List => "a page of its tool list",
            Asked::Call | Asked::Other => "its answer",
        };
        let text = match why {
            Why::Large => format!(
                "{answer} is larger than {}, the limit `max_result_bytes`; it was not read",
                limits::bytes(self.max_bytes)
            ),
            Why::Deep => format!(
                "{answer} is nested deeper than {MAX_MESSAGE_DEPTH} levels; it was not read"
            ),
            Why::Unreadable(error) => format!("{answer} could not be read: {error}"),
        };
        if asked != Asked::Other {
            self.shared.refused(id.clone(), text.clone());
        }
        self.ready.push_back(ServerJsonRpcMessage::error(
            ErrorData::new(REFUSED, text, None),
            Some(id),
        ));
    }
}

/// One line of the server's stdout as it is read: its size, what it passes
/// on, and what the scanner has learnt of it.
#[derive(Default)]
struct Scan {
    /// Bytes read of the line.
    bytes: usize,
    /// The line as passed on (parts nested too deep replaced).
    out: Vec<u8>,
    /// Past the byte limit: nothing more is kept.
    over: bool,
    /// Past the byte limit, and its request has failed already.
    settled: bool,
    /// A part nested too deep was cut off.
    cut: bool,
    depth: usize,
    /// Inside a part being cut off: how deep inside it.
    skip: usize,
    in_string: bool,
    escaped: bool,
    /// At the top level, the next string is a key.
    expect_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    /// The raw text of the top-level `id`'s value, while it is read.
    reading_id: bool,
    id_text: Vec<u8>,
    /// The top-level `id`, once read.
    id: Option<RequestId>,
    /// The message has a top-level `result` or `error`: a response.
    response: bool,
}

impl Scan {
    fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        // Past the limit, with the request known (or failed): nothing to
        // learn from the rest.
        if self.over && (self.settled || self.id.is_some()) {
            return;
        }
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string && !self.escaped && !self.reading_key && !self.reading_id {
                // The inside of a string, in one piece.
                let rest = &chunk[i..];
                let plain = rest
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')
                    .unwrap_or(rest.len());
                self.emit(&rest[..plain]);
                i += plain;
                if i == chunk.len() {
                    break;
                }
            }
            self.byte(chunk[i]);
            i += 1;
        }
    }

    fn emit(&mut self, bytes: &[u8]) {
        if !self.over && self.skip == 0 {
            self.out.extend_from_slice(bytes);
        }
    }

    fn byte(&mut self, b: u8) {
        let top = self.depth == 1 && self.skip == 0;
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.key_read();
                }
            } else if self.reading_key && self.key.len() < 16 {
                self.key.push(b);
            }
            if self.reading_id && top {
                self.push_id(b);
            }
            self.emit(&[b]);
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if top && self.expect_key {
                    self.reading_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                if self.skip > 0 {
                    self.skip += 1;
                    return;
                }
                if self.depth >= MAX_MESSAGE_DEPTH {
                    self.emit(b"null");
                    self.skip = 1;
                    self.cut = true;
                    return;
                }
                if top {
                    // An id is never an object or an array.
                    self.reading_id = false;
                    self.id_text.clear();
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                }
            }
            b'}' | b']' => {
                if self.skip > 0 {
                    self.skip -= 1;
                    return;
                }
                if top {
                    self.value_read();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if top => {
                self.value_read();
                self.expect_key = true;
            }
            b':' if top => {
                self.expect_key = false;
                if self.key == b"id" {
                    self.reading_id = true;
                    self.id_text.clear();
                }
                self.emit(&[b]);
                return;
            }
            _ => {}
        }
        if self.reading_id && top {
            self.push_id(b);
        }
        self.emit(&[b]);
    }

    /// One more byte of the top-level `id`'s text; past [`MAX_ID`] the id
    /// is not read.
    fn push_id(&mut self, b: u8) {
        if self.id_text.len() <= MAX_ID {
            self.id_text.push(b);
        }
    }

    fn key_read(&mut self) {
        if self.key == b"result" || self.key == b"error" {
            self.response = true;
        }
    }

    /// A top-level value ended (at `,` or the closing `}`).
    fn value_read(&mut self) {
        if std::mem::take(&mut self.reading_id) {
            if self.id_text.len() <= MAX_ID {
                self.id = serde_json::from_slice(&self.id_text).ok();
            }
            self.id_text = Vec::new();
        }
    }
}
