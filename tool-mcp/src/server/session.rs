//! One MCP session over a stream of JSON-RPC messages, the server's own
//! protocol core for the `stdio` transport: each line read is decoded,
//! answered or dispatched here, and what the session sends goes onto the
//! transport's output, one whole line per message.
//!
//! What a line gets:
//!
//! - A line that is not JSON (bad syntax, invalid UTF-8, a lone surrogate
//!   escape, nesting deeper than the parser allows) gets a JSON-RPC
//!   `-32700` (parse error). Its `id` is the one a lenient scan of the raw
//!   line finds at the top level, else `null`.
//! - JSON that is not a JSON-RPC message gets `-32600` (invalid request),
//!   unless it looks like a notification (a `method`, no `id`), which is
//!   dropped as the protocol wants.
//! - A request whose `params` do not fit its method, such as `arguments`
//!   that are not an object, gets `-32602` (invalid params); a method the
//!   server does not serve, `-32601` (method not found).
//! - `initialize` sets the session up: the protocol version the client
//!   asked for when the server knows it (else the newest with
//!   `initialize`), the server's capabilities (`logging`, `tools` with
//!   `listChanged`), its name and version, its instructions.
//! - Before `initialize`, only `ping` is answered, and requests of the
//!   2026-07-28 revision, which has no `initialize`: they carry the
//!   protocol version and the client's capabilities in their `_meta` and
//!   are served one by one, their results marked `resultType: "complete"`.
//! - `tools/call` runs on a task of its own, so that calls overlap; its
//!   progress and log messages go out as notifications, and
//!   `notifications/cancelled` stops it (with no answer, as MCP asks).
//! - The tools' sampling and elicitation requests go to the client as
//!   requests of the server's (ids 0, 1, 2, ...), and the client's
//!   responses come back to the tool that asked.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tool_runtime::{
    CancellationToken, ClientFuture, ClientRequests, Elicitation, ElicitationRequest, LogLevel,
    SamplingRequest, SamplingResponse, ToolError, ToolUse,
};

use super::{CallError, Called, McpServer, Notify, peer};

/// JSON-RPC's "parse error".
pub(super) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "invalid request".
pub(super) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC's "invalid params".
const INVALID_PARAMS: i64 = -32602;
/// MCP's "unsupported protocol version".
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The protocol revisions a session can be set up with (`initialize`),
/// oldest first.
const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The revision without `initialize` nor sessions: each request says
/// which revision it speaks, and what the client can do, in its `_meta`.
const STATELESS_REVISION: &str = "2026-07-28";
/// Where a request of [`STATELESS_REVISION`] gives its revision.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// Where a request of [`STATELESS_REVISION`] gives the client's
/// capabilities.
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// How long calls still running when the input ends may take to finish and
/// be answered; then they are cancelled.
const DRAIN: Duration = Duration::from_secs(5);

/// The longest method name or id quoted back in a message.
const QUOTED: usize = 100;

