//! A [`Registry`] served over the Model Context Protocol, with the official
//! Rust SDK ([`rmcp`]): any MCP client (Claude Desktop, an IDE, an agent
//! framework, the MCP inspector) can list and call the registry's tools.
//!
//! [`McpServer`] serves stdio ([`serve_stdio`](McpServer::serve_stdio)),
//! any byte stream pair ([`serve_io`](McpServer::serve_io)) and, with the
//! `http` feature (on by default), streamable HTTP
//! ([`serve_http`](McpServer::serve_http)). The command line of `tool-cli`
//! serves with `serve` and `serve --http`; the guide is `docs/mcp.md`.
//!
//! What the server does:
//!
//! - `tools/list` gives every tool the registry offers (those its
//!   [`enabled_when`](tool_runtime::RegistryBuilder::enabled_when)
//!   predicate allows in the server's context) in the MCP shape of
//!   [`providers::mcp::tool`]: name, title, description, input schema,
//!   output schema and annotations.
//! - `tools/call` runs the call through [`Registry::stream`], so validation,
//!   time limits, approval and error shaping all apply, and answers with the
//!   `CallToolResult` of [`providers::mcp::call_tool_result`]: `content`,
//!   `structuredContent` for tools with an output schema, and `isError`.
//!   Invalid arguments and failing tools are error results
//!   (`isError: true`) the model can read and correct; a tool the registry
//!   does not have (or does not allow) is a JSON-RPC error `-32602`, as the
//!   specification says.
//! - Progress the tool reports ([`Progress`](tool_runtime::Progress))
//!   reaches the client as `notifications/progress` when the request
//!   carried a `progressToken` in its `_meta`: `progress` is the fraction
//!   done, `total` is `1`, `message` the tool's message. MCP requires
//!   progress to increase, so a report that does not move forward is not
//!   sent.
//! - A `notifications/cancelled` from the client cancels the call: the tool
//!   stops at its next await point (or sees
//!   [`ToolContext::is_cancelled`]), and no response is sent, as the
//!   specification asks.
//! - The tools may change while the server runs: give it a
//!   [`LiveRegistry`] and change that. The server advertises
//!   `tools.listChanged` and sends every client
//!   `notifications/tools/list_changed` on each change; calls already
//!   running finish with the tool they started with.
//!
//! ```no_run
//! use tool_mcp::server::McpServer;
//! use tool_runtime::Registry;
//!
//! # async fn run() -> std::io::Result<()> {
//! // Every linked tool, on stdin and stdout.
//! McpServer::new(Registry::global().clone())
//!     .with_implementation("my-tools", "1.0.0")
//!     .serve_stdio()
//!     .await
//! # }
//! ```

#[cfg(feature = "http")]
mod http;
mod logging;
mod peer;
mod stdio;

use std::io;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;

use futures_util::StreamExt;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tool_runtime::providers;
use tool_runtime::{
    CancellationToken, LiveRegistry, LogLevel, Registry, ToolContext, ToolErrorKind, ToolEvent,
    ToolResult, ToolSpec, ToolUse,
};

#[cfg(feature = "http")]
pub use http::{HttpOptions, MCP_PATH};

/// A [`Registry`] as an MCP server: an `rmcp` [`ServerHandler`](rmcp::ServerHandler)
/// answering `tools/list` and `tools/call` (see the [module](self) for what
/// each does).
///
/// Cheap to clone: clones share the registry and the rendered tool list.
/// Each clone serves one session (the HTTP transport clones the server for
/// each), so the logging level a client sets is the clone's own.
pub struct McpServer {
    registry: LiveRegistry,
    /// Every tool of the registry in the `tools/list` shape, in name order,
    /// with the registry it was rendered from.
    tools: Arc<ArcSwap<Listed>>,
    implementation: Implementation,
    instructions: Option<String>,
    context: ToolContext,
    /// The least severe level of log message this session's client wants
    /// (`logging/setLevel`), as a `LogLevel`'s position; every level until
    /// the client sets one.
    log_level: Arc<AtomicU8>,
    /// `context` with this session's client answering the tools' sampling
    /// and elicitation requests; made on the session's first call.
    session_context: Arc<OnceLock<ToolContext>>,
    /// Over streamable HTTP with sessions: where each session registers,
    /// so the HTTP transport can run its calls itself.
    #[cfg(feature = "http")]
    http_sessions: Option<Arc<http::Sessions>>,
}

impl Clone for McpServer {
    /// A server for a session of its own: the registry, the tool list and
    /// the settings shared, the log level and the calls' context new.
    fn clone(&self) -> Self {
        let mut server = self.same_session();
        server.log_level = Arc::new(AtomicU8::new(LogLevel::Debug as u8));
        server.session_context = Arc::new(OnceLock::new());
        server
    }
}

