//! A [`Registry`] served over the Model Context Protocol: any MCP client
//! (Claude Desktop, an IDE, an agent framework, the MCP inspector) can list
//! and call the registry's tools.
//!
//! [`McpServer`] serves stdio ([`serve_stdio`](McpServer::serve_stdio)),
//! any byte stream pair ([`serve_io`](McpServer::serve_io)) and, with the
//! `http` feature (on by default), streamable HTTP
//! ([`serve_http`](McpServer::serve_http)), all on one protocol core: a
//! session decodes, negotiates the revision, dispatches and shapes the
//! answers, and the transport only routes what it sends (each request's
//! messages to the POST that carried it, over HTTP). The command line of
//! `tool-cli` serves with `serve` and `serve --http`; the guide is
//! `docs/mcp.md`.
//!
//! What the server does:
//!
//! - `tools/list` gives every tool the registry offers (those its
//!   [`enabled_when`](tool_runtime::RegistryBuilder::enabled_when)
//!   predicate allows in the server's context, less those whose
//!   [scopes](tool_runtime::ToolSpec::scopes) the request's caller lacks)
//!   in the MCP shape of
//!   [`providers::mcp::tool`]: name, title, description, input schema,
//!   output schema and annotations; in revision 2025-11-25, on a server
//!   that serves tasks, `execution.taskSupport` on the tools whose calls
//!   may run as tasks.
//! - `tools/call` runs the call through [`Registry::stream`], so validation,
//!   time limits, approval and error shaping all apply, and answers with the
//!   `CallToolResult` of [`providers::mcp::call_tool_result`]: `content`,
//!   `structuredContent` for tools with an output schema, and `isError`.
//!   Invalid arguments and failing tools are error results
//!   (`isError: true`) the model can read and correct; a tool the registry
//!   does not have (or does not allow) is a JSON-RPC error `-32602`, as the
//!   specification says. A caller that lacks a scope of the tool gets an
//!   error result (`insufficient_scope`); over HTTP with a resource server
//!   the request is refused `403` before that, for the client to step up.
//! - Progress the tool reports ([`Progress`](tool_runtime::events::Progress))
//!   reaches the client as `notifications/progress` when the request
//!   carried a `progressToken` in its `_meta`: `progress` is the fraction
//!   done, `total` is `1`, `message` the tool's message. MCP requires
//!   progress to increase, so a report that does not move forward is not
//!   sent.
//! - A `notifications/cancelled` from the client cancels the call: the tool
//!   stops at its next await point (or sees
//!   [`ToolContext::is_cancelled`]), and no response is sent, as the
//!   specification asks.
//! - Both eras of the protocol are served, request by request: the
//!   revisions with `initialize` and sessions (2024-11-05 to 2025-11-25),
//!   and the stateless revision 2026-07-28 (`server/discover`, each
//!   request's `_meta`, `resultType` on every result,
//!   `subscriptions/listen`), where a tool's requests to the client come
//!   back as an `input_required` result and the client's retry runs the
//!   tool again with the answers (`docs/mcp.md` states the contract).
//! - MCP's tasks extension, with [`with_tasks`](McpServer::with_tasks): a
//!   call of a tool that allows tasks ([`TaskSupport`](tool_runtime::spec::TaskSupport)),
//!   from a client that declares the extension, is answered at once with
//!   its task, read with `tasks/get`, given input with `tasks/update` and
//!   cancelled with `tasks/cancel` (`docs/mcp.md`, "Tasks").
//! - Limits keep a session bounded: the calls it runs at once
//!   ([`with_max_concurrent_calls`](McpServer::with_max_concurrent_calls)),
//!   the bytes waiting to be written on a byte stream
//!   ([`with_output_buffer`](McpServer::with_output_buffer)).
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
mod listing;
mod mrtr;
#[cfg(feature = "otel")]
mod otel;
mod output;
mod peer;
mod revision;
mod session;
mod state;
mod stdio;
mod subscriptions;
mod tasks;
mod wire;

use std::io;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use arc_swap::ArcSwap;

use futures_util::StreamExt;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tool_runtime::providers;
use tool_runtime::{
    Registry, ToolContext, ToolEvent, ToolResult, ToolSpec, ToolUse, context::CancellationToken,
    events::LogLevel, registry::LiveRegistry, spec::ToolErrorKind,
};

use listing::Listed;

#[cfg(feature = "http")]
pub use http::{HttpOptions, MCP_PATH};