/// One client's session.
pub(super) struct Session {
    server: McpServer,
    /// The transport's output (whole lines), while it is open.
    output: mpsc::WeakUnboundedSender<Vec<u8>>,
    /// The client's capabilities, once `initialize` set the session up.
    client: Mutex<Option<Map<String, Value>>>,
    /// The calls running, by their id's JSON text, to cancel on
    /// `notifications/cancelled`.
    running: Mutex<HashMap<String, CancellationToken>>,
    /// Told each time a call ends.
    ended: tokio::sync::Notify,
    /// The server's requests to the client awaiting an answer, by id.
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    next_request: AtomicU64,
    /// Whether the client is told of changes to the tools already.
    watching: AtomicBool,
    /// Cancelled when the session ends.
    closed: CancellationToken,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A `tools/call` request, read in one pass.
pub(super) struct Call {
    /// The request's id: a string or a number.
    pub(super) id: Value,
    pub(super) name: String,
    pub(super) arguments: Option<Map<String, Value>>,
    pub(super) meta: Option<Map<String, Value>>,
}

impl Call {
    /// The runtime's tool use: the request's id (a string as it is, a
    /// number as its digits), the tool's name, its arguments (none is an
    /// empty object).
    pub(super) fn tool_use(&mut self) -> ToolUse {
        let id = match &self.id {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        let arguments = self.arguments.take().unwrap_or_default();
        ToolUse::new(id, std::mem::take(&mut self.name), Value::Object(arguments))
    }

    /// The `progressToken` of the request's `_meta`, if it gave one.
    fn progress_token(&self) -> Option<Value> {
        self.meta
            .as_ref()?
            .get("progressToken")
            .filter(|token| token.is_string() || token.is_number())
            .cloned()
    }
}

/// A `tools/call` request read straight from its line, or `None` for any
/// other line, which then takes the general path (and its error replies).
///
/// A call, by far the most frequent message, is read in one pass into its
/// parts, without a [`Value`] of the whole message in between. Anything
/// unusual (parameters it does not know, `arguments` that are not an
/// object, an id that is neither a string nor a number) is left to the
/// general path.
pub(super) fn decode_call(line: &[u8]) -> Option<Call> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        id: Value,
        #[serde(borrow)]
        method: Cow<'a, str>,
        params: Params,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        name: String,
        #[serde(default)]
        arguments: Option<Map<String, Value>>,
        #[serde(rename = "_meta", default)]
        meta: Option<Map<String, Value>>,
    }
    let envelope: Envelope = serde_json::from_slice(line).ok()?;
    if envelope.jsonrpc != "2.0"
        || envelope.method != "tools/call"
        || !(envelope.id.is_string() || envelope.id.is_number())
    {
        return None;
    }
    Some(Call {
        id: envelope.id,
        name: envelope.params.name,
        arguments: envelope.params.arguments,
        meta: envelope.params.meta,
    })
}

/// A JSON-RPC response, serialized without building a [`Value`] of it.
#[derive(Serialize)]
struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: T,
}

/// A JSON-RPC error response.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

/// A line: `message` serialized, with its newline.
fn line(message: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).unwrap_or_else(|error| {
        // Only a map with non-string keys fails, which no message has.
        tracing::error!(%error, "a message could not be serialised");
        Vec::new()
    });
    bytes.push(b'\n');
    bytes
}

/// A JSON-RPC error response to request `id`, as a line.
pub(super) fn error_line(id: &Value, code: i64, message: &str, data: Option<Value>) -> Vec<u8> {
    line(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject {
            code,
            message,
            data,
        },
    })
}

/// The answer to call `id` as a line: its `CallToolResult`, marked
/// complete for a request of the stateless revision, or its error.
pub(super) fn answer_line(
    id: &Value,
    outcome: &Result<Called, CallError>,
    stateless: bool,
) -> Vec<u8> {
    match outcome {
        Ok(called) => {
            let mut result = called.to_json();
            if stateless && let Value::Object(fields) = &mut result {
                fields.insert("resultType".into(), "complete".into());
            }
            line(&Response {
                jsonrpc: "2.0",
                id,
                result,
            })
        }
        Err(error) => error_line(id, error.code(), error.message(), error.data()),
    }
}

/// `text` for a message: escaped, and cut short past [`QUOTED`] characters.
fn quoted(text: &str) -> String {
    let mut cut: String = text.chars().take(QUOTED).collect();
    if cut.len() < text.len() {
        cut.push_str("...");
    }
    format!("{cut:?}")
}

impl Session {
    /// A session of `server` writing onto `output`.
    pub(super) fn new(server: McpServer, output: mpsc::WeakUnboundedSender<Vec<u8>>) -> Arc<Self> {
        Arc::new(Self {
            server,
            output,
            client: Mutex::new(None),
            running: Mutex::new(HashMap::new()),
            ended: tokio::sync::Notify::new(),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(0),
            watching: AtomicBool::new(false),
            closed: CancellationToken::new(),
        })
    }

