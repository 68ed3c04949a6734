//! A client for other MCP servers (feature `client`, on by default): their
//! tools, called from Rust or imported into a registry.
//!
//! [`McpClient::connect`] starts a server from an [`McpServerConfig`] (a
//! command, spoken to on its stdin and stdout) or reaches one over
//! streamable HTTP (a URL), completes the MCP handshake and lists the
//! server's tools. Built on `rmcp`'s client.
//!
//! - [`McpClient::list_tools`] asks the server for its tools
//!   ([`McpTool`]s); [`McpClient::cached_tools`] gives the last list
//!   without asking, and [`McpClient::watch_tools`] a watch that changes
//!   when the server sends `notifications/tools/list_changed` (the client
//!   lists the tools again) or comes back with other tools after a restart.
//! - [`McpClient::call`] calls one tool with a [`ToolContext`]: the result
//!   becomes a [`ToolOutput`] (see [`McpClient::call`] for how content maps),
//!   `isError` an error result with the server's text. Progress the server
//!   reports (`notifications/progress`) goes to the context's progress
//!   reporting; cancelling the context's token sends
//!   `notifications/cancelled` and ends the call with a cancelled error;
//!   each call has a time limit ([`McpClientOptions::call_timeout`], 60 s by
//!   default).
//! - Resilience: a server that exits or closes the connection fails the
//!   calls in flight with an error naming the server, and is started (or
//!   reached) again with backoff (100 ms doubling to 5 s); a call made
//!   meanwhile waits for the restart, within its time limit. A call that
//!   times out, or fails in its transport, is followed by a `ping`; a server
//!   that does not answer that either is restarted. Over HTTP, a response
//!   stream that breaks is resumed up to three times before its call fails.
//! - Calls as tasks, with MCP's tasks extension:
//!   [`McpClient::call_as_task`] declares the extension on its request, and
//!   a server that makes a task of the call answers at once with it
//!   ([`McpTask`]); [`McpClient::get_task`] reads it (`tasks/get`),
//!   [`McpClient::wait_task`] reads it until it ends,
//!   [`McpClient::task_result`] gives its result,
//!   [`McpClient::update_task`] answers its requests and
//!   [`McpClient::cancel_task`] cancels it.
//! - Resources, prompts and completion: [`McpClient::list_resources`],
//!   [`McpClient::list_resource_templates`] and [`McpClient::list_prompts`]
//!   page the server's lists within the [`McpLimits`] (`max_resources`,
//!   `max_resource_templates`, `max_prompts`, `max_list_bytes`);
//!   [`McpClient::read_resource`] and [`McpClient::get_prompt`] run as calls
//!   do (a context, a time limit, `max_result_bytes`, the server's
//!   `input_required` answered by the context's client) and give
//!   [`Contents`](crate::resources::Contents) and
//!   [`GetPrompt`](crate::prompts::GetPrompt);
//!   [`McpClient::complete_prompt`] and [`McpClient::complete_resource`]
//!   give a [`Completion`](crate::completion::Completion) of at most 100
//!   values; [`McpClient::watch_content`] changes when the server says its
//!   resources or prompts changed. Names, URIs, descriptions and contents
//!   are the server's, as it sent them; the server's words the client
//!   repeats in its errors are escaped and cut short.
//! - Every error names the server: ``MCP server `everything`: ...``.
//! - Into a registry: [`McpClient::tools`] makes the tools
//!   [`DynamicTool`](tool_runtime::dynamic::DynamicTool)s (named by
//!   [`ImportOptions`]: a prefix, renames, aliases, an allowlist), and
//!   [`McpClient::sync_into`] keeps a [`LiveRegistry`](tool_runtime::registry::LiveRegistry)
//!   in step with the server's tool list.
//! - From a registry file: [`McpServers`] reads its `mcp_servers` section
//!   ([`McpServerEntry`]s, each at its line and column), for
//!   `Manifest::parse_with`; tool-cli's proxy is built on it.
//!
//! ```no_run
//! use serde_json::json;
//! use tool_mcp::client::{McpClient, McpServerConfig};
//! use tool_runtime::ToolContext;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = McpServerConfig::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"]);
//! let client = McpClient::connect("everything", config).await?;
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description);
//! }
//! let output = client
//!     .call("echo", json!({"message": "hi"}), &ToolContext::new())
//!     .await?;
//! assert_eq!(output.into_result("call-1").text_content(), "Echo: hi");
//! # Ok(())
//! # }
//! ```