/// A [`Registry`] as an MCP server, answering `tools/list` and
/// `tools/call` (see the [module](self) for what each does).
///
/// Cheap to clone: clones share the registry and the rendered tool list.
/// Each clone serves one session (the HTTP transport clones the server for
/// each), so the logging level a client sets is the clone's own.
pub struct McpServer {
    registry: LiveRegistry,
    /// Every tool of the registry in the `tools/list` shape, in name order,
    /// with the registry it was rendered from.
    tools: Arc<ArcSwap<Listed>>,
    /// The name and version given in the `initialize` answer.
    implementation: Implementation,
    instructions: Option<String>,
    context: ToolContext,
    /// The least severe level of log message this session's client wants
    /// (`logging/setLevel`), as a `LogLevel`'s position; every level until
    /// the client sets one.
    log_level: Arc<AtomicU8>,
    /// The server's limits and lifetimes.
    limits: Limits,
    /// The key `requestState`s are sealed under: the program's, or one
    /// drawn when first needed.
    state_key: Arc<OnceLock<state::StateKey>>,
    /// Whether answers given without a `requestState` are taken
    /// ([`with_unsolicited_answers`](Self::with_unsolicited_answers)).
    unsolicited_answers: bool,
    /// The tasks of MCP's tasks extension, when the server serves it.
    tasks: Option<tool_tasks::Tasks>,
    /// How many tasks each caller's calls run now, over every clone.
    caller_tasks: Arc<tasks::CallerTasks>,
    /// The resources served, if any.
    resources: Option<crate::resources::Resources>,
    /// The prompts served, if any.
    prompts: Option<crate::prompts::Prompts>,
    /// The tools that have an app's view.
    app_links: crate::apps::AppLinks,
}

/// A server's name and version (`serverInfo`).
#[derive(Debug, Clone)]
struct Implementation {
    name: String,
    version: String,
}

/// The server's limits and lifetimes, each a setting of [`McpServer`].
#[derive(Debug, Clone)]
struct Limits {
    /// The most calls a session runs at once.
    max_calls: usize,
    /// The most tasks a session's calls run at once.
    max_session_tasks: usize,
    /// The most bytes of messages a byte stream's output queue holds.
    output_buffer: usize,
    /// How long a `tools/list` (and `server/discover`) result of the
    /// stateless revision may be cached (`ttlMs`).
    list_ttl: Duration,
    /// How long a `requestState` is accepted.
    state_ttl: Duration,
    /// The most resources a session subscribes to.
    max_subscriptions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_calls: McpServer::DEFAULT_MAX_CONCURRENT_CALLS,
            max_session_tasks: McpServer::DEFAULT_MAX_TASKS_PER_SESSION,
            output_buffer: McpServer::DEFAULT_OUTPUT_BUFFER,
            list_ttl: McpServer::DEFAULT_LIST_TTL,
            state_ttl: McpServer::DEFAULT_REQUEST_STATE_TTL,
            max_subscriptions: McpServer::DEFAULT_MAX_SUBSCRIPTIONS,
        }
    }
}

