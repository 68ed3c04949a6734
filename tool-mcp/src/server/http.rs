//! The server over MCP's streamable HTTP transport (feature `http`): one
//! endpoint, [`MCP_PATH`], on a listener the caller binds, with hyper;
//! with sessions, or stateless ([`HttpOptions::stateless`]) for several
//! instances behind a load balancer.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::service::{Peer, RoleServer};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tool_runtime::CancellationToken;

use super::McpServer;
use super::handler::PeerNotify;

/// The path the MCP endpoint answers on.
pub const MCP_PATH: &str = "/mcp";

type Service = StreamableHttpService<McpServer, LocalSessionManager>;

/// How [`McpServer::serve_http_with`] serves streamable HTTP.
///
/// The default is what [`McpServer::serve_http`] does: every client gets a
/// session.
///
/// ```no_run
/// use tool_mcp::server::{HttpOptions, McpServer};
/// use tool_runtime::{CancellationToken, Registry};
///
/// # async fn run() -> std::io::Result<()> {
/// // One of several instances behind a load balancer.
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// McpServer::new(Registry::global().clone())
///     .serve_http_with(listener, HttpOptions::new().stateless(true), CancellationToken::new())
///     .await
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    stateless: bool,
}

impl HttpOptions {
    /// The defaults: sessions on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves without sessions when `stateless` is true.
    ///
    /// With sessions (the default), `initialize` opens a session whose id
    /// comes back in the `Mcp-Session-Id` header; the client sends it with
    /// every later request, and only the server process holding the session
    /// can answer them. The server can reach the client between requests:
    /// `notifications/tools/list_changed` when the tools change, and
    /// `logging/setLevel` lasts for the session.
    ///
    /// Stateless, no session is kept and no `Mcp-Session-Id` is sent: each
    /// POST is answered on its own, by a server made for that request, so
    /// any instance of the same server can answer any request of a client
    /// (`initialize` on one, `tools/call` on the next), and a load balancer
    /// may spread a client's requests over every instance. What a request
    /// causes (its result, progress and log messages) comes back on that
    /// request's own response: plain JSON when the result is all there is,
    /// an event stream when notifications come first. What needs a session
    /// does not happen: `GET` (the standalone stream) and `DELETE` are
    /// answered `405 Method Not Allowed`, notifications the client sends
    /// are accepted and dropped (`notifications/cancelled` among them),
    /// `notifications/tools/list_changed` is
    /// never sent (a client sees a change at its next `tools/list`),
    /// `logging/setLevel` does not outlast its own request, and the server
    /// makes no requests of the client (sampling, elicitation, roots).
    ///
    /// Requests of the 2026-07-28 revision of MCP, which has no sessions
    /// and carries the protocol version in each request's `_meta`, are
    /// served statelessly in either mode.
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Whether the server is stateless: [`stateless`](Self::stateless).
    pub fn is_stateless(&self) -> bool {
        self.stateless
    }
}

/// Serves `server` over streamable HTTP on `listener` as `options` say,
/// until `shutdown` is cancelled: [`McpServer::serve_http_with`].
pub(super) async fn serve(
    server: McpServer,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        // rmcp's switch: sessions for every request of a revision before
        // 2026-07-28 (the default), or none at all.
        .with_legacy_session_mode(!options.stateless)
        // Stateless, a result with nothing before it is one JSON document,
        // which any proxy passes on as it is; a stream only when needed.
        .with_json_response(options.stateless);
    let sessions = Arc::new(Sessions::default());
    let mut server = server;
    if !options.stateless {
        server.http_sessions = Some(Arc::clone(&sessions));
    }
    let manager = Arc::new(LocalSessionManager::default());
    let service: Service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&manager), config);
    let shared = Arc::new(Shared {
        service,
        manager,
        sessions,
    });
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => return Ok(()),
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(error) => {
                // Out of file descriptors and the like: wait, go on.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // A response goes out in several small writes (headers, then each
        // SSE event); with Nagle's algorithm the later ones wait for the
        // client's delayed ACK, some 40 ms a call.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY could not be set on a connection");
        }
        let shared = Arc::clone(&shared);
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(route(&shared, request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler);
            tokio::select! {
                outcome = connection => {
                    if let Err(error) = outcome {
                        tracing::debug!(%error, "an HTTP connection ended with an error");
                    }
                }
                () = shutdown.cancelled() => {}
            }
        });
    }
}

/// What every connection's requests are served with.
struct Shared {
    service: Service,
    manager: Arc<LocalSessionManager>,
    sessions: Arc<Sessions>,
}

/// The largest request body read: 16 MiB, as the stdio transport's longest
/// line. A larger one is answered `413 Payload Too Large`.
const MAX_BODY: usize = 16 * 1024 * 1024;

type Body = BoxBody<Bytes, Infallible>;

/// The reconnection delay an answer's event stream states: rmcp's default.
const SSE_RETRY_MS: u64 = 3000;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response
}

async fn route(shared: &Shared, request: Request<Incoming>) -> Response<Body> {
    if request.uri().path() != MCP_PATH {
        return plain(
            StatusCode::NOT_FOUND,
            "not found; the MCP endpoint is /mcp\n",
        );
    }
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is too large or could not be read\n",
            );
        }
    };
    if parts.method == Method::POST
        && let Some(response) = shared.sessions.serve(shared, &parts, &body).await
    {
        return response;
    }
    shared
        .service
        .handle(Request::from_parts(parts, Full::new(body)))
        .await
}