    /// Queues a line for the output; a closed output drops it (nobody
    /// reads any more).
    fn send(&self, line: Vec<u8>) {
        if let Some(output) = self.output.upgrade() {
            let _ = output.send(line);
        }
    }

    fn respond(&self, id: &Value, result: impl Serialize) {
        self.send(line(&Response {
            jsonrpc: "2.0",
            id,
            result,
        }));
    }

    fn fail(&self, id: &Value, code: i64, message: &str) {
        self.send(error_line(id, code, message, None));
    }

    /// Handles one line read (its newline and any carriage return or byte
    /// order mark already taken off).
    pub(super) fn handle_line(self: &Arc<Self>, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(call) = decode_call(line) {
            return self.on_call(call);
        }
        let message = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(message)) => message,
            Ok(_) => {
                return self.fail(
                    &Value::Null,
                    INVALID_REQUEST,
                    "invalid request: a JSON-RPC message is a JSON object",
                );
            }
            Err(error) => {
                return self.fail(
                    &scan_id(line),
                    PARSE_ERROR,
                    &format!("parse error: {error}"),
                );
            }
        };
        self.handle(message);
    }

    /// Handles one message.
    fn handle(self: &Arc<Self>, mut message: Map<String, Value>) {
        let id = message.remove("id");
        let method = message.remove("method");
        // An id an answer can carry back: a string or a number.
        let valid_id = id
            .as_ref()
            .filter(|id| id.is_string() || id.is_number())
            .cloned();
        let reply_to = valid_id.clone().unwrap_or(Value::Null);
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            if id.is_none() && method.is_some() {
                tracing::debug!("dropping a notification that is not JSON-RPC 2.0");
                return;
            }
            return self.fail(
                &reply_to,
                INVALID_REQUEST,
                "invalid request: `jsonrpc` must be \"2.0\"",
            );
        }
        let params = message.remove("params");
        match (method, id) {
            (Some(Value::String(method)), None) => self.on_notification(&method, params),
            (Some(Value::String(method)), Some(_)) => match valid_id {
                Some(id) => self.on_request(id, &method, params),
                None => self.fail(
                    &Value::Null,
                    INVALID_REQUEST,
                    "invalid request: `id` must be a string or a number",
                ),
            },
            (Some(_), None) => {
                tracing::debug!("dropping a notification whose method is not a string");
            }
            (Some(_), Some(_)) => self.fail(
                &reply_to,
                INVALID_REQUEST,
                "invalid request: `method` must be a string",
            ),
            (None, Some(id)) if message.contains_key("result") || message.contains_key("error") => {
                self.on_response(&id, message);
            }
            (None, _) => self.fail(
                &reply_to,
                INVALID_REQUEST,
                "invalid request: a JSON-RPC message is a request (`method` and `id`), a \
                 notification (`method`) or a response (`id` and `result` or `error`)",
            ),
        }
    }

    /// Whether `initialize` set the session up.
    fn initialized(&self) -> bool {
        lock(&self.client).is_some()
    }

    fn on_request(self: &Arc<Self>, id: Value, method: &str, params: Option<Value>) {
        let params = match params {
            None | Some(Value::Null) => None,
            Some(Value::Object(params)) => Some(params),
            Some(other) => {
                let message = format!(
                    "invalid params for {}: params must be an object, not {}",
                    quoted(method),
                    kind(&other)
                );
                return self.fail(&id, INVALID_PARAMS, &message);
            }
        };
        // Before `initialize`, a request must say its revision itself.
        let stateless = if method == "initialize" || method == "ping" || self.initialized() {
            false
        } else {
            match stateless_revision(params.as_ref()) {
                Ok(stateless) => stateless,
                Err((code, message, data)) => {
                    return self.send(error_line(&id, code, &message, data));
                }
            }
        };
        match method {
            "initialize" => self.initialize(&id, params),
            "ping" => self.respond(&id, Map::new()),
            "tools/list" => self.list_tools(&id, stateless),
            "tools/call" => match call_params(id, params) {
                Ok(call) => self.start_call(call, stateless),
                Err((id, message)) => self.fail(&id, INVALID_PARAMS, &message),
            },
            "logging/setLevel" => {
                let level = params
                    .and_then(|mut params| params.remove("level"))
                    .map(serde_json::from_value::<LogLevel>);
                match level {
                    Some(Ok(level)) => {
                        self.server.set_log_level(level);
                        self.respond(&id, Map::new());
                    }
                    _ => self.fail(
                        &id,
                        INVALID_PARAMS,
                        "invalid params for logging/setLevel: `level` must be one of debug, \
                         info, notice, warning, error, critical, alert, emergency",
                    ),
                }
            }
            _ => self.fail(
                &id,
                METHOD_NOT_FOUND,
                &format!("method not found: {}", quoted(method)),
            ),
        }
    }

    /// `initialize`: the session is set up with the client's capabilities.
    fn initialize(&self, id: &Value, params: Option<Map<String, Value>>) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Params {
            protocol_version: String,
            #[serde(default)]
            capabilities: Map<String, Value>,
            // Required by MCP; the server has no use for it.
            #[serde(rename = "clientInfo")]
            _client_info: ClientInfo,
        }
        #[derive(Deserialize)]
        struct ClientInfo {
            #[serde(rename = "name")]
            _name: String,
        }
        let params = serde_json::from_value::<Params>(Value::Object(params.unwrap_or_default()));
        let params = match params {
            Ok(params) => params,
            Err(error) => {
                let message = format!("invalid params for initialize: {error}");
                return self.fail(id, INVALID_PARAMS, &message);
            }
        };
        let version = REVISIONS
            .iter()
            .find(|known| **known == params.protocol_version)
            .unwrap_or(&REVISIONS[REVISIONS.len() - 1]);
        *lock(&self.client) = Some(params.capabilities);
        let implementation = &self.server.implementation;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": {"logging": {}, "tools": {"listChanged": true}},
            "serverInfo": {"name": implementation.name, "version": implementation.version},
        });
        if let Some(instructions) = &self.server.instructions {
            result["instructions"] = instructions.as_str().into();
        }
        self.respond(id, result);
    }

    /// `tools/list`: every tool offered, in one page.
    fn list_tools(&self, id: &Value, stateless: bool) {
        #[derive(Serialize)]
        struct Tools<'a> {
            tools: Vec<&'a Value>,
            #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
            result_type: Option<&'static str>,
        }
        let listed = self.server.listed();
        let tools = Tools {
            tools: listed.offered(&listed.json, &self.server.context),
            result_type: stateless.then_some("complete"),
        };
        self.respond(id, tools);
    }

    fn on_notification(self: &Arc<Self>, method: &str, params: Option<Value>) {
        match method {
            "notifications/initialized" => self.watch_tools(),
            "notifications/cancelled" => {
                let token = params
                    .as_ref()
                    .and_then(|params| params.get("requestId"))
                    .and_then(|id| lock(&self.running).get(&id.to_string()).cloned());
                if let Some(token) = token {
                    token.cancel();
                }
            }
            _ => {}
        }
    }

    /// A response of the client's to one of the server's requests.
    fn on_response(&self, id: &Value, mut message: Map<String, Value>) {
        let Some(waiting) = id.as_u64().and_then(|id| lock(&self.pending).remove(&id)) else {
            tracing::debug!(%id, "dropping a response to no request of the server's");
            return;
        };
        let answer = match message.remove("result") {
            Some(result) => Ok(result),
            None => {
                let error = message.remove("error").unwrap_or_default();
                let text = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned);
                Err(text)
            }
        };
        let _ = waiting.send(answer);
    }

    /// A `tools/call` read by [`decode_call`]: served unless it comes
    /// before `initialize` without saying its revision.
    fn on_call(self: &Arc<Self>, call: Call) {
        if self.initialized() {
            return self.start_call(call, false);
        }
        let params = call.meta.as_ref().map(|meta| {
            let mut params = Map::new();
            params.insert("_meta".into(), Value::Object(meta.clone()));
            params
        });
        match stateless_revision(params.as_ref()) {
            Ok(stateless) => self.start_call(call, stateless),
            Err((code, message, data)) => self.send(error_line(&call.id, code, &message, data)),
        }
    }

    /// Runs `call` on a task of its own and writes its answer; none for a
    /// call cancelled meanwhile, as MCP asks.
    fn start_call(self: &Arc<Self>, mut call: Call, stateless: bool) {
        let key = call.id.to_string();
        let cancelled = CancellationToken::new();
        lock(&self.running).insert(key.clone(), cancelled.clone());
        let session = Arc::clone(self);
        let span = super::call_span(&call.id, &call.name, call.meta.as_ref());
        let run = async move {
            let progress_token = call.progress_token();
            let tool_use = call.tool_use();
            let server = &session.server;
            // The stateless revision has no requests to the client.
            let context = if stateless {
                &server.context
            } else {
                let client = Arc::downgrade(&session);
                server.session_context(|| Arc::new(SessionClient(client)))
            };
            let outcome = server
                .run_call(
                    tool_use,
                    progress_token.as_ref(),
                    context,
                    &cancelled,
                    &*session,
                )
                .await;
            if !cancelled.is_cancelled() {
                session.send(answer_line(&call.id, &outcome, stateless));
            }
            lock(&session.running).remove(&key);
            session.ended.notify_waiters();
        };
        tokio::spawn(tracing::Instrument::instrument(run, span));
    }

    /// Tells the client of every change to the tools from now until the
    /// session ends (once `notifications/initialized` came).
    fn watch_tools(self: &Arc<Self>) {
        if self.watching.swap(true, Ordering::Relaxed) {
            return;
        }
        let mut changes = self.server.registry.subscribe();
        let session = Arc::downgrade(self);
        let closed = self.closed.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        let Some(session) = session.upgrade() else { break };
                        if changed.is_err() {
                            break;
                        }
                        session.send(line(&json!({
                            "jsonrpc": "2.0",
                            "method": "notifications/tools/list_changed",
                        })));
                    }
                    () = closed.cancelled() => break,
                }
            }
        });
    }

    /// Sends the client request `method` and waits for its answer: the
    /// result, or the error's message.
    async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        // Forgotten if the tool stops waiting.
        let _forget = Forget(self, id);
        self.send(line(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": method,
            "params": params,
        })));
        answered
            .await
            .map_err(|_| "the session ended before the client answered".to_owned())?
    }

    /// An error unless the client declared the capability `name`.
    fn require(&self, name: &str) -> Result<(), ToolError> {
        let declared = lock(&self.client)
            .as_ref()
            .is_some_and(|capabilities| capabilities.contains_key(name));
        if declared {
            Ok(())
        } else {
            Err(peer::unavailable(name))
        }
    }

    /// The input ended: calls still running get [`DRAIN`] to finish and be
    /// answered, then are cancelled; the server's requests to the client
    /// fail.
    pub(super) async fn close(&self) {
        let finished = async {
            loop {
                let ended = self.ended.notified();
                if lock(&self.running).is_empty() {
                    return;
                }
                ended.await;
            }
        };
        if tokio::time::timeout(DRAIN, finished).await.is_err() {
            for token in lock(&self.running).values() {
                token.cancel();
            }
        }
        self.closed.cancel();
        lock(&self.pending).clear();
    }
}