impl McpServer {
    /// A server for `registry`'s tools. It introduces itself as
    /// `tool-mcp` with this crate's version until
    /// [`with_implementation`](Self::with_implementation) says otherwise.
    ///
    /// `registry` is a [`Registry`], whose tools stay as they are, or a
    /// [`LiveRegistry`], whose tools may change while the server runs.
    ///
    /// The tool list is rendered once for each state of the registry. A
    /// hand-written [`Tool`](tool_runtime::Tool) whose input schema is not a
    /// JSON object (MCP requires one) is listed with an empty object schema,
    /// and a warning is logged.
    pub fn new(registry: impl Into<LiveRegistry>) -> Self {
        let registry = registry.into();
        let listed = Listed::of(registry.snapshot());
        Self {
            registry,
            tools: Arc::new(ArcSwap::from_pointee(listed)),
            implementation: Implementation::new("tool-mcp", env!("CARGO_PKG_VERSION")),
            instructions: None,
            context: ToolContext::new(),
            log_level: Arc::new(AtomicU8::new(LogLevel::Debug as u8)),
            session_context: Arc::new(OnceLock::new()),
            #[cfg(feature = "http")]
            http_sessions: None,
        }
    }

    /// The name and version the server gives clients in its `initialize`
    /// answer (`serverInfo`).
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        self.implementation = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent in the `initialize` answer.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The context every call starts from: invocation state, extensions,
    /// application state, an approver. Its cancellation token stops every
    /// call when cancelled. Each call gets a child context of its own.
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.context = context;
        self
    }

    /// The registry served, as it is now.
    pub fn registry(&self) -> Arc<Registry> {
        self.registry.snapshot()
    }

    /// The registry served, to change its tools while the server runs.
    pub fn live_registry(&self) -> &LiveRegistry {
        &self.registry
    }

    /// The tool list of the registry as it is now, rendered once per state.
    fn listed(&self) -> Arc<Listed> {
        let current = self.registry.snapshot();
        let listed = self.tools.load_full();
        if Arc::ptr_eq(&listed.registry, &current) {
            return listed;
        }
        let listed = Arc::new(Listed::of(current));
        self.tools.store(Arc::clone(&listed));
        listed
    }

    /// The tools `tools/list` gives, in name order.
    pub fn tools(&self) -> Vec<Tool> {
        let listed = self.listed();
        let enabled: std::collections::HashSet<&str> = listed
            .registry
            .specs_for(&self.context)
            .map(|spec| &*spec.name)
            .collect();
        listed
            .tools
            .iter()
            .filter(|tool| enabled.contains(tool.name.as_ref()))
            .cloned()
            .collect()
    }

    /// Serves one client on this process's stdin and stdout (the `stdio`
    /// transport: one JSON-RPC message per line) until the client closes
    /// stdin. Nothing else may write to stdout meanwhile.
    pub async fn serve_stdio(self) -> io::Result<()> {
        stdio::serve_stdio(self).await
    }

    /// Serves one client over a byte stream pair (newline-delimited
    /// JSON-RPC, as the `stdio` transport) until the reader ends.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        stdio::serve(self, reader, writer).await
    }

    /// Serves MCP clients over streamable HTTP on `listener`, at the path
    /// [`MCP_PATH`] (`/mcp`; other paths get 404), until `shutdown` is
    /// cancelled. Needs the `http` feature (on by default).
    ///
    /// Requests must name a loopback host (`localhost`, `127.0.0.1` or
    /// `[::1]`) in their `Host` header, which guards a local server
    /// against DNS rebinding; bind the listener to a loopback address.
    /// Each client gets a session (`Mcp-Session-Id`); to serve without
    /// sessions, behind a load balancer, see
    /// [`serve_http_with`](Self::serve_http_with).
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        shutdown: tool_runtime::CancellationToken,
    ) -> io::Result<()> {
        self.serve_http_with(listener, HttpOptions::default(), shutdown)
            .await
    }

    /// Serves MCP clients over streamable HTTP as
    /// [`serve_http`](Self::serve_http) does, with `options`: with
    /// [`HttpOptions::stateless`], no sessions, so that several instances
    /// of the server can answer one client's requests in turn.
    #[cfg(feature = "http")]
    pub async fn serve_http_with(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        shutdown: tool_runtime::CancellationToken,
    ) -> io::Result<()> {
        http::serve(self, listener, options, shutdown).await
    }

    /// The `CallToolResult` for one `tools/call` rmcp hands over, or the
    /// JSON-RPC error for a tool the registry does not have.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let tool_use = tool_use(&context.id, request);
        let progress_token = context.meta.get_progress_token();
        let notify = PeerNotify(&context.peer);
        self.run_call(
            tool_use,
            progress_token,
            &context.peer,
            &context.ct,
            &notify,
        )
        .await
    }

    /// A clone serving the same session: the log level its client sets and
    /// the context its calls get are this one's (plain clones get their
    /// own, for a session of their own).
    pub(super) fn same_session(&self) -> Self {
        Self {
            registry: self.registry.clone(),
            tools: Arc::clone(&self.tools),
            implementation: self.implementation.clone(),
            instructions: self.instructions.clone(),
            context: self.context.clone(),
            log_level: Arc::clone(&self.log_level),
            session_context: Arc::clone(&self.session_context),
            #[cfg(feature = "http")]
            http_sessions: self.http_sessions.clone(),
        }
    }

    /// Runs one call of this session and answers it: what the tool reports
    /// goes out through `notify` (progress when the request gave a
    /// `progress_token`, log messages at or above the session's level), and
    /// `cancelled` stops the tool. `peer` is the session's client, which
    /// answers the tool's sampling and elicitation requests.
    pub(super) async fn run_call(
        &self,
        tool_use: ToolUse,
        progress_token: Option<ProgressToken>,
        peer: &Peer<RoleServer>,
        cancelled: &CancellationToken,
        notify: &impl Notify,
    ) -> Result<CallToolResult, ErrorData> {
        // The registry as it is when the call starts: the call and its
        // rendering use the same tools, whatever changes meanwhile.
        let registry = self.registry.snapshot();
        let call_context = self.session_context.get_or_init(|| {
            let client = peer::PeerClient { peer: peer.clone() };
            self.context.clone().with_client(Arc::new(client))
        });
        let name = tool_use.name.clone();
        let mut events = registry.stream(tool_use, call_context);
        let mut last_progress = f64::NEG_INFINITY;
        let mut stopping = false;
        let result = loop {
            let event = tokio::select! {
                event = events.next() => event,
                () = cancelled.cancelled(), if !stopping => {
                    // The client gave up on the request: stop the tool. The
                    // stream still ends with a (cancelled) result, which is
                    // not sent.
                    stopping = true;
                    events.cancel();
                    continue;
                }
            };
            match event {
                Some(ToolEvent::Progress { progress, message }) => {
                    let Some(token) = &progress_token else {
                        continue;
                    };
                    if progress <= last_progress {
                        continue;
                    }
                    last_progress = progress;
                    let notification = ProgressNotificationParam::new(token.clone(), progress)
                        .with_total(1.0)
                        .with_message(message);
                    notify.progress(notification).await;
                }
                Some(ToolEvent::Log { level, message }) => {
                    if (level as u8) >= self.log_level.load(Ordering::Relaxed) {
                        notify.log(level, &name, message).await;
                    }
                }
                Some(ToolEvent::Result(result)) => break result,
                Some(_) => {}
                None => {
                    return Err(ErrorData::internal_error(
                        format!("the call to {name} ended without a result"),
                        None,
                    ));
                }
            }
        };
        // The spec by name or alias: `structuredContent` depends on it.
        let spec = registry.resolve(&name).map(|tool| tool.spec());
        // Not found by the registry: a protocol error (a tool's own errors,
        // whatever their kind, are results).
        if spec.is_none()
            && matches!(
                result.error_kind,
                Some(ToolErrorKind::UnknownTool | ToolErrorKind::NotAllowed)
            )
        {
            let data = serde_json::json!({"tool": name});
            return Err(ErrorData::invalid_params(result.text_content(), Some(data)));
        }
        Ok(call_tool_result(&result, spec))
    }
}