mod config;
mod connection;
mod convert;
mod error;
mod http;
mod import;
mod limits;
mod listing;
#[cfg(feature = "client-auth")]
pub mod oauth;
mod pages;
mod prompts;
mod protocol;
mod requests;
mod resources;
mod rounds;
mod section;
mod shared;
mod stdio;
mod supervisor;
mod sync;
mod tasks;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, ServerResult};
use serde_json::Value;
use tokio::sync::watch;
use tokio::time::Instant;
use tool_runtime::{ToolContext, ToolOutput, ToolResult, ToolUse, context::CancellationToken};

pub use config::McpServerConfig;
pub use convert::{McpPrompt, McpResource, McpResourceTemplate, McpTool};
pub use error::{McpClientError, McpClientErrorKind};
pub use import::{Import, ImportOptions, LeftOut};
pub use limits::{MAX_MESSAGE_DEPTH, McpLimits};
pub use protocol::McpProtocol;
pub use section::{McpServerEntry, McpServers};
pub use tasks::{McpTask, McpTaskCall, McpTaskError, TASKS_EXTENSION};

use connection::{Live, State, Status};
use shared::Shared;
use supervisor::Supervisor;

/// Time limits, size limits and restart pacing of an [`McpClient`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct McpClientOptions {
    /// How long one call (or a tool listing) may wait for its answer,
    /// including a wait for a restarting server. 60 s by default.
    pub call_timeout: Duration,
    /// How long starting (or reaching) a server, its handshake and its
    /// first tool listing may take. 10 s by default.
    pub connect_timeout: Duration,
    /// What the client takes in from the server, at most (see
    /// [`McpLimits`] for the defaults).
    pub limits: McpLimits,
    /// The wait before the first attempt to restart a server that went
    /// away. 100 ms by default; it doubles after each attempt.
    pub restart_backoff_min: Duration,
    /// The longest wait between attempts to restart a server. 5 s by
    /// default. A connection that stays up 10 s starts the waits over.
    pub restart_backoff_max: Duration,
    /// Which revision of MCP the client speaks: the `initialize` handshake
    /// by default (see [`McpProtocol`]).
    pub protocol: McpProtocol,
    /// Whether the client declares the `elicitation` capability, so that a
    /// server may ask the caller for input while a tool runs. Off by
    /// default. Either way, what a server asks during a call (an
    /// elicitation, the roots) goes to the caller, through the call's
    /// context ([`ToolContext::client`]); a call whose context has no
    /// client fails when the server asks.
    pub forward_requests: bool,
    /// How the client authorizes itself to a server reached over HTTP that
    /// requires OAuth (feature `client-auth`; see [`oauth`]): none by
    /// default, and a `401` fails the connection.
    #[cfg(feature = "client-auth")]
    pub oauth: Option<oauth::OAuth>,
}

impl Default for McpClientOptions {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            limits: McpLimits::default(),
            restart_backoff_min: Duration::from_millis(100),
            restart_backoff_max: Duration::from_secs(5),
            protocol: McpProtocol::Initialize,
            forward_requests: false,
            #[cfg(feature = "client-auth")]
            oauth: None,
        }
    }
}