impl Clone for McpServer {
    /// A server for a session of its own: the registry, the tool list and
    /// the settings shared, the log level new.
    fn clone(&self) -> Self {
        Self {
            registry: self.registry.clone(),
            tools: Arc::clone(&self.tools),
            implementation: self.implementation.clone(),
            instructions: self.instructions.clone(),
            context: self.context.clone(),
            log_level: Arc::new(AtomicU8::new(LogLevel::Debug as u8)),
            limits: self.limits.clone(),
            state_key: Arc::clone(&self.state_key),
            unsolicited_answers: self.unsolicited_answers,
            tasks: self.tasks.clone(),
            caller_tasks: Arc::clone(&self.caller_tasks),
            resources: self.resources.clone(),
            prompts: self.prompts.clone(),
            app_links: self.app_links.clone(),
        }
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
    /// and a warning is logged. A tool whose header parameters
    /// (`x-mcp-header`) break MCP's rules (see [`crate::headers`]) is not
    /// served: it is left out of `tools/list`, its calls are answered as
    /// those of an unknown tool, with why, and a warning is logged.
    pub fn new(registry: impl Into<LiveRegistry>) -> Self {
        let registry = registry.into();
        // Rendered at the first listing, when the app links and the
        // resources their views are among are known.
        let listed = Listed::pending(registry.snapshot());
        Self {
            registry,
            tools: Arc::new(ArcSwap::from_pointee(listed)),
            implementation: Implementation {
                name: "tool-mcp".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            instructions: None,
            context: ToolContext::new(),
            log_level: Arc::new(AtomicU8::new(LogLevel::Debug as u8)),
            limits: Limits::default(),
            state_key: Arc::new(OnceLock::new()),
            unsolicited_answers: false,
            tasks: None,
            caller_tasks: Arc::default(),
            resources: None,
            prompts: None,
            app_links: crate::apps::AppLinks::global().clone(),
        }
    }

    /// The most calls one session runs at once unless
    /// [`with_max_concurrent_calls`](Self::with_max_concurrent_calls) says
    /// otherwise.
    pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 64;

    /// The most tasks the calls of one session run at once unless
    /// [`with_max_tasks_per_session`](Self::with_max_tasks_per_session) says
    /// otherwise.
    pub const DEFAULT_MAX_TASKS_PER_SESSION: usize = 16;

    /// The most bytes of messages waiting to be written to a byte stream
    /// (stdio, [`serve_io`](Self::serve_io)) unless
    /// [`with_output_buffer`](Self::with_output_buffer) says otherwise:
    /// 4 MiB.
    pub const DEFAULT_OUTPUT_BUFFER: usize = 4 * 1024 * 1024;

    /// How long a client of the 2026-07-28 revision may cache the tool list
    /// (`ttlMs`) unless [`with_list_ttl`](Self::with_list_ttl) says
    /// otherwise: one minute.
    pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(60);

    /// How long a `requestState` is accepted unless
    /// [`with_request_state_ttl`](Self::with_request_state_ttl) says
    /// otherwise: ten minutes.
    pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

    /// The most calls one session (one stdio client, one HTTP session), or
    /// one peer address for anonymous requests without a session (revision
    /// 2026-07-28, a stateless server), runs at once; a call beyond it is
    /// refused with a JSON-RPC error (`-32603`, "server busy", with
    /// `{"maxConcurrentCalls": n}` as its data) and may be sent again once
    /// a call has finished. A caller an access token shows has a limit of
    /// its own over all its requests (`HttpOptions::max_calls_per_caller`,
    /// feature `http`).
    /// At least 1; the default is
    /// [`DEFAULT_MAX_CONCURRENT_CALLS`](Self::DEFAULT_MAX_CONCURRENT_CALLS).
    pub fn with_max_concurrent_calls(mut self, calls: usize) -> Self {
        self.limits.max_calls = calls.max(1);
        self
    }

    /// The most tasks the calls of one session (one stdio client, one HTTP
    /// session) run at once, when the server serves tasks
    /// ([`with_tasks`](Self::with_tasks)), and the most the calls of one
    /// caller an access token shows run at once in this process, whatever
    /// sessions and requests they come in; a call that would start one more
    /// is refused with a JSON-RPC error (`-32603`, "server busy", with
    /// `{"maxTasksPerSession": n}` or `{"maxTasksPerCaller": n}` as its
    /// data) and may be sent again once one has ended. An anonymous request
    /// of the stateless revision has no session: the tasks' own limit for
    /// the whole server,
    /// [`TaskOptions::max_running`](tool_tasks::TaskOptions::max_running)
    /// (64), bounds it; so one caller at its limit leaves room for others.
    /// At least 1; the default is
    /// [`DEFAULT_MAX_TASKS_PER_SESSION`](Self::DEFAULT_MAX_TASKS_PER_SESSION).
    pub fn with_max_tasks_per_session(mut self, tasks: usize) -> Self {
        self.limits.max_session_tasks = tasks.max(1);
        self
    }

    /// The most bytes of messages waiting to be written to a byte stream
    /// (stdio, [`serve_io`](Self::serve_io)). When the client does not read
    /// and the queue is full, the server stops reading the client's input
    /// until there is room, so its memory stays bounded; a message larger
    /// than the queue waits until the queue is empty. The default is
    /// [`DEFAULT_OUTPUT_BUFFER`](Self::DEFAULT_OUTPUT_BUFFER).
    pub fn with_output_buffer(mut self, bytes: usize) -> Self {
        self.limits.output_buffer = bytes.max(1);
        self
    }

    /// How long a client of the 2026-07-28 revision may cache the results
    /// of `tools/list` and `server/discover` (their `ttlMs`; `cacheScope` is
    /// `public`: the list is the same for every client, but for a list
    /// made for a caller that tools' scopes apply to, `private`). A client that
    /// listens for changes (`subscriptions/listen`) hears of one at once
    /// whatever the lifetime. The default is
    /// [`DEFAULT_LIST_TTL`](Self::DEFAULT_LIST_TTL).
    pub fn with_list_ttl(mut self, ttl: Duration) -> Self {
        self.limits.list_ttl = ttl;
        self
    }

    /// The key the `requestState` of an `input_required` result is
    /// encrypted under (XChaCha20-Poly1305, with a key derived from this
    /// one by HKDF-SHA256), in the 2026-07-28 revision, where a tool's
    /// requests to the client (sampling, elicitation, roots) end the call
    /// and the client retries it with the answers. Without one, the server
    /// draws a random key of 32 bytes when it first needs one, which only
    /// this process (and its clones) accepts: instances behind a load
    /// balancer share a key of the program's, of 32 random bytes or more.
    pub fn with_request_state_key(mut self, key: impl AsRef<[u8]>) -> Self {
        let state_key = OnceLock::new();
        let _ = state_key.set(state::StateKey::new(key.as_ref()));
        self.state_key = Arc::new(state_key);
        self
    }

    /// How long a `requestState` is accepted after the server gave it: a
    /// retry after that is refused (`-32602`), and the client calls the
    /// tool again from the start. The default is
    /// [`DEFAULT_REQUEST_STATE_TTL`](Self::DEFAULT_REQUEST_STATE_TTL).
    pub fn with_request_state_ttl(mut self, ttl: Duration) -> Self {
        self.limits.state_ttl = ttl;
        self
    }

    /// The most resources one session subscribes to
    /// (`resources/subscribe`, revision 2025-11-25) unless
    /// [`with_max_subscriptions`](Self::with_max_subscriptions) says
    /// otherwise.
    pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 1000;

    /// The most resources one session subscribes to; a subscription beyond
    /// it is refused (`-32603`, "server busy", with `{"maxSubscriptions":
    /// n}` as its data). The default is
    /// [`DEFAULT_MAX_SUBSCRIPTIONS`](Self::DEFAULT_MAX_SUBSCRIPTIONS).
    pub fn with_max_subscriptions(mut self, subscriptions: usize) -> Self {
        self.limits.max_subscriptions = subscriptions;
        self
    }

    /// Serves `resources` (`resources/list`, `resources/templates/list`,
    /// `resources/read`, `resources/subscribe` and completion of their
    /// templates' variables), and declares the `resources` and
    /// `completions` capabilities. Reads run as calls do, counted against
    /// [`with_max_concurrent_calls`](Self::with_max_concurrent_calls).
    pub fn with_resources(mut self, resources: crate::resources::Resources) -> Self {
        self.resources = Some(resources);
        self
    }

    /// Serves `prompts` (`prompts/list`, `prompts/get` and completion of
    /// their arguments), and declares the `prompts` and `completions`
    /// capabilities. A `prompts/get` runs as a call does, counted against
    /// [`with_max_concurrent_calls`](Self::with_max_concurrent_calls).
    pub fn with_prompts(mut self, prompts: crate::prompts::Prompts) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// Links tools to their apps' views (`_meta.ui` in `tools/list`, see
    /// [`crate::apps`]) with `links` instead of
    /// [`AppLinks::global`](crate::apps::AppLinks::global) (every
    /// `#[tool(ui = "...")]` of the program), which the server uses unless
    /// told otherwise. Changes to the links show in the next tool list.
    pub fn with_app_links(mut self, links: crate::apps::AppLinks) -> Self {
        self.app_links = links;
        self
    }

    /// The key `requestState`s are sealed under.
    fn state_key(&self) -> &state::StateKey {
        self.state_key.get_or_init(state::StateKey::generate)
    }

    /// The name and version the server gives clients in its `initialize`
    /// answer (`serverInfo`).
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        self.implementation = Implementation {
            name: name.into(),
            version: version.into(),
        };
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

    /// The tool list of the registry as it is now, rendered once per state
    /// of the registry and of the app links.
    fn listed(&self) -> Arc<Listed> {
        let current = self.registry.snapshot();
        let listed = self.tools.load_full();
        if Arc::ptr_eq(&listed.registry, &current) && listed.links == self.app_links.stamp() {
            return listed;
        }
        let resources = self.resources.as_ref();
        let listed = Arc::new(Listed::of(current, &self.app_links, resources));
        self.tools.store(Arc::clone(&listed));
        listed
    }

    /// The tools `tools/list` gives in the server's context (to a request
    /// without a caller of its own), in name order, each in MCP's shape
    /// (`name`, `title`, `description`, `inputSchema`, `outputSchema`,
    /// `annotations`: [`providers::mcp::tool`]).
    pub fn tools(&self) -> Vec<Value> {
        let listed = self.listed();
        listed
            .offered(&listed.json, &self.context)
            .into_iter()
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
    /// JSON-RPC, as the `stdio` transport) until the reader ends. At most
    /// [`with_output_buffer`](Self::with_output_buffer) bytes of messages
    /// wait to be written; past that, the input is not read until there is
    /// room.
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
    /// Both eras are served: a client of the revisions with `initialize`
    /// gets a session (`Mcp-Session-Id`), a request of revision 2026-07-28
    /// is served on its own. A request's answer comes back on its POST (one
    /// JSON document, or an event stream when notifications or requests to
    /// the client come first); a session's tool changes on its `GET`
    /// stream.
    ///
    /// Requests must name a loopback host (`localhost`, `127.0.0.1` or
    /// `[::1]`) in their `Host` header, and a browser's `Origin` must be a
    /// loopback origin, which guards a local server against DNS rebinding
    /// and cross-origin pages; bind the listener to a loopback address.
    /// Connections, timeouts, bodies and sessions are bounded by the
    /// defaults of [`HttpOptions`]; to change them, or to serve without
    /// sessions behind a load balancer, see
    /// [`serve_http_with`](Self::serve_http_with).
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        shutdown: tool_runtime::context::CancellationToken,
    ) -> io::Result<()> {
        self.serve_http_with(listener, HttpOptions::default(), shutdown)
            .await
    }

    /// Serves MCP clients over streamable HTTP as
    /// [`serve_http`](Self::serve_http) does, with `options`: its limits
    /// (connections, timeouts, body size, hosts and origins, sessions), and,
    /// with [`HttpOptions::stateless`], no sessions, so that several
    /// instances of the server can answer one client's requests in turn.
    #[cfg(feature = "http")]
    pub async fn serve_http_with(
        self,
        listener: tokio::net::TcpListener,
        options: HttpOptions,
        shutdown: tool_runtime::context::CancellationToken,
    ) -> io::Result<()> {
        http::serve(self, listener, options, shutdown).await
    }

    /// Sets the least severe level of log message the session's client
    /// wants (`logging/setLevel`).
    pub(super) fn set_log_level(&self, level: LogLevel) {
        self.log_level.store(level as u8, Ordering::Relaxed);
    }

    /// The least severe level of log message the session's client wants.
    pub(super) fn log_level(&self) -> LogLevel {
        const LEVELS: [LogLevel; 8] = [
            LogLevel::Debug,
            LogLevel::Info,
            LogLevel::Notice,
            LogLevel::Warning,
            LogLevel::Error,
            LogLevel::Critical,
            LogLevel::Alert,
            LogLevel::Emergency,
        ];
        let stored = self.log_level.load(Ordering::Relaxed);
        LEVELS
            .into_iter()
            .find(|level| *level as u8 == stored)
            .unwrap_or(LogLevel::Debug)
    }

    /// Runs one call of this session in `context`: what the tool reports
    /// goes out through `notify` (progress when the request gave a
    /// `progress_token`, log messages of the levels it
    /// [`wants`](Notify::wants)), and `cancelled` stops the tool.
    pub(super) async fn run_call(
        &self,
        tool_use: ToolUse,
        progress_token: Option<&Value>,
        context: &ToolContext,
        cancelled: &CancellationToken,
        notify: &impl Notify,
    ) -> Result<Called, CallError> {
        // The registry as it is when the call starts: the call and its
        // rendering use the same tools, whatever changes meanwhile.
        let registry = self.registry.snapshot();
        let name = tool_use.name.clone();
        if let Some(reason) = self.listed().refusal(&name) {
            let tool = tool_runtime::__private::quote::name(&name);
            return Err(CallError::UnknownTool {
                message: format!("the tool `{tool}` is not served over MCP: {reason}"),
                tool,
            });
        }
        let mut events = registry.stream(tool_use, context);
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
                    let Some(token) = progress_token else {
                        continue;
                    };
                    if progress <= last_progress {
                        continue;
                    }
                    last_progress = progress;
                    notify.progress(token, progress, message).await;
                }
                Some(ToolEvent::Log { level, message }) => {
                    if notify.wants(level) {
                        notify.log(level, &name, message).await;
                    }
                }
                Some(ToolEvent::Result(result)) => break result,
                Some(_) => {}
                None => {
                    return Err(CallError::NoResult(format!(
                        "the call to {} ended without a result",
                        tool_runtime::__private::quote::name(&name)
                    )));
                }
            }
        };
        // Not found by the registry: a protocol error (a tool's own errors,
        // whatever their kind, are results).
        if registry.resolve(&name).is_none()
            && matches!(
                result.error_kind,
                Some(ToolErrorKind::UnknownTool | ToolErrorKind::NotAllowed)
            )
        {
            // The name came from the client: quoted back escaped and cut
            // short, as the message quotes it.
            return Err(CallError::UnknownTool {
                message: result.text_content(),
                tool: tool_runtime::__private::quote::name(&name),
            });
        }
        Ok(Called {
            result,
            registry,
            name,
        })
    }
}