/// The runtime's tool use for call `id` of `tools/call`: the call's id as
/// the tool use's, its arguments (none is an empty object).
pub(super) fn tool_use(id: &rmcp::model::RequestId, params: CallToolRequestParams) -> ToolUse {
    let input = Value::Object(params.arguments.unwrap_or_default());
    ToolUse::new(id.to_string(), params.name, input)
}

/// The JSON-RPC answer to call `id` of a session set up with
/// `initialize`, as rmcp would send it: such a session speaks a revision
/// before 2026-07-28, whose results have no `resultType`.
pub(super) fn answer(
    id: rmcp::model::RequestId,
    outcome: Result<CallToolResult, ErrorData>,
) -> rmcp::model::ServerJsonRpcMessage {
    use rmcp::model::{ServerJsonRpcMessage, ServerResult};
    match outcome {
        Ok(result) => {
            let mut result = ServerResult::from(CallToolResponse::from(result));
            result.strip_result_type_for_legacy_peer();
            result.strip_non_object_output_for_legacy_peer();
            ServerJsonRpcMessage::response(result, id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    }
}

/// Where a call's notifications go: through rmcp's peer, or straight onto
/// a transport's output.
pub(super) trait Notify: Sync {
    /// Sends a progress notification.
    fn progress(&self, params: ProgressNotificationParam) -> impl Future<Output = ()> + Send;
    /// Sends a log message of tool `logger`.
    fn log(
        &self,
        level: LogLevel,
        logger: &str,
        message: String,
    ) -> impl Future<Output = ()> + Send;
}

/// Notifications through rmcp's peer of the session.
pub(super) struct PeerNotify<'a>(pub(super) &'a Peer<RoleServer>);

impl Notify for PeerNotify<'_> {
    async fn progress(&self, params: ProgressNotificationParam) {
        if let Err(error) = self.0.notify_progress(params).await {
            tracing::debug!(%error, "a progress notification could not be sent");
        }
    }

    async fn log(&self, level: LogLevel, logger: &str, message: String) {
        logging::send(self.0, level, logger, message).await;
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("implementation", &self.implementation.name)
            .field("tools", &self.registry)
            .finish()
    }
}

