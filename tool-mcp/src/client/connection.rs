//! One live connection to a server: starting (or reaching) it, its
//! handshake and first listing within the connect timeout, the calls, and
//! what the client's handler shares with them. The task that keeps a
//! connection up is in `supervisor.rs`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::ClientRequest;
use rmcp::service::serve_client_with_lifecycle_and_ct;
use rmcp::service::{Peer, RoleClient, RunningService};
use tokio::io::AsyncBufReadExt;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::McpClientOptions;
use super::config::McpServerConfig;
use super::convert::McpTool;
use super::error::{McpClientError, McpClientErrorKind, untrusted};
use super::import::LeftOut;
use super::listing::{self, Failure};
use super::shared::Shared;

/// How many of a server's last stderr lines are kept, to quote when it
/// fails.
const STDERR_LINES: usize = 20;
/// A connection that stayed up this long starts the backoff over.
pub(crate) const STABLE: Duration = Duration::from_secs(10);
/// How long a health check (`ping`) after a failed call may take.
const PING_TIMEOUT: Duration = Duration::from_secs(5);

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
    pub(crate) service: RunningService<RoleClient, Arc<Shared>>,
    pid: Option<u32>,
    pub(crate) tools: Vec<McpTool>,
    pub(crate) left_out: Vec<LeftOut>,
    pub(crate) close: CancellationToken,
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
/// lists its tools, all within the connect timeout.
pub(crate) async fn connect(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
    options: &McpClientOptions,
) -> Result<Connection, McpClientError> {
    let deadline = Instant::now() + options.connect_timeout;
    let fail = |kind, message: String| McpClientError::new(shared.server.as_str(), kind, message);
    let close = CancellationToken::new();
    let (service, pid) = match config {
        McpServerConfig::Stdio { command, args, env } => start_stdio(
            shared,
            config,
            (command, args, env),
            &close,
            deadline,
            options,
        )
        .await
        .map_err(|message| fail(McpClientErrorKind::Connect, message))?,
        McpServerConfig::Http { url, headers } => {
            let serving = super::http::serve(shared, url, headers, options, &close)
                .map_err(|message| fail(McpClientErrorKind::Config, message))?;
            let service = match within(shared, deadline, serving).await {
                Some(Ok(service)) => service,
                Some(Err(error)) => {
                    return Err(match shared.authorization_failure() {
                        Some(why) => fail(
                            McpClientErrorKind::Auth,
                            format!("could not authorize with {url}: {why}"),
                        ),
                        None => fail(
                            McpClientErrorKind::Connect,
                            format!(
                                "could not connect to {url}: {}",
                                untrusted(&error.to_string(), 500)
                            ),
                        ),
                    });
                }
                None => {
                    return Err(fail(
                        McpClientErrorKind::Connect,
                        format!(
                            "{url} did not complete the MCP handshake within {:?}",
                            options.connect_timeout
                        ),
                    ));
                }
            };
            (service, None)
        }
    };
    let listing = listing::list(service.peer(), shared);
    let listing = match within(shared, deadline, listing).await {
        Some(Ok(listing)) => listing,
        Some(Err(Failure::Limit(message))) => {
            close.cancel();
            return Err(fail(McpClientErrorKind::Limit, message));
        }
        Some(Err(Failure::Failed(message))) => {
            close.cancel();
            return Err(match shared.authorization_failure() {
                Some(why) => fail(
                    McpClientErrorKind::Auth,
                    format!("could not authorize to list the tools: {why}"),
                ),
                None => fail(
                    McpClientErrorKind::Connect,
                    format!("could not list the tools: {message}"),
                ),
            });
        }
        None => {
            close.cancel();
            return Err(fail(
                McpClientErrorKind::Connect,
                format!(
                    "did not complete the MCP handshake and list its tools within {:?}",
                    options.connect_timeout
                ),
            ));
        }
    };
    if super::protocol::is_stateless(service.peer()) {
        let changes = Arc::clone(shared);
        let content = Arc::clone(shared);
        super::protocol::follow_tool_changes(
            service.peer().clone(),
            shared.server.clone(),
            close.clone(),
            move || changes.tool_list_changed(),
            move || content.content_list_changed(),
        );
    }
    Ok(Connection {
        service,
        pid,
        tools: listing.tools,
        left_out: listing.left_out,
        close,
    })
}

/// What `future` gives by `deadline`, or later while an authorization waits
/// for the user (a person takes longer than a handshake); `None` when the
/// time is up.
async fn within<T>(
    shared: &Shared,
    deadline: Instant,
    future: impl Future<Output = T>,
) -> Option<T> {
    let mut future = std::pin::pin!(future);
    let mut deadline = deadline;
    loop {
        tokio::select! {
            done = &mut future => return Some(done),
            () = tokio::time::sleep_until(deadline) => {
                if !shared.waiting_for_user() {
                    return None;
                }
                deadline = Instant::now() + Duration::from_millis(250);
            }
        }
    }
}

/// Spawns a stdio server and completes the handshake by `deadline`; the
/// message of why not quotes the last lines it wrote to stderr.
async fn start_stdio(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
    (command, args, env): (&str, &[String], &std::collections::BTreeMap<String, String>),
    close: &CancellationToken,
    deadline: Instant,
    options: &McpClientOptions,
) -> Result<(RunningService<RoleClient, Arc<Shared>>, Option<u32>), String> {
    let (transport, pid, stderr) = super::stdio::spawn(command, args, env, shared, &shared.limits)
        .map_err(|error| format!("could not start `{}`: {error}", config.describe()))?;
    // The stderr reader runs on by itself; only a failed start reads it.
    let stderr = stderr.map(|stderr| StderrTail::start(&shared.server, stderr));
    let serving = serve_client_with_lifecycle_and_ct(
        Arc::clone(shared),
        transport,
        options.protocol.lifecycle(),
        close.clone(),
    );
    match tokio::time::timeout_at(deadline, serving).await {
        Ok(Ok(service)) => Ok((service, pid)),
        Ok(Err(error)) => {
            let tail = match stderr {
                Some(stderr) => stderr.finish().await,
                None => String::new(),
            };
            Err(format!(
                "`{}` did not complete the MCP handshake: {}{tail}",
                config.describe(),
                untrusted(&error.to_string(), 500)
            ))
        }
        Err(_) => Err(format!(
            "`{}` did not complete the MCP handshake within {:?}",
            config.describe(),
            options.connect_timeout
        )),
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
                // The server's words: escaped and cut short wherever shown.
                let line = untrusted(&line, 300);
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