/// Takes request `.1` off the pending ones when dropped.
struct Forget<'a>(&'a Session, u64);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(&self.0.pending).remove(&self.1);
    }
}

impl Notify for Session {
    async fn progress(&self, token: &Value, progress: f64, message: String) {
        self.send(line(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": progress, "total": 1.0, "message": message},
        })));
    }

    async fn log(&self, level: LogLevel, logger: &str, message: String) {
        self.send(line(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": level.as_str(), "logger": logger, "data": message},
        })));
    }
}

/// The client of a session, answering its tools' sampling and elicitation
/// requests. Weak: the session's context holds it, and the session holds
/// the context.
struct SessionClient(Weak<Session>);

impl SessionClient {
    fn session(&self) -> Result<Arc<Session>, ToolError> {
        self.0
            .upgrade()
            .ok_or_else(|| ToolError::new("the MCP session has ended"))
    }
}

impl ClientRequests for SessionClient {
    fn sample(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let session = self.session()?;
            session.require("sampling")?;
            let result = session
                .request("sampling/createMessage", peer::sampling_params(&request))
                .await
                .map_err(|error| peer::failed("sampling", error))?;
            Ok(peer::sampling_response(&result))
        })
    }

    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>> {
        Box::pin(async move {
            let session = self.session()?;
            session.require("elicitation")?;
            peer::check_elicitation_schema(&request.requested_schema)?;
            let params = json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.requested_schema,
            });
            let result = session
                .request("elicitation/create", params)
                .await
                .map_err(|error| peer::failed("elicitation", error))?;
            Ok(peer::elicitation_answer(result))
        })
    }
}

