//! One MCP session over a stream of JSON-RPC messages: the server's own
//! protocol core. Each message read is decoded, answered or dispatched
//! here, and what the session sends goes to its [`Outbox`], one whole line
//! per message, naming the request it belongs to.
//!
//! What a message gets:
//!
//! - A line that is not JSON (bad syntax, invalid UTF-8, a lone surrogate
//!   escape, nesting deeper than the parser allows) gets a JSON-RPC
//!   `-32700` (parse error). Its `id` is the one a lenient scan of the raw
//!   line finds at the top level, else `null`.
//! - JSON that is not a JSON-RPC message gets `-32600` (invalid request),
//!   unless it looks like a notification (a `method`, no `id`), which is
//!   dropped as the protocol wants. So does a request whose id is already
//!   that of a request in flight.
//! - A request whose `params` do not fit its method, such as `arguments`
//!   that are not an object, gets `-32602` (invalid params); a method the
//!   server does not serve, `-32601` (method not found).
//! - A request whose `_meta` names the revision 2026-07-28 is served by it
//!   ([`revision`]): `server/discover`, `tools/list`,
//!   `tools/call` and `subscriptions/listen`, results marked with their
//!   `resultType` and the server's `_meta`; a tool's requests to the client
//!   become an `input_required` result ([`mrtr`](super::mrtr)).
//! - `initialize` sets up a session of an earlier revision for the
//!   requests without that `_meta`: the protocol version the client asked
//!   for when the server knows it (else the newest with `initialize`), the
//!   server's capabilities, its name and version, its instructions. Before
//!   it, only `ping` is answered, and requests that say their revision.
//! - With tasks on, a call may become a task, and `tasks/get`,
//!   `tasks/update` and `tasks/cancel` are served ([`tasks`](super::tasks)).
//! - `tools/call` runs on a task of its own, so that calls overlap (at most
//!   the server's limit at once); its progress and log messages go out as
//!   notifications, and `notifications/cancelled` stops it (with no answer,
//!   as MCP asks). A call of a sequential tool runs alone: after the calls
//!   that came before it, before those that come after ([`sequence`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tool_runtime::{ToolContext, ToolUse, context::CancellationToken, events::LogLevel};

use super::output::Outbox;
use super::revision::{self, Caching, Era, RequestMeta};
use super::wire::{
    self, Call, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, Id, METHOD_NOT_FOUND, PARSE_ERROR,
    RpcError, kind, quoted,
};
use super::{CallError, Called, McpServer, Notify};

mod content;
mod requests;
mod sequence;
mod tasks;

pub(super) use tasks::SessionTasks;

/// How long calls still running when the input ends may take to finish and
/// be answered; then they are cancelled.
const DRAIN: Duration = Duration::from_secs(5);

/// One client's session.
pub(super) struct Session<O: Outbox> {
    pub(super) server: McpServer,
    /// The transport's output.
    pub(super) output: O,
    /// The client's capabilities, once `initialize` set the session up.
    pub(super) client: Mutex<Option<Map<String, Value>>>,
    /// The requests in flight (calls and subscriptions).
    in_flight: Mutex<InFlight>,
    /// Told each time a request in flight ends.
    ended: tokio::sync::Notify,
    /// The server's requests to the client awaiting an answer, by id.
    pub(super) pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    pub(super) next_request: AtomicU64,
    /// Whether the client is told of changes to the tools already.
    watching: AtomicBool,
    /// The open subscriptions (`subscriptions/listen`), by their id's key.
    pub(super) listens: Mutex<HashMap<String, Id>>,
    /// Cancelled when the session ends.
    pub(super) closed: CancellationToken,
    /// The context of the session's calls, made on the first, when its
    /// output does not route by request (a byte stream): one client for
    /// every call.
    context: OnceLock<ToolContext>,
    /// How many tasks the session's calls run now, and whose is what its
    /// anonymous calls leave behind.
    pub(super) tasks: Arc<SessionTasks>,
    /// The revision `initialize` agreed on.
    pub(super) revision: Mutex<Option<&'static str>>,
    /// The line its calls take turns in: a sequential tool's call runs
    /// alone.
    order: sequence::Order,
    /// Its subscriptions to resources.
    pub(super) content: content::SessionContent,
}