/// A call's result, with the registry it ran in.
pub(super) struct Called {
    pub(super) result: ToolResult,
    registry: Arc<Registry>,
    /// The name (or alias) the call gave.
    name: String,
}

impl Called {
    /// The spec of the tool called: `structuredContent` depends on it.
    pub(super) fn spec(&self) -> Option<&ToolSpec> {
        self.registry.resolve(&self.name).map(|tool| tool.spec())
    }

    /// The `CallToolResult`, in MCP's shape.
    pub(super) fn to_json(&self) -> Value {
        providers::mcp::call_tool_result(&self.result, self.spec())
    }
}

/// A call that got no result to send: a JSON-RPC error instead.
#[derive(Debug)]
pub(super) enum CallError {
    /// The registry has no such tool (or does not allow it): `-32602`,
    /// with the tool's name as the error's data (escaped and cut short).
    UnknownTool { message: String, tool: String },
    /// The call ended without a result: `-32603`.
    NoResult(String),
}

impl CallError {
    /// The JSON-RPC error code.
    pub(super) fn code(&self) -> i64 {
        match self {
            CallError::UnknownTool { .. } => -32602,
            CallError::NoResult(_) => -32603,
        }
    }

    /// The error's message.
    pub(super) fn message(&self) -> &str {
        match self {
            CallError::UnknownTool { message, .. } | CallError::NoResult(message) => message,
        }
    }

