//! One live connection to a server, and the task that keeps one up: it
//! starts (or reaches) the server, watches it, refreshes the tool list when
//! the server says it changed, and restarts the server with backoff when it
//! exits or stops answering.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, Implementation, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestId, ServerResult,
};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use tokio::io::AsyncBufReadExt;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tool_runtime::{CancellationToken, Progress};

use super::McpClientOptions;
use super::config::McpServerConfig;
use super::convert::McpTool;
use super::error::{McpClientError, McpClientErrorKind};

/// How many of a server's last stderr lines are kept, to quote when it
/// fails.
const STDERR_LINES: usize = 20;
/// A connection that stayed up this long starts the backoff over.
const STABLE: Duration = Duration::from_secs(10);
/// How many times a broken HTTP response stream is resumed before its
/// request fails (after 0.2, 0.4 and 0.8 s).
const SSE_RETRIES: usize = 3;
/// How long a health check (`ping`) after a failed call may take.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

/// What the client's handler shares with the calls: where progress goes,
/// and the list-changed signal.
pub(crate) struct Shared {
    pub(crate) server: String,
    progress: Mutex<HashMap<ProgressToken, Watcher>>,
    pub(crate) list_changed: Notify,
}

/// Where one request's progress goes.
#[derive(Clone)]
struct Watcher {
    progress: Progress,
    seen: Arc<Seen>,
}

/// What progress a request has had.
#[derive(Default)]
struct Seen {
    /// Some progress arrived.
    any: AtomicBool,
    /// Progress reached its total.
    done: AtomicBool,
    changed: Notify,
}

/// How long a finished call waits for progress notifications still being
/// handled (rmcp handles notifications on tasks of their own, so the last
/// ones can come after the answer) when the progress has not reached its
/// total yet.
const PROGRESS_SETTLE: Duration = Duration::from_millis(50);

impl Shared {
    pub(crate) fn new(server: String) -> Self {
        Self {
            server,
            progress: Mutex::new(HashMap::new()),
            list_changed: Notify::new(),
        }
    }

    /// Sends the progress of the request with `token` to `progress` until
    /// the guard is dropped.
    pub(crate) fn watch_progress(
        self: &Arc<Self>,
        token: ProgressToken,
        progress: Progress,
    ) -> ProgressGuard {
        let seen = Arc::new(Seen::default());
        if progress.is_watched() {
            self.progress
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(
                    token.clone(),
                    Watcher {
                        progress,
                        seen: Arc::clone(&seen),
                    },
                );
        }
        ProgressGuard {
            shared: Arc::clone(self),
            token,
            seen,
        }
    }
}

/// Stops forwarding one request's progress when dropped.
pub(crate) struct ProgressGuard {
    shared: Arc<Shared>,
    token: ProgressToken,
    seen: Arc<Seen>,
}