/// The requests in flight.
#[derive(Default)]
struct InFlight {
    /// Each one's cancellation, by its id's key.
    by_key: HashMap<String, CancellationToken>,
    /// How many of them are calls.
    calls: usize,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The answer to call `id` of a session's revision as a line: its
/// `CallToolResult`, or its error.
pub(super) fn answer_line(id: &Id, outcome: &Result<Called, CallError>) -> Vec<u8> {
    match outcome {
        Ok(called) => wire::result_line(id, called.to_json()),
        Err(error) => wire::error_line(id, error.code(), error.message(), error.data()),
    }
}

impl<O: Outbox> Session<O> {
    /// A session of `server` writing to `output`; `owned`: what its calls
    /// without a caller leave behind is the session's own (else no one's:
    /// a session that is a request's own, and ends with it).
    pub(super) fn new(mut server: McpServer, output: O, owned: bool) -> Arc<Self> {
        let tasks = SessionTasks::new(owned, &mut server.context);
        Arc::new(Self {
            server,
            output,
            client: Mutex::new(None),
            in_flight: Mutex::new(InFlight::default()),
            ended: tokio::sync::Notify::new(),
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(0),
            watching: AtomicBool::new(false),
            listens: Mutex::new(HashMap::new()),
            closed: CancellationToken::new(),
            context: OnceLock::new(),
            tasks: Arc::new(tasks),
            revision: Mutex::new(None),
            order: sequence::Order::default(),
            content: Default::default(),
        })
    }

    /// The context the calls of request `id` start from: the transport's
    /// for it (over HTTP with a resource server, one holding the caller), or
    /// the server's; what they leave behind is their caller's, else the
    /// session's.
    pub(super) fn base_context(&self, id: &Id) -> ToolContext {
        match (self.output.context(id), &self.tasks.owner) {
            (Some(context), Some(owner)) if context.owner().is_none() => {
                context.with_owner(owner.clone())
            }
            (Some(context), _) => context,
            (None, _) => self.server.context.clone(),
        }
    }

    /// Sends a line belonging to `request` (none: the session's own).
    pub(super) async fn send(&self, line: Vec<u8>, request: Option<&Id>) {
        self.output.send(line, request).await;
    }

    /// Sends `line`, the answer to request `id`: its last message.
    pub(super) async fn answer(&self, line: Vec<u8>, id: &Id) {
        self.output.answer(line, id).await;
    }

    async fn respond(&self, id: &Id, result: impl Serialize) {
        self.answer(wire::result_line(id, result), id).await;
    }

    async fn fail(&self, id: &Id, code: i64, message: &str) {
        self.answer(wire::error_line(id, code, message, None), id)
            .await;
    }

    async fn refuse(&self, id: &Id, error: RpcError) {
        self.answer(error.line(id), id).await;
    }