impl McpClientOptions {
    /// Sets [`call_timeout`](Self::call_timeout).
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Sets [`connect_timeout`](Self::connect_timeout).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets [`limits`](Self::limits).
    pub fn with_limits(mut self, limits: McpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets [`protocol`](Self::protocol).
    pub fn with_protocol(mut self, protocol: McpProtocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Sets [`forward_requests`](Self::forward_requests).
    pub fn with_forward_requests(mut self, forward: bool) -> Self {
        self.forward_requests = forward;
        self
    }

    /// Sets [`oauth`](Self::oauth).
    #[cfg(feature = "client-auth")]
    pub fn with_oauth(mut self, oauth: oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sets the restart backoff: the first wait and the longest.
    pub fn with_restart_backoff(mut self, min: Duration, max: Duration) -> Self {
        self.restart_backoff_min = min;
        self.restart_backoff_max = max.max(min);
        self
    }
}

/// A connection to one MCP server, kept up for the client's life (see the
/// [module](self)).
///
/// Cheap to clone: clones share the connection. The server is stopped (a
/// spawned one is killed) when the last clone is dropped, or at
/// [`close`](Self::close). Needs a Tokio runtime: a task watches the
/// connection.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    config: McpServerConfig,
    options: McpClientOptions,
    shared: Arc<Shared>,
    status: watch::Receiver<Status>,
    tools: watch::Receiver<Arc<[McpTool]>>,
    shutdown: CancellationToken,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl McpClient {
    /// Starts (or reaches) the server `config` describes, completes the MCP
    /// handshake and lists its tools, with the default
    /// [`McpClientOptions`]. `name` names the server in errors and logs
    /// (and, as a prefix, in imported tools' names if asked).
    ///
    /// Fails when the server cannot be started or reached, or does not
    /// complete the handshake and the listing within the connect timeout;
    /// the error quotes the last lines a spawned server wrote to stderr.
    pub async fn connect(
        name: impl Into<String>,
        config: McpServerConfig,
    ) -> Result<Self, McpClientError> {
        Self::connect_with(name, config, McpClientOptions::default()).await
    }

    /// [`connect`](Self::connect) with other time limits or restart
    /// pacing.
    pub async fn connect_with(
        name: impl Into<String>,
        config: McpServerConfig,
        options: McpClientOptions,
    ) -> Result<Self, McpClientError> {
        let name = name.into();
        let http = matches!(config, McpServerConfig::Http { .. });
        let shared = Shared::new(name.clone(), options.limits, http)
            .forwarding_requests(options.forward_requests);
        #[cfg(feature = "client-auth")]
        let shared = shared
            .authorizing(&config, options.oauth.as_ref())
            .map_err(|message| McpClientError::new(&name, McpClientErrorKind::Config, message))?;
        let shared = Arc::new(shared);
        let connection = connection::connect(&shared, &config, &options).await?;
        let tools: Arc<[McpTool]> = connection.tools.clone().into();
        shared.publish_left_out(connection.left_out.clone());
        // Up from the start: calls made right away find the connection.
        let (status_tx, status) = watch::channel(Status {
            state: State::Up(connection.live(1)),
            failures: 0,
        });
        let (tools_tx, tools) = watch::channel(tools);
        let shutdown = CancellationToken::new();
        let supervisor = Supervisor {
            shared: Arc::clone(&shared),
            config: config.clone(),
            options: options.clone(),
            status: status_tx,
            tools: tools_tx,
            shutdown: shutdown.clone(),
        };
        tokio::spawn(supervisor.run(connection));
        Ok(McpClient {
            inner: Arc::new(Inner {
                name,
                config,
                options,
                shared,
                status,
                tools,
                shutdown,
            }),
        })
    }

    /// The name given at [`connect`](Self::connect).
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The configuration the client was made with.
    pub fn config(&self) -> &McpServerConfig {
        &self.inner.config
    }

    /// The options the client was made with.
    pub fn options(&self) -> &McpClientOptions {
        &self.inner.options
    }

    /// Whether the connection is up now (not restarting, not closed).
    pub fn is_connected(&self) -> bool {
        matches!(&self.inner.status.borrow().state, State::Up(live) if !live.peer.is_transport_closed())
    }

    /// The process id of the spawned server (a stdio server that is
    /// running), for monitoring.
    pub fn process_id(&self) -> Option<u32> {
        match &self.inner.status.borrow().state {
            State::Up(live) => live.pid,
            _ => None,
        }
    }

    /// The revision of MCP the server and the client agreed on, such as
    /// `"2025-11-25"` (the `initialize` handshake) or `"2026-07-28"`
    /// (`server/discover`), while the connection is up.
    pub fn protocol_version(&self) -> Option<String> {
        match &self.inner.status.borrow().state {
            State::Up(live) => live
                .peer
                .peer_info()
                .map(|info| info.protocol_version.to_string()),
            _ => None,
        }
    }

    /// How many times the server has been started again (or reached
    /// again) after its connection closed.
    pub fn restarts(&self) -> u64 {
        match &self.inner.status.borrow().state {
            State::Up(live) => live.generation - 1,
            _ => 0,
        }
    }

    /// The tools as last listed, without asking the server.
    pub fn cached_tools(&self) -> Arc<[McpTool]> {
        Arc::clone(&self.inner.tools.borrow())
    }

    /// The tools of the last listing that are left out for the
    /// [`McpLimits`] (a schema too large or too deep), with why.
    pub fn left_out(&self) -> Arc<[LeftOut]> {
        Arc::clone(
            &self
                .inner
                .shared
                .left_out
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// A watch on the tool list: it changes when the server's tools change
    /// (after `notifications/tools/list_changed`, or a restart that brings
    /// other tools). `changed().await` on it, then `borrow()` the list.
    pub fn watch_tools(&self) -> watch::Receiver<Arc<[McpTool]>> {
        self.inner.tools.clone()
    }

    /// A watch that changes when the server says its resources, resource
    /// templates or prompts changed (`notifications/resources/list_changed`,
    /// `notifications/prompts/list_changed`; in revision 2026-07-28 through
    /// the client's `subscriptions/listen`), and when the server is started
    /// again: list them again then. The client keeps no list of them.
    /// Per-resource updates (`notifications/resources/updated`) are not
    /// followed.
    pub fn watch_content(&self) -> watch::Receiver<u64> {
        self.inner.shared.content_changed.subscribe()
    }

    /// Asks the server for its tools (`tools/list`, every page), within
    /// the [`McpLimits`]: a list over `max_tools` or `max_list_bytes` fails
    /// with [`McpClientErrorKind::Limit`], and the tools whose schemas are
    /// over the limits are not among those returned (see
    /// [`left_out`](Self::left_out), which this does not change).
    pub async fn list_tools(&self) -> Result<Vec<McpTool>, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let ctx = ToolContext::new();
        let live = self.live(&ctx, deadline).await?;
        let listing = listing::list(&live.peer, &self.inner.shared);
        match tokio::time::timeout_at(deadline, listing).await {
            Ok(Ok(listing)) => Ok(listing.tools),
            Ok(Err(listing::Failure::Limit(message))) => {
                Err(self.error(McpClientErrorKind::Limit, message))
            }
            Ok(Err(listing::Failure::Failed(message))) => {
                live.check_health(self.name());
                Err(self.error(
                    McpClientErrorKind::Protocol,
                    format!("could not list the tools: {message}"),
                ))
            }
            Err(_) => {
                live.check_health(self.name());
                Err(self.error(
                    McpClientErrorKind::TimedOut,
                    format!(
                        "did not list its tools within {:?}",
                        self.inner.options.call_timeout
                    ),
                ))
            }
        }
    }

    /// Calls the tool `tool` with `arguments` (a JSON object, or `null` for
    /// none) and returns what it returned.
    ///
    /// - A result with `structuredContent` is [`ToolOutput::Value`] of it.
    /// - Otherwise a [`ToolOutput::Result`] with the content blocks: text as
    ///   text; an image or audio as a text stand-in naming its type and
    ///   size; a resource link as a line with its URI; an embedded text
    ///   resource as its URI and text; other blocks as JSON.
    /// - `isError: true` is an error [`ToolResult`] with the server's text
    ///   (kind [`Failed`](tool_runtime::spec::ToolErrorKind::Failed)).
    ///
    /// Progress the server reports reaches `ctx`'s progress reporting (a
    /// fraction when the server gives a total, a trace entry otherwise).
    /// Cancelling `ctx` sends `notifications/cancelled` and fails with
    /// [`McpClientErrorKind::Cancelled`]; so does dropping the future
    /// (without the error). The call fails with
    /// [`McpClientErrorKind::TimedOut`] after
    /// [`call_timeout`](McpClientOptions::call_timeout), with
    /// [`McpClientErrorKind::Closed`] when the server goes away meanwhile,
    /// and with [`McpClientErrorKind::Protocol`] when it answers with a
    /// JSON-RPC error (an unknown tool, say; its message is escaped and cut
    /// short), and with [`McpClientErrorKind::Limit`] at once when the
    /// answer is over [`max_result_bytes`](McpLimits::max_result_bytes)
    /// (or nested deeper than [`MAX_MESSAGE_DEPTH`]).
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let params = self.call_params(tool, arguments)?;
        let live = self.live(ctx, deadline).await?;
        let end = live.ask(&self.inner.shared, params, ctx, deadline).await;
        let who = format!("`{}`", tool_runtime::__private::quote::name(tool));
        let what = format!("the call to {who}");
        match self.answer_of(&live, end, (&what, &who))? {
            ServerResult::CallToolResult(result) => Ok(convert::to_output(result)),
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is not a tool result"),
            )),
        }
    }

    /// The parameters of a `tools/call` of `tool` with `arguments` (a JSON
    /// object, or `null` for none), or why there are none.
    fn call_params(
        &self,
        tool: &str,
        arguments: Value,
    ) -> Result<CallToolRequestParams, McpClientError> {
        let params = CallToolRequestParams::new(tool.to_owned());
        match arguments {
            Value::Object(arguments) => Ok(params.with_arguments(arguments)),
            Value::Null => Ok(params),
            other => Err(self.error(
                McpClientErrorKind::Protocol,
                format!(
                    "the arguments of `{}` must be a JSON object, not {}",
                    tool_runtime::__private::quote::name(tool),
                    tool_runtime::__private::quote::value(&other)
                ),
            )),
        }
    }

    /// [`call`](Self::call) for a [`ToolUse`], as
    /// [`Registry::invoke`](tool_runtime::Registry::invoke) answers one:
    /// errors become error results (their text names the server), and the
    /// result carries the tool use's id.
    pub async fn invoke(&self, tool_use: ToolUse, ctx: &ToolContext) -> ToolResult {
        match self.call(&tool_use.name, tool_use.input, ctx).await {
            Ok(output) => output.into_result(tool_use.id),
            Err(error) => ToolResult::from_error(tool_use.id, &error.to_tool_error()),
        }
    }

    /// Stops the server (a spawned one is killed) and waits until it is;
    /// later calls fail. Clones share the connection, so this closes it for
    /// them too.
    pub async fn close(&self) {
        self.inner.shutdown.cancel();
        let mut status = self.inner.status.clone();
        let _ = status
            .wait_for(|status| matches!(status.state, State::Closed))
            .await;
    }

    /// The connection to use, waiting (within `deadline`, and until `ctx`
    /// is cancelled) while the server restarts.
    async fn live(
        &self,
        ctx: &ToolContext,
        deadline: Instant,
    ) -> Result<Arc<Live>, McpClientError> {
        let mut status = self.inner.status.clone();
        let failures_before = status.borrow().failures;
        loop {
            {
                let current = status.borrow_and_update();
                match &current.state {
                    State::Up(live) if !live.peer.is_transport_closed() => {
                        return Ok(Arc::clone(live));
                    }
                    State::Down { error: Some(error) } if current.failures > failures_before => {
                        return Err(self.error(
                            McpClientErrorKind::Closed,
                            format!("is not running, and could not be restarted: {error}"),
                        ));
                    }
                    State::Closed => {
                        return Err(self.error(
                            McpClientErrorKind::Closed,
                            "the client was closed".to_owned(),
                        ));
                    }
                    _ => {}
                }
            }
            tokio::select! {
                changed = status.changed() => {
                    if changed.is_err() {
                        return Err(self.error(
                            McpClientErrorKind::Closed,
                            "the client was closed".to_owned(),
                        ));
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(self.error(
                        McpClientErrorKind::TimedOut,
                        format!(
                            "is not running, and was not restarted within {:?}",
                            self.inner.options.call_timeout
                        ),
                    ));
                }
                () = ctx.cancelled() => {
                    return Err(self.error(
                        McpClientErrorKind::Cancelled,
                        "the call was cancelled while the server restarted".to_owned(),
                    ));
                }
            }
        }
    }

    fn error(&self, kind: McpClientErrorKind, message: String) -> McpClientError {
        McpClientError::new(self.inner.name.clone(), kind, message)
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("name", &self.inner.name)
            .field("server", &self.inner.config.describe())
            .field("connected", &self.is_connected())
            .field("tools", &self.inner.tools.borrow().len())
            .finish()
    }
}