    /// The error's data, if any.
    pub(super) fn data(&self) -> Option<Value> {
        match self {
            CallError::UnknownTool { tool, .. } => Some(serde_json::json!({"tool": tool})),
            CallError::NoResult(_) => None,
        }
    }
}

/// Where a call's notifications go: onto a session's output, as messages
/// of the call's request.
pub(super) trait Notify: Sync {
    /// Sends a progress notification for the request that gave `token`:
    /// `progress` the fraction done (of a `total` of 1).
    fn progress(
        &self,
        token: &Value,
        progress: f64,
        message: String,
    ) -> impl Future<Output = ()> + Send;
    /// Whether the client wants log messages of `level`.
    fn wants(&self, level: LogLevel) -> bool;
    /// Sends a log message of tool `logger`.
    fn log(
        &self,
        level: LogLevel,
        logger: &str,
        message: String,
    ) -> impl Future<Output = ()> + Send;
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("implementation", &self.implementation.name)
            .field("tools", &self.registry)
            .finish()
    }
}

/// The revision of a request of the revisions with sessions: the one its
/// `_meta` names, when the server knows it, else the one `initialize`
/// agreed on (`negotiated`).
fn session_revision(
    params: Option<&Map<String, Value>>,
    negotiated: Option<&'static str>,
) -> Option<&'static str> {
    revision::meta_of(params)
        .and_then(|meta| meta.get(revision::META_VERSION))
        .and_then(Value::as_str)
        .and_then(|named| revision::REVISIONS.iter().copied().find(|r| *r == named))
        .or(negotiated)
}

/// The span of one `tools/call`, MCP's server span: named `tools/call
/// {tool}`, with the method, the request's id and the tool's name. With the
/// `otel` feature, a trace context in the request's `_meta` (a W3C
/// `traceparent`) is its parent, so the call's spans join the client's
/// trace.
pub(super) fn call_span(
    id: &dyn std::fmt::Display,
    tool: &str,
    meta: Option<&Map<String, Value>>,
) -> tracing::Span {
    let span = tracing::info_span!(
        "tools/call",
        otel.name = %format_args!("tools/call {tool}"),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        jsonrpc.request.id = %id,
        gen_ai.tool.name = %tool,
    );
    #[cfg(feature = "otel")]
    if let Some(meta) = meta {
        otel::adopt_parent(&span, meta);
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
}