/// A registry's tools in the `tools/list` shape.
struct Listed {
    registry: Arc<Registry>,
    tools: Arc<[Tool]>,
}

impl Listed {
    fn of(registry: Arc<Registry>) -> Self {
        let tools: Vec<Tool> = registry.specs().map(to_mcp_tool).collect();
        Listed {
            registry,
            tools: tools.into(),
        }
    }
}

/// How often a client's change watcher checks whether the client is gone,
/// when no change comes.
const WATCH_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

/// One `tools/list` entry, the [`providers::mcp::tool`] shape as rmcp's
/// type, made from the spec directly (not through JSON: the server then
/// links no deserializer for it).
fn to_mcp_tool(spec: &ToolSpec) -> Tool {
    let input_schema = match spec.input_schema() {
        Value::Object(schema) => schema.clone(),
        _ => {
            // Only a hand-written tool with a non-object schema gets here.
            tracing::warn!(
                tool = %spec.name,
                "listing a tool with an empty input schema: its input schema is not an object"
            );
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema
        }
    };
    let mut tool = Tool::new(
        spec.name.to_string(),
        spec.description.to_string(),
        Arc::new(input_schema),
    );
    if let Some(Value::Object(schema)) = providers::mcp::output_schema(spec) {
        tool = tool.with_raw_output_schema(Arc::new(schema));
    }
    let hints = &spec.annotations;
    if spec.title.is_some()
        || hints.read_only.is_some()
        || hints.destructive.is_some()
        || hints.idempotent.is_some()
        || hints.open_world.is_some()
    {
        let mut annotations = ToolAnnotations::new();
        annotations.title = spec.title.as_deref().map(str::to_owned);
        annotations.read_only_hint = hints.read_only;
        annotations.destructive_hint = hints.destructive;
        annotations.idempotent_hint = hints.idempotent;
        annotations.open_world_hint = hints.open_world;
        tool = tool.with_annotations(annotations);
    }
    if let Some(title) = &spec.title {
        tool = tool.with_title(title.to_string());
    }
    tool
}

/// The [`providers::mcp::call_tool_result`] shape as rmcp's type, made
/// directly.
fn call_tool_result(result: &ToolResult, spec: Option<&ToolSpec>) -> CallToolResult {
    let content = result.content.iter().map(crate::content::to_mcp).collect();
    let mut answer = if result.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    answer.structured_content = providers::mcp::structured_content(result, spec);
    answer
}

impl rmcp::ServerHandler for McpServer {
    #[allow(deprecated)] // `enable_logging`: see the `logging` module
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let config = ServerConfig::new(capabilities).with_server_info(self.implementation.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let listed = self.listed();
        let tool = listed.registry.resolve(name)?;
        let name = &*tool.spec().name;
        listed.tools.iter().find(|tool| tool.name == name).cloned()
    }

    #[allow(deprecated)] // see the `logging` module
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.store(
            logging::runtime_level(request.level) as u8,
            Ordering::Relaxed,
        );
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Over HTTP, the transport may now run this session's calls.
        #[cfg(feature = "http")]
        let registered = self.http_sessions.as_ref().and_then(|sessions| {
            sessions.register(&context.extensions, self.same_session(), &context.peer)
        });
        // Tell this client of every change to the tools, until it is gone.
        let mut changes = self.registry.subscribe();
        let peer = context.peer;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                    () = tokio::time::sleep(WATCH_IDLE) => {
                        if peer.is_transport_closed() {
                            break;
                        }
                    }
                }
            }
            #[cfg(feature = "http")]
            if let Some(registered) = registered {
                registered.remove();
            }
        });
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context)
            .await
            .map(CallToolResponse::from)
    }
}