impl ProgressGuard {
    /// Once the answer is in: lets progress notifications that arrived
    /// before it reach the caller, when some progress came and did not reach
    /// its total.
    async fn settle(&self) {
        if !self.seen.any.load(Ordering::Acquire) {
            return;
        }
        let _ = tokio::time::timeout(PROGRESS_SETTLE, async {
            loop {
                let changed = self.seen.changed.notified();
                if self.seen.done.load(Ordering::Acquire) {
                    return;
                }
                changed.await;
            }
        })
        .await;
    }
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        self.shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

impl ClientHandler for Shared {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let progress = self
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        let Some(Watcher { progress, seen }) = progress else {
            return;
        };
        let message = params.message.unwrap_or_default();
        match params.total {
            Some(total) if total > 0.0 => {
                progress.progress(params.progress / total, message);
                if params.progress >= total {
                    seen.done.store(true, Ordering::Release);
                }
            }
            // No total: how far it is cannot be a fraction; the count and
            // the message go to the call's trace.
            _ => {
                let text = if message.is_empty() {
                    format!("{}", params.progress)
                } else {
                    format!("{}: {message}", params.progress)
                };
                progress.trace("progress", text);
            }
        }
        seen.any.store(true, Ordering::Release);
        seen.changed.notify_waiters();
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "the server's tool list changed");
        self.list_changed.notify_one();
    }

    fn get_info(&self) -> ClientConfig {
        // The `initialize` handshake, whose list-changed notifications
        // reach the client unasked.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tool-mcp", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

/// A connection the calls use.
pub(crate) struct Live {
    pub(crate) peer: Peer<RoleClient>,
    /// The spawned server's process id (stdio).
    pub(crate) pid: Option<u32>,
    /// 1 for the first connection, one more for each restart.
    pub(crate) generation: u64,
    /// Cancelling it closes this connection (and the supervisor restarts
    /// the server).
    pub(crate) close: CancellationToken,
}

impl Live {
    /// After a failed call: asks the server for a `ping`, and closes the
    /// connection (so that it is restarted) when none comes back in time.
    pub(crate) fn check_health(self: &Arc<Self>, server: &str) {
        let live = Arc::clone(self);
        let server = server.to_owned();
        tokio::spawn(async move {
            if live.close.is_cancelled() {
                return;
            }
            let ping = live
                .peer
                .send_request(ClientRequest::PingRequest(Default::default()));
            let failure = match tokio::time::timeout(PING_TIMEOUT, ping).await {
                Ok(Ok(_)) => return,
                Ok(Err(error)) => error.to_string(),
                Err(_) => format!("no answer to a ping within {PING_TIMEOUT:?}"),
            };
            tracing::warn!(%server, %failure, "the MCP server does not answer; restarting it");
            live.close.cancel();
        });
    }

    /// Sends `tools/call` and waits for the answer, the caller's
    /// cancellation or the time limit.
    pub(crate) async fn call(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        params: CallToolRequestParams,
        progress: Progress,
        cancelled: impl Future<Output = ()>,
        deadline: Instant,
    ) -> CallEnd {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match self
            .peer
            .send_request_with_option(request, Default::default())
            .await
        {
            Ok(handle) => handle,
            Err(error) => return CallEnd::Failed(error.to_string()),
        };
        let progress = shared.watch_progress(handle.progress_token.clone(), progress);
        // Dropped before the answer (the caller's future dropped):
        // `notifications/cancelled`.
        let mut abandoned = Abandoned {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        enum Outcome {
            /// The answer, or `None` when the connection closed first.
            Answer(Option<Box<Result<ServerResult, rmcp::ServiceError>>>),
            Cancelled,
            TimedOut,
        }
        let outcome = tokio::select! {
            answer = &mut handle.rx => Outcome::Answer(answer.ok().map(Box::new)),
            () = cancelled => Outcome::Cancelled,
            () = tokio::time::sleep_until(deadline) => Outcome::TimedOut,
        };
        abandoned.id = None;
        let answer = match outcome {
            Outcome::Answer(answer) => answer.map(|answer| *answer),
            Outcome::Cancelled => {
                let _ = handle.cancel(Some("cancelled by the caller".into())).await;
                return CallEnd::Cancelled;
            }
            Outcome::TimedOut => {
                let reason = "the client stopped waiting (time limit)";
                let _ = handle.cancel(Some(reason.into())).await;
                return CallEnd::TimedOut;
            }
        };
        match answer {
            Some(Ok(ServerResult::CallToolResult(result))) => {
                progress.settle().await;
                CallEnd::Result(result)
            }
            Some(Ok(_)) => {
                CallEnd::Protocol("the answer to `tools/call` is not a tool result".into())
            }
            Some(Err(rmcp::ServiceError::McpError(error))) => {
                CallEnd::Protocol(error.message.into_owned())
            }
            Some(Err(rmcp::ServiceError::TransportClosed)) | None => CallEnd::Closed,
            Some(Err(error)) => CallEnd::Failed(error.to_string()),
        }
    }
}

/// How one `tools/call` ended.
pub(crate) enum CallEnd {
    Result(rmcp::model::CallToolResult),
    /// A JSON-RPC error from the server.
    Protocol(String),
    /// The connection closed before the answer.
    Closed,
    /// The request could not be sent, or the transport failed.
    Failed(String),
    Cancelled,
    TimedOut,
}

/// Sends `notifications/cancelled` for a request whose caller went away.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = Some("the caller stopped waiting".to_owned());
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), reason))
                .await;
        });
    }
}

/// Where the connection is, as the calls see it.
#[derive(Clone)]
pub(crate) enum State {
    Up(Arc<Live>),
    /// Not connected; `error` is why the last attempt to start it failed
    /// (`None` while the first attempt after an exit is pending).
    Down {
        error: Option<Arc<str>>,
    },
    /// The client was closed.
    Closed,
}

#[derive(Clone)]
pub(crate) struct Status {
    pub(crate) state: State,
    /// How many attempts to start the server have failed, in all.
    pub(crate) failures: u64,
}

/// A connection just made: the service, and what the calls need.
pub(crate) struct Connection {
    service: RunningService<RoleClient, Arc<Shared>>,
    pid: Option<u32>,
    pub(crate) tools: Vec<McpTool>,
    close: CancellationToken,
}