    /// Handles one line read (its newline and any carriage return or byte
    /// order mark already taken off). Returns once what it answers at once
    /// is queued: while the output is full, the transport reads no more.
    pub(super) async fn handle_line(self: &Arc<Self>, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(call) = wire::decode_call(line) {
            return self.on_call(call).await;
        }
        let message = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(message)) => message,
            Ok(_) => {
                return self
                    .fail(
                        &Id::null(),
                        INVALID_REQUEST,
                        "invalid request: a JSON-RPC message is a JSON object",
                    )
                    .await;
            }
            Err(error) => {
                let message = format!("parse error: {error}");
                return self.fail(&wire::scan_id(line), PARSE_ERROR, &message).await;
            }
        };
        self.handle(message, line).await;
    }

    /// Handles one message, `line` its raw text.
    async fn handle(self: &Arc<Self>, mut message: Map<String, Value>, line: &[u8]) {
        let id = message.remove("id");
        let method = message.remove("method");
        // An id an answer can carry back: a string or a number, as written.
        let valid_id = id.as_ref().and_then(|id| Id::of(id, line, b"\"id\"", 1));
        let reply_to = valid_id.clone().unwrap_or_else(Id::null);
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            if id.is_none() && method.is_some() {
                tracing::debug!("dropping a notification that is not JSON-RPC 2.0");
                return;
            }
            return self
                .fail(
                    &reply_to,
                    INVALID_REQUEST,
                    "invalid request: `jsonrpc` must be \"2.0\"",
                )
                .await;
        }
        let params = message.remove("params");
        match (method, id) {
            (Some(Value::String(method)), None) => {
                self.on_notification(&method, params, line).await;
            }
            (Some(Value::String(method)), Some(_)) => match valid_id {
                Some(id) => self.on_request(id, &method, params).await,
                None => {
                    self.fail(
                        &Id::null(),
                        INVALID_REQUEST,
                        "invalid request: `id` must be a string or a number",
                    )
                    .await;
                }
            },
            (Some(_), None) => {
                tracing::debug!("dropping a notification whose method is not a string");
            }
            (Some(_), Some(_)) => {
                self.fail(
                    &reply_to,
                    INVALID_REQUEST,
                    "invalid request: `method` must be a string",
                )
                .await;
            }
            (None, Some(id)) if message.contains_key("result") || message.contains_key("error") => {
                self.on_response(&id, message);
            }
            (None, _) => {
                self.fail(
                    &reply_to,
                    INVALID_REQUEST,
                    "invalid request: a JSON-RPC message is a request (`method` and `id`), a \
                     notification (`method`) or a response (`id` and `result` or `error`)",
                )
                .await;
            }
        }
    }

    /// Whether `initialize` set the session up.
    fn initialized(&self) -> bool {
        lock(&self.client).is_some()
    }

    /// The era request `method` with `meta` is served in, or the error to
    /// answer with.
    fn era_of(&self, method: &str, meta: Option<&Map<String, Value>>) -> Result<Era, RpcError> {
        let session = !revision::names_stateless(meta)
            && (matches!(method, "initialize" | "ping") || self.initialized());
        revision::era(meta, session)
    }

    async fn on_request(self: &Arc<Self>, id: Id, method: &str, params: Option<Value>) {
        let params = match params {
            None | Some(Value::Null) => None,
            Some(Value::Object(params)) => Some(params),
            Some(other) => {
                let message = format!(
                    "invalid params for {}: params must be an object, not {}",
                    quoted(method),
                    kind(&other)
                );
                return self.fail(&id, INVALID_PARAMS, &message).await;
            }
        };
        match self.era_of(method, revision::meta_of(params.as_ref())) {
            Ok(Era::Session) => self.session_request(id, method, params).await,
            Ok(Era::Stateless(meta)) => self.stateless_request(id, method, params, meta).await,
            Err(error) => self.refuse(&id, error).await,
        }
    }

    /// A request of a revision with sessions.
    async fn session_request(
        self: &Arc<Self>,
        id: Id,
        method: &str,
        params: Option<Map<String, Value>>,
    ) {
        match method {
            "initialize" => self.initialize(&id, params).await,
            "ping" => self.respond(&id, Map::new()).await,
            "tools/list" => {
                let revision = super::session_revision(params.as_ref(), *lock(&self.revision));
                self.list_tools(&id, revision).await;
            }
            "tools/call" => match wire::call_params(id.clone(), params) {
                Ok(call) => self.start_call(call, Era::Session).await,
                Err(error) => self.refuse(&id, error).await,
            },
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                self.session_tasks_request(&id, method, params).await;
            }
            m if content::serves(m) => self.content_request(id, m, params, None).await,
            "logging/setLevel" => {
                let level = params
                    .and_then(|mut params| params.remove("level"))
                    .map(serde_json::from_value::<LogLevel>);
                match level {
                    Some(Ok(level)) => {
                        self.server.set_log_level(level);
                        self.respond(&id, Map::new()).await;
                    }
                    _ => {
                        self.fail(
                            &id,
                            INVALID_PARAMS,
                            "invalid params for logging/setLevel: `level` must be one of debug, \
                             info, notice, warning, error, critical, alert, emergency",
                        )
                        .await;
                    }
                }
            }
            _ => {
                let message = format!("method not found: {}", quoted(method));
                self.fail(&id, METHOD_NOT_FOUND, &message).await;
            }
        }
    }

    /// A request of the stateless revision.
    async fn stateless_request(
        self: &Arc<Self>,
        id: Id,
        method: &str,
        params: Option<Map<String, Value>>,
        meta: RequestMeta,
    ) {
        match method {
            "server/discover" => self.respond(&id, revision::discover(&self.server)).await,
            "tools/list" => {
                self.list_tools(&id, Some(revision::STATELESS_REVISION))
                    .await
            }
            "tools/call" => match wire::call_params(id.clone(), params) {
                Ok(call) => self.start_call(call, Era::Stateless(meta)).await,
                Err(error) => self.refuse(&id, error).await,
            },
            "subscriptions/listen" => self.listen(id, params).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                self.stateless_tasks_request(&id, method, params, &meta)
                    .await;
            }
            m if content::serves(m) => {
                self.content_request(id, m, params, Some(meta)).await;
            }
            _ => self.refuse(&id, revision::not_in_stateless(method)).await,
        }
    }

    /// `initialize`: the session is set up with the client's capabilities.
    async fn initialize(&self, id: &Id, params: Option<Map<String, Value>>) {
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
                return self.fail(id, INVALID_PARAMS, &message).await;
            }
        };
        let revisions = revision::REVISIONS;
        let version = revisions
            .iter()
            .find(|known| **known == params.protocol_version)
            .unwrap_or(&revisions[revisions.len() - 1]);
        *lock(&self.client) = Some(params.capabilities);
        *lock(&self.revision) = Some(*version);
        let implementation = &self.server.implementation;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": revision::capabilities(&self.server),
            "serverInfo": {"name": implementation.name, "version": implementation.version},
        });
        if let Some(instructions) = &self.server.instructions {
            result["instructions"] = instructions.as_str().into();
        }
        self.respond(id, result).await;
    }

    /// `tools/list` in `revision` (when known): every tool offered to the
    /// request's caller, in one page, in name order; for the stateless
    /// revision with its result type, caching hints and the server's
    /// `_meta`.
    async fn list_tools(&self, id: &Id, revision: Option<&str>) {
        let stateless = revision == Some(revision::STATELESS_REVISION);
        #[derive(Serialize)]
        struct Tools<'a> {
            tools: Vec<&'a Value>,
            #[serde(rename = "resultType", skip_serializing_if = "Option::is_none")]
            result_type: Option<&'static str>,
            #[serde(flatten, skip_serializing_if = "Option::is_none")]
            caching: Option<Caching>,
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<Map<String, Value>>,
        }
        let listed = self.server.listed();
        // The request's caller is offered only the tools it may call.
        let context = self.base_context(id);
        let tools = Tools {
            tools: listed.offered(
                listed.rendered_for(revision, self.server.tasks.is_some()),
                &context,
            ),
            result_type: stateless.then_some("complete"),
            caching: stateless.then(|| Caching::of(&self.server).for_list(&listed, &context)),
            meta: stateless.then(|| revision::result_meta(&self.server, None)),
        };
        self.respond(id, tools).await;
    }

    async fn on_notification(self: &Arc<Self>, method: &str, params: Option<Value>, line: &[u8]) {
        match method {
            "notifications/initialized" => {
                self.watch_tools();
                self.watch_content();
            }
            "notifications/cancelled" => {
                let id = params
                    .as_ref()
                    .and_then(|params| params.get("requestId"))
                    .and_then(|id| Id::of(id, line, b"\"requestId\"", 2));
                if let Some(id) = id {
                    self.cancel_in_flight(&id);
                }
            }
            _ => {}
        }
    }

    /// A `tools/call` read by [`wire::decode_call`] (by the session, or by
    /// a transport that read it already): served unless it comes before
    /// `initialize` without saying its revision.
    pub(super) async fn on_call(self: &Arc<Self>, call: Call) {
        match self.era_of("tools/call", call.meta.as_ref()) {
            Ok(era) => self.start_call(call, era).await,
            Err(error) => self.refuse(&call.id, error).await,
        }
    }

    /// Takes request `key` in flight, cancelled by `token`: refused when
    /// its id is that of another request in flight, or, for a call
    /// (`call`), when the session runs as many calls as the server allows.
    pub(super) fn admit(
        &self,
        key: &str,
        token: &CancellationToken,
        call: bool,
    ) -> Result<(), RpcError> {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.by_key.contains_key(key) {
            return Err(RpcError::new(
                INVALID_REQUEST,
                format!(
                    "invalid request: the id {} is that of a request still in flight; each \
                     request needs an id of its own",
                    wire::cut(key)
                ),
            ));
        }
        let limit = self.server.limits.max_calls;
        if call && in_flight.calls >= limit {
            return Err(RpcError::new(
                INTERNAL_ERROR,
                format!(
                    "server busy: this session already runs {limit} calls, the server's limit; \
                     send the call again once one has finished"
                ),
            )
            .with_data(json!({"maxConcurrentCalls": limit})));
        }
        in_flight.by_key.insert(key.to_owned(), token.clone());
        if call {
            in_flight.calls += 1;
        }
        Ok(())
    }

    /// Cancels request `id` if it is in flight.
    pub(super) fn cancel_in_flight(&self, id: &Id) {
        let token = lock(&self.in_flight).by_key.get(&*id.key()).cloned();
        if let Some(token) = token {
            token.cancel();
        }
    }

    /// Request `key` is no longer in flight.
    pub(super) fn finish(&self, key: &str, call: bool) {
        let mut in_flight = lock(&self.in_flight);
        if in_flight.by_key.remove(key).is_some() && call {
            in_flight.calls -= 1;
        }
        drop(in_flight);
        self.ended.notify_waiters();
    }

    /// Runs `call` of `era` where the transport runs calls (on a task of
    /// its own, on a byte stream) and writes its answer; none for a call
    /// cancelled meanwhile, as MCP asks.
    async fn start_call(self: &Arc<Self>, call: Call, era: Era) {
        let task = match self.task_start(&call, &era) {
            Ok(task) => task,
            Err(error) => return self.refuse(&call.id, error).await,
        };
        let key = call.id.key().into_owned();
        let cancelled = CancellationToken::new();
        if let Err(error) = self.admit(&key, &cancelled, true) {
            return self.refuse(&call.id, error).await;
        }
        let session = Arc::clone(self);
        let span = super::call_span(&call.id, &call.name, call.meta.as_ref());
        if let Some(task) = task {
            // Answered once the task is stored: the call runs on.
            let id = call.id.clone();
            let work = async move {
                let _finished = Finished {
                    session: &*session,
                    key: &key,
                };
                session.create_task(call, task).await;
            };
            return self
                .output
                .run(&id, tracing::Instrument::instrument(work, span));
        }
        // Its place in line is taken now, in the order the calls arrive.
        let sequential = self.server.registry.snapshot().is_sequential(&call.name);
        let place = self.order.enter(sequential);
        // Each era's work a future of its own: a session call's, which most
        // calls are, does not carry the larger state of the stateless
        // revision's rounds.
        match era {
            Era::Session => {
                let mut call = call;
                let progress_token = call.progress_token();
                let tool_use = call.tool_use();
                let id = call.id;
                let request = id.clone();
                let work = async move {
                    // No longer in flight when it ends, or is dropped
                    // unfinished.
                    let _finished = Finished {
                        session: &*session,
                        key: &key,
                    };
                    let Some(_turn) = place.turn(&cancelled).await else {
                        return;
                    };
                    session
                        .run_session_call(&id, tool_use, progress_token, &cancelled)
                        .await;
                };
                self.output
                    .run(&request, tracing::Instrument::instrument(work, span));
            }
            Era::Stateless(meta) => {
                let id = call.id.clone();
                let work = async move {
                    let _finished = Finished {
                        session: &*session,
                        key: &key,
                    };
                    let Some(_turn) = place.turn(&cancelled).await else {
                        return;
                    };
                    session.run_stateless_call(call, meta, &cancelled).await;
                };
                self.output
                    .run(&id, tracing::Instrument::instrument(work, span));
            }
        }
    }

    /// Runs call `id` of a session's revision, `tool_use` with the
    /// request's `progress_token`: the tools' requests to the client go to
    /// it as requests of the server's.
    async fn run_session_call(
        self: &Arc<Self>,
        id: &Id,
        tool_use: ToolUse,
        progress_token: Option<Value>,
        cancelled: &CancellationToken,
    ) {
        let server = &self.server;
        let context = &self.session_context(id);
        let notify = CallNotify {
            session: &**self,
            request: id,
            log_level: Some(server.log_level()),
        };
        let outcome = server
            .run_call(
                tool_use,
                progress_token.as_ref(),
                context,
                cancelled,
                &notify,
            )
            .await;
        if !cancelled.is_cancelled() {
            self.answer(answer_line(id, &outcome), id).await;
        }
    }

    /// The context request `id` of a session's revision runs in: its
    /// requests to the client go to it as the server's requests. Over a
    /// transport that routes by request, the request has a client of its
    /// own, whose requests belong to it (over streamable HTTP they go out
    /// on its response); else the session's serves.
    pub(super) fn session_context(self: &Arc<Self>, id: &Id) -> ToolContext {
        let client = |call, base: ToolContext| {
            let client = requests::SessionClient {
                session: Arc::downgrade(self),
                call,
            };
            base.with_client(Arc::new(super::peer::Client(client)))
        };
        if self.output.routes_by_request() {
            return client(Some(id.clone()), self.base_context(id));
        }
        self.context
            .get_or_init(|| client(None, self.server.context.clone()))
            .clone()
    }

    /// Tells the client of every change to the tools (of the registry, or
    /// of the app links that show in the list) from now until the session
    /// ends (once `notifications/initialized` came).
    fn watch_tools(self: &Arc<Self>) {
        if self.watching.swap(true, Ordering::Relaxed) {
            return;
        }
        let mut changes = ToolChanges::of(&self.server);
        let session = Arc::downgrade(self);
        let closed = self.closed.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        let Some(session) = session.upgrade() else { break };
                        if !changed {
                            break;
                        }
                        let line = wire::notification_line(
                            "notifications/tools/list_changed",
                            Map::new(),
                        );
                        session.send(line, None).await;
                    }
                    () = closed.cancelled() => break,
                }
            }
        });
    }

    /// The input ended: open subscriptions are closed with their result;
    /// calls still running get [`DRAIN`] to finish and be answered, then
    /// are cancelled; the server's requests to the client fail.
    pub(super) async fn close(&self) {
        self.close_subscriptions().await;
        let finished = async {
            loop {
                let ended = self.ended.notified();
                if lock(&self.in_flight).by_key.is_empty() {
                    return;
                }
                ended.await;
            }
        };
        if tokio::time::timeout(DRAIN, finished).await.is_err() {
            for token in lock(&self.in_flight).by_key.values() {
                token.cancel();
            }
        }
        self.closed.cancel();
        lock(&self.pending).clear();
    }
}