/// The parameters of a `tools/call` the fast decoder left to the general
/// path, read or refused: the error's message, for `id`.
fn call_params(id: Value, params: Option<Map<String, Value>>) -> Result<Call, (Value, String)> {
    let Some(mut params) = params else {
        return Err((
            id,
            "invalid params for tools/call: params are missing".into(),
        ));
    };
    let name = match params.remove("name") {
        Some(Value::String(name)) => name,
        Some(other) => {
            let message = format!(
                "invalid params for tools/call: `name` must be a string, not {}",
                kind(&other)
            );
            return Err((id, message));
        }
        None => {
            return Err((
                id,
                "invalid params for tools/call: `name` is missing".into(),
            ));
        }
    };
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(arguments)) => Some(arguments),
        Some(other) => {
            let message = format!(
                "invalid params for tools/call: arguments must be an object, not {}",
                kind(&other)
            );
            return Err((id, message));
        }
    };
    let meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => Some(meta),
        _ => None,
    };
    Ok(Call {
        id,
        name,
        arguments,
        meta,
    })
}

/// Whether a request made before `initialize` may be served: it speaks the
/// revision without `initialize` (`Ok(true)`) or another the server knows
/// (`Ok(false)`), and says so, with the client's capabilities, in its
/// `_meta`; else the error to answer with.
fn stateless_revision(
    params: Option<&Map<String, Value>>,
) -> Result<bool, (i64, String, Option<Value>)> {
    let meta = params
        .and_then(|params| params.get("_meta"))
        .and_then(Value::as_object);
    let version = meta
        .and_then(|meta| meta.get(META_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta
        .and_then(|meta| meta.get(META_CAPABILITIES))
        .filter(|capabilities| capabilities.is_object());
    let mut missing = Vec::new();
    if version.is_none() {
        missing.push(META_VERSION);
    }
    if capabilities.is_none() {
        missing.push(META_CAPABILITIES);
    }
    let Some(version) = version.filter(|_| missing.is_empty()) else {
        let message = format!(
            "request _meta is missing or has malformed required fields: {}",
            missing.join(", ")
        );
        return Err((INVALID_PARAMS, message, None));
    };
    if version == STATELESS_REVISION {
        return Ok(true);
    }
    if REVISIONS.contains(&version) {
        return Ok(false);
    }
    let mut supported: Vec<&str> = REVISIONS.to_vec();
    supported.push(STATELESS_REVISION);
    Err((
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version".into(),
        Some(json!({"requested": quoted(version), "supported": supported})),
    ))
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

/// The `id` of a line that is not (or not entirely) JSON: a lenient scan
/// for an `"id"` key of the outermost object, whose value is a string or a
/// number; `null` when there is none, or it cannot be read.
pub(super) fn scan_id(line: &[u8]) -> Value {
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