impl Connection {
    /// What the calls of the `generation`th connection use.
    pub(crate) fn live(&self, generation: u64) -> Arc<Live> {
        Arc::new(Live {
            peer: self.service.peer().clone(),
            pid: self.pid,
            generation,
            close: self.close.clone(),
        })
    }
}

/// Starts (stdio) or reaches (HTTP) the server, completes the handshake and
/// lists its tools, within the connect timeout.
pub(crate) async fn connect(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
    options: &McpClientOptions,
) -> Result<Connection, McpClientError> {
    let server = shared.server.as_str();
    let fail = |kind, message: String| McpClientError::new(server, kind, message);
    let close = CancellationToken::new();
    let (service, pid, stderr) = match config {
        McpServerConfig::Stdio { command, args, env } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env);
            let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|error| {
                    fail(
                        McpClientErrorKind::Connect,
                        format!("could not start `{}`: {error}", config.describe()),
                    )
                })?;
            let pid = transport.id();
            let stderr = stderr.map(|stderr| StderrTail::start(server, stderr));
            let serving = Arc::clone(shared).serve_with_ct(transport, close.clone());
            let service = match tokio::time::timeout(options.connect_timeout, serving).await {
                Ok(Ok(service)) => service,
                Ok(Err(error)) => {
                    let tail = match stderr {
                        Some(stderr) => stderr.finish().await,
                        None => String::new(),
                    };
                    return Err(fail(
                        McpClientErrorKind::Connect,
                        format!(
                            "`{}` did not complete the MCP handshake: {error}{tail}",
                            config.describe()
                        ),
                    ));
                }
                Err(_) => {
                    return Err(fail(
                        McpClientErrorKind::Connect,
                        format!(
                            "`{}` did not complete the MCP handshake within {:?}",
                            config.describe(),
                            options.connect_timeout
                        ),
                    ));
                }
            };
            (service, pid, stderr)
        }
        McpServerConfig::Http { url, headers } => {
            use rmcp::transport::StreamableHttpClientTransport;
            use rmcp::transport::common::client_side_sse::ExponentialBackoff;
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let header = http::HeaderName::from_bytes(name.as_bytes()).map_err(|error| {
                    fail(
                        McpClientErrorKind::Config,
                        format!("the header name `{name}` is not valid: {error}"),
                    )
                })?;
                let value = http::HeaderValue::from_str(value).map_err(|error| {
                    fail(
                        McpClientErrorKind::Config,
                        format!("the value of the header `{name}` is not valid: {error}"),
                    )
                })?;
                custom.insert(header, value);
            }
            ensure_crypto_provider();
            // A response stream that breaks is resumed a few times, then
            // fails its request (rmcp's default retries forever).
            let mut retry = ExponentialBackoff::default();
            retry.max_times = Some(SSE_RETRIES);
            retry.base_duration = Duration::from_millis(200);
            retry.max_delay = Some(Duration::from_secs(1));
            let mut transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(custom)
                .reinit_on_expired_session(true);
            transport_config.retry_config = Arc::new(retry);
            let transport = StreamableHttpClientTransport::from_config(transport_config);
            let serving = Arc::clone(shared).serve_with_ct(transport, close.clone());
            let service = match tokio::time::timeout(options.connect_timeout, serving).await {
                Ok(Ok(service)) => service,
                Ok(Err(error)) => {
                    return Err(fail(
                        McpClientErrorKind::Connect,
                        format!("could not connect to {url}: {error}"),
                    ));
                }
                Err(_) => {
                    return Err(fail(
                        McpClientErrorKind::Connect,
                        format!(
                            "{url} did not complete the MCP handshake within {:?}",
                            options.connect_timeout
                        ),
                    ));
                }
            };
            (service, None, None)
        }
    };
    // The stderr reader runs on by itself; only a failed start reads it.
    drop(stderr);
    let listing = tokio::time::timeout(options.connect_timeout, service.peer().list_all_tools());
    let tools = match listing.await {
        Ok(Ok(tools)) => tools.into_iter().map(McpTool::from_rmcp).collect(),
        Ok(Err(error)) => {
            close.cancel();
            return Err(fail(
                McpClientErrorKind::Connect,
                format!("could not list the tools: {error}"),
            ));
        }
        Err(_) => {
            close.cancel();
            return Err(fail(
                McpClientErrorKind::Connect,
                format!(
                    "did not list its tools within {:?}",
                    options.connect_timeout
                ),
            ));
        }
    };
    Ok(Connection {
        service,
        pid,
        tools,
        close,
    })
}