/// Takes call `key` out of the session's requests in flight when dropped.
struct Finished<'a, O: Outbox> {
    session: &'a Session<O>,
    key: &'a str,
}

impl<O: Outbox> Drop for Finished<'_, O> {
    fn drop(&mut self) {
        self.session.finish(self.key, true);
    }
}

/// Where one call's notifications go: the session's output, as messages
/// of the call's request.
pub(super) struct CallNotify<'a, O: Outbox> {
    pub(super) session: &'a Session<O>,
    pub(super) request: &'a Id,
    /// The least severe log message to send; none sends none.
    pub(super) log_level: Option<LogLevel>,
}

impl<O: Outbox> Notify for CallNotify<'_, O> {
    async fn progress(&self, token: &Value, progress: f64, message: String) {
        let params = json!({
            "progressToken": token, "progress": progress, "total": 1.0, "message": message,
        });
        let line = wire::notification_line("notifications/progress", params);
        self.session.send(line, Some(self.request)).await;
    }

    fn wants(&self, level: LogLevel) -> bool {
        self.log_level
            .is_some_and(|least| level as u8 >= least as u8)
    }

    async fn log(&self, level: LogLevel, logger: &str, message: String) {
        let params = json!({"level": level.as_str(), "logger": logger, "data": message});
        let line = wire::notification_line("notifications/message", params);
        self.session.send(line, Some(self.request)).await;
    }
}

/// The changes of what a server's tool list shows: its registry's tools,
/// and the [app links](crate::apps::AppLinks) merged into their entries.
pub(super) struct ToolChanges {
    registry: tokio::sync::watch::Receiver<u64>,
    links: tokio::sync::watch::Receiver<u64>,
}

impl ToolChanges {
    /// The changes of `server`'s tool list from now on.
    pub(super) fn of(server: &McpServer) -> Self {
        Self {
            registry: server.registry.subscribe(),
            links: server.app_links.changes(),
        }
    }

    /// Waits for the next change: `true`, or `false` when the registry is
    /// gone (the links are kept by the server, as the registry is).
    pub(super) async fn changed(&mut self) -> bool {
        tokio::select! {
            changed = self.registry.changed() => changed.is_ok(),
            changed = self.links.changed() => changed.is_ok(),
        }
    }
}