/// The sessions whose calls the transport runs itself, by session id.
///
/// A session registers once it is set up (`notifications/initialized`,
/// [`McpServer::on_initialized`](rmcp::ServerHandler::on_initialized)) and
/// is removed when it ends. Then a POST holding one plain `tools/call` of
/// that session (no `_meta`: no progress to stream) goes from the body
/// read to the tool and back as one event stream written at once (a
/// priming event and the answer, as rmcp sends them), with none of rmcp's
/// per-request session machinery in between; the server and client of the
/// session are the ones rmcp serves it with ([`McpServer::same_session`]),
/// so log messages, sampling and elicitation reach the client as before.
/// Anything else, and any request whose headers are not plainly what rmcp
/// accepts, is rmcp's to answer (and refuse).
#[derive(Default)]
pub(super) struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
}

struct Session {
    server: McpServer,
    peer: Peer<RoleServer>,
    /// The calls running, by their id's JSON text, to cancel on
    /// `notifications/cancelled`.
    running: Mutex<HashMap<String, CancellationToken>>,
}

/// A session's place in [`Sessions`], to remove when it ends.
pub(super) struct Registered {
    sessions: Arc<Sessions>,
    id: String,
}

impl Registered {
    /// Removes the session.
    pub(super) fn remove(self) {
        lock(&self.sessions.map).remove(&self.id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Sessions {
    /// Registers the session whose `notifications/initialized` came with
    /// `extensions` (the HTTP request's parts, holding its session id).
    pub(super) fn register(
        self: &Arc<Self>,
        extensions: &rmcp::model::Extensions,
        server: McpServer,
        peer: &Peer<RoleServer>,
    ) -> Option<Registered> {
        let parts = extensions.get::<Parts>()?;
        let id = header(parts, "mcp-session-id")?.to_owned();
        // The session's server needs no way back to the sessions.
        let mut server = server;
        server.http_sessions = None;
        let session = Session {
            server,
            peer: peer.clone(),
            running: Mutex::new(HashMap::new()),
        };
        lock(&self.map).insert(id.clone(), Arc::new(session));
        Some(Registered {
            sessions: Arc::clone(self),
            id,
        })
    }

    /// The answer to a POST this transport serves itself, or `None` for
    /// rmcp.
    async fn serve(&self, shared: &Shared, parts: &Parts, body: &[u8]) -> Option<Response<Body>> {
        let id = header(parts, "mcp-session-id")?;
        let session = lock(&self.map).get(id).cloned()?;
        if !plainly_acceptable(parts) {
            return None;
        }
        let mut call = match super::wire::decode_call(body) {
            Some(call) => call,
            None if contains(body, b"notifications/cancelled") => {
                return session.cancel(body);
            }
            None => return None,
        };
        if call.meta.is_some()
            || !shared
                .manager
                .has_session(&Arc::from(id))
                .await
                .unwrap_or(false)
        {
            return None;
        }
        let key = call.id.to_string();
        let cancelled = CancellationToken::new();
        lock(&session.running).insert(key.clone(), cancelled.clone());
        let server = &session.server;
        let outcome = server
            .run_call(
                call.tool_use(),
                None,
                server.peer_context(&session.peer),
                &cancelled,
                &PeerNotify {
                    peer: &session.peer,
                    log_level: server.log_level(),
                },
            )
            .await;
        lock(&session.running).remove(&key);
        if cancelled.is_cancelled() {
            // No answer for a cancelled request, as MCP asks.
            return Some(plain(StatusCode::ACCEPTED, ""));
        }
        // An event stream, as rmcp answers a session's requests: a priming
        // event (an id and a retry time, for a client that would resume),
        // then the answer. It is whole, so nothing is ever resumed from it.
        let mut answer = super::session::answer_line(&call.id, &outcome);
        answer.pop(); // its newline
        let answer = String::from_utf8(answer).ok()?;
        let body = format!("id: 0\nretry: {SSE_RETRY_MS}\ndata:\n\ndata: {answer}\n\n");
        let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
        let headers = response.headers_mut();
        headers.insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(
            hyper::header::CACHE_CONTROL,
            hyper::header::HeaderValue::from_static("no-cache"),
        );
        Some(response)
    }
}

impl Session {
    /// Cancels the call a `notifications/cancelled` names when it is one of
    /// this transport's: `202 Accepted`. Any other notification is rmcp's.
    fn cancel(&self, body: &[u8]) -> Option<Response<Body>> {
        let message: serde_json::Value = serde_json::from_slice(body).ok()?;
        if message.get("method")? != "notifications/cancelled" || message.get("id").is_some() {
            return None;
        }
        let id = message.get("params")?.get("requestId")?;
        let token = lock(&self.running).get(&id.to_string()).cloned()?;
        token.cancel();
        Some(plain(StatusCode::ACCEPTED, ""))
    }
}

fn header<'a>(parts: &'a Parts, name: &str) -> Option<&'a str> {
    parts.headers.get(name)?.to_str().ok()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Whether the request's headers are what rmcp accepts without a doubt: a
/// loopback `Host` (the DNS rebinding guard), a JSON body, an `Accept`
/// naming both JSON and event streams, and a protocol version header, when
/// there is one, of a revision with sessions.
fn plainly_acceptable(parts: &Parts) -> bool {
    let host_ok = header(parts, "host").is_some_and(|host| {
        let name = match host.strip_prefix('[') {
            Some(rest) => rest.split(']').next().unwrap_or(""),
            None => host.split(':').next().unwrap_or(""),
        };
        matches!(name, "localhost" | "127.0.0.1" | "::1")
    });
    let json = header(parts, "content-type")
        .is_some_and(|value| value.trim_start().starts_with("application/json"));
    let accept = header(parts, "accept").is_some_and(|value| {
        value.contains("application/json") && value.contains("text/event-stream")
    });
    let version = header(parts, "mcp-protocol-version").is_none_or(|version| {
        matches!(
            version,
            "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25"
        )
    });
    host_ok && json && accept && version
}