/// Builds the HTTP client's TLS on ring when the program has not chosen a
/// rustls crypto provider.
fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may have installed one meanwhile: either will do.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// Reads a spawned server's stderr: each line is logged, the last few kept.
struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    reader: JoinHandle<()>,
}

impl StderrTail {
    fn start(server: &str, stderr: tokio::process::ChildStderr) -> Self {
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&lines);
        let server = server.to_owned();
        let reader = tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                tracing::debug!(%server, "stderr: {line}");
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        Self { lines, reader }
    }

    /// The last lines, once the server has closed stderr (or half a second
    /// has passed), as text to append to an error message.
    async fn finish(self) -> String {
        let _ = tokio::time::timeout(Duration::from_millis(500), self.reader).await;
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.is_empty() {
            return String::new();
        }
        let mut text = String::from("; its last lines on stderr:");
        for line in lines.iter() {
            text.push_str("\n  ");
            text.push_str(line);
        }
        text
    }
}

/// Keeps a connection up for the client's life.
pub(crate) struct Supervisor {
    pub(crate) shared: Arc<Shared>,
    pub(crate) config: McpServerConfig,
    pub(crate) options: McpClientOptions,
    pub(crate) status: watch::Sender<Status>,
    pub(crate) tools: watch::Sender<Arc<[McpTool]>>,
    pub(crate) shutdown: CancellationToken,
}

impl Supervisor {
    pub(crate) async fn run(self, mut connection: Connection) {
        let mut backoff = self.options.restart_backoff_min;
        let mut generation = 0;
        loop {
            generation += 1;
            let started = Instant::now();
            if self.serve(connection, generation).await {
                self.status
                    .send_modify(|status| status.state = State::Closed);
                return;
            }
            if started.elapsed() >= STABLE {
                backoff = self.options.restart_backoff_min;
            }
            self.status
                .send_modify(|status| status.state = State::Down { error: None });
            tracing::warn!(
                server = %self.shared.server,
                "the MCP server's connection closed; restarting it in {backoff:?}"
            );
            connection = loop {
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = self.shutdown.cancelled() => {
                        self.status.send_modify(|status| status.state = State::Closed);
                        return;
                    }
                }
                backoff = (backoff * 2).min(self.options.restart_backoff_max);
                let attempt = tokio::select! {
                    attempt = connect(&self.shared, &self.config, &self.options) => attempt,
                    () = self.shutdown.cancelled() => {
                        self.status.send_modify(|status| status.state = State::Closed);
                        return;
                    }
                };
                match attempt {
                    Ok(connection) => break connection,
                    Err(error) => {
                        tracing::warn!(
                            server = %self.shared.server,
                            %error,
                            "the MCP server could not be restarted; trying again in {backoff:?}"
                        );
                        let message: Arc<str> = error.message().into();
                        self.status.send_modify(|status| {
                            status.failures += 1;
                            status.state = State::Down {
                                error: Some(message),
                            };
                        });
                    }
                }
            };
        }
    }

    /// Serves one connection until it closes (`false`) or the client shuts
    /// down (`true`).
    async fn serve(&self, connection: Connection, generation: u64) -> bool {
        let live = connection.live(generation);
        let Connection {
            service,
            tools,
            close,
            ..
        } = connection;
        let peer = service.peer().clone();
        self.publish_tools(tools);
        self.status
            .send_modify(|status| status.state = State::Up(live));
        let waiting = service.waiting();
        tokio::pin!(waiting);
        loop {
            tokio::select! {
                _ = &mut waiting => return false,
                () = self.shutdown.cancelled() => {
                    close.cancel();
                    let _ = tokio::time::timeout(Duration::from_secs(5), &mut waiting).await;
                    return true;
                }
                () = self.shared.list_changed.notified() => {
                    let listing = tokio::time::timeout(self.options.call_timeout, peer.list_all_tools());
                    match listing.await {
                        Ok(Ok(tools)) => {
                            self.publish_tools(tools.into_iter().map(McpTool::from_rmcp).collect());
                        }
                        Ok(Err(error)) => tracing::warn!(
                            server = %self.shared.server, %error,
                            "the MCP server's tools could not be listed again"
                        ),
                        Err(_) => tracing::warn!(
                            server = %self.shared.server,
                            "the MCP server did not list its tools again in time"
                        ),
                    }
                }
            }
        }
    }

    /// Publishes a tool list, waking the watchers only when it changed.
    fn publish_tools(&self, tools: Vec<McpTool>) {
        self.tools.send_if_modified(|current| {
            if current[..] == tools[..] {
                return false;
            }
            *current = tools.into();
            true
        });
    }
}
