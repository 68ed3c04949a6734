//! The server over MCP's streamable HTTP transport (feature `http`): one
//! endpoint, [`MCP_PATH`], on a listener the caller binds, served with
//! hyper on the server's own protocol core, the one stdio uses
//! ([`Session`](super::session::Session)).
//!
//! The core routes what it sends by the request each message belongs to
//! ([`Outbox`](super::output::Outbox)): here each request's messages go to
//! the response of the POST that carried it ([`routes`]), plain JSON when
//! its answer is all there is, an event stream when notifications or
//! requests to the client come first; a session's own messages go to its
//! standalone stream (`GET`). Requests of the revisions with sessions run
//! in a session opened by `initialize` ([`sessions`]); those of revision
//! 2026-07-28, and every request of a stateless server
//! ([`HttpOptions::stateless`]), each in a session of their own that ends
//! with them.
//!
//! Hardened by default ([`HttpOptions`] has each setting): at most
//! [`HttpOptions::DEFAULT_MAX_CONNECTIONS`] connections, an idle one
//! closed to make room for a new one, timeouts on a request's head, on its
//! body and on an idle connection ([`conn`]), a bounded body, and `Host`
//! and `Origin` checked before any of it is read ([`guard`]). Event
//! streams that stay open (a session's standalone stream,
//! `subscriptions/listen`) have a budget of their own, under half the
//! connections, and a lifetime; a session initialized and left unused
//! gives way to a new one ([`sessions`]); requests without a session run
//! at most as many calls at once for each peer address as a session may
//! ([`budget`]).
//!
//! With a resource server (feature `auth`), a session is its caller's: a
//! request of another caller naming it is answered as one naming an
//! unknown session (`404`). Each caller has a share of the sessions
//! ([`HttpOptions::max_sessions_per_caller`]) and of the calls running at
//! once ([`HttpOptions::max_calls_per_caller`]), over all its requests;
//! one beyond is answered `429 Too Many Requests` with `Retry-After`.

mod activity;
#[cfg(feature = "auth")]
mod authz;
mod body;
mod budget;
mod conn;
mod guard;
mod headers;
mod post;
mod routes;
mod sessions;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tool_runtime::context::CancellationToken;

use super::McpServer;

/// The path the MCP endpoint answers on.
pub const MCP_PATH: &str = "/mcp";

/// How [`McpServer::serve_http_with`] serves streamable HTTP: sessions or
/// none, and the limits that keep the server bounded whatever its clients
/// do.
///
/// The default is what [`McpServer::serve_http`] does: every client of the
/// revisions with `initialize` gets a session, and every limit has the
/// default its constant names.
///
/// ```no_run
/// use std::time::Duration;
///
/// use tool_mcp::server::{HttpOptions, McpServer};
/// use tool_runtime::{context::CancellationToken, Registry};
///
/// # async fn run() -> std::io::Result<()> {
/// // One of several instances behind a load balancer, which a web page
/// // at https://app.example.com may call.
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// let options = HttpOptions::new()
///     .stateless(true)
///     .allowed_origins(["https://app.example.com"])
///     .idle_timeout(Duration::from_secs(30));
/// McpServer::new(Registry::global().clone())
///     .serve_http_with(listener, options, CancellationToken::new())
///     .await
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    stateless: bool,
    max_connections: usize,
    header_timeout: Duration,
    body_timeout: Duration,
    idle_timeout: Duration,
    max_body: usize,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    max_sessions: usize,
    max_sessions_per_caller: usize,
    max_calls_per_caller: usize,
    session_timeout: Duration,
    max_event_streams: usize,
    max_session_event_streams: usize,
    event_stream_lifetime: Duration,
    #[cfg(feature = "auth")]
    resource_server: Option<crate::auth::ResourceServer>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            stateless: false,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_timeout: Self::DEFAULT_HEADER_TIMEOUT,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            max_body: Self::DEFAULT_MAX_BODY,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            max_sessions_per_caller: Self::DEFAULT_MAX_SESSIONS_PER_CALLER,
            max_calls_per_caller: Self::DEFAULT_MAX_CALLS_PER_CALLER,
            session_timeout: Self::DEFAULT_SESSION_TIMEOUT,
            max_event_streams: Self::DEFAULT_MAX_EVENT_STREAMS,
            max_session_event_streams: Self::DEFAULT_MAX_EVENT_STREAMS_PER_SESSION,
            event_stream_lifetime: Self::DEFAULT_EVENT_STREAM_LIFETIME,
            #[cfg(feature = "auth")]
            resource_server: None,
        }
    }
}

impl HttpOptions {
    /// The most connections served at once: 1024.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
    /// How long a request's head (its request line and headers) may take to
    /// arrive once its first byte has: 10 seconds.
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// How long a request's body may take to arrive: 30 seconds.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long a connection may wait for its next request: 60 seconds.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// The largest request body read: 16 MiB, as the stdio transport's
    /// longest line.
    pub const DEFAULT_MAX_BODY: usize = 16 * 1024 * 1024;
    /// The most sessions open at once: 4096.
    pub const DEFAULT_MAX_SESSIONS: usize = 4096;
    /// The most sessions one caller an access token shows has open at
    /// once: 64.
    pub const DEFAULT_MAX_SESSIONS_PER_CALLER: usize = 64;
    /// The most calls one caller an access token shows runs at once, over
    /// all its requests: 64, as many as one session may
    /// ([`McpServer::DEFAULT_MAX_CONCURRENT_CALLS`]).
    pub const DEFAULT_MAX_CALLS_PER_CALLER: usize = 64;
    /// How long a session may go unused before it is ended: 30 minutes.
    pub const DEFAULT_SESSION_TIMEOUT: Duration = Duration::from_secs(30 * 60);
    /// The most event streams open at once in the whole server: 256 (and
    /// never more than half of [`max_connections`](Self::max_connections)).
    pub const DEFAULT_MAX_EVENT_STREAMS: usize = 256;
    /// The most event streams one session has open at once: 4.
    pub const DEFAULT_MAX_EVENT_STREAMS_PER_SESSION: usize = 4;
    /// How long an event stream stays open before the server ends it: 5
    /// minutes.
    pub const DEFAULT_EVENT_STREAM_LIFETIME: Duration = Duration::from_secs(5 * 60);

    /// The defaults: sessions on, every limit at its default.
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

    /// The most connections served at once (at least 1). A new connection
    /// beyond it makes room: an idle connection (no request on it) is
    /// closed, one that has served no request before one that has, then
    /// the one idle longest; while none is idle, the new connection waits
    /// until one closes. Idle connections are also closed after
    /// [`idle_timeout`](Self::idle_timeout), and those that send nothing
    /// whole after [`header_timeout`](Self::header_timeout), so sockets
    /// left open never keep clients out. Event streams may hold at most
    /// half of the connections ([`max_event_streams`](Self::max_event_streams)),
    /// so the rest is always there for requests. The default is
    /// [`DEFAULT_MAX_CONNECTIONS`](Self::DEFAULT_MAX_CONNECTIONS).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a request's head may take to arrive, from its first byte;
    /// past it the connection is closed. The default is
    /// [`DEFAULT_HEADER_TIMEOUT`](Self::DEFAULT_HEADER_TIMEOUT).
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// How long a request's body may take to arrive, from the end of its
    /// head; past it the request is answered `408 Request Timeout`. The
    /// default is [`DEFAULT_BODY_TIMEOUT`](Self::DEFAULT_BODY_TIMEOUT).
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// How long a connection may stay open with no request on it (before
    /// its first, or after an answer); past it the connection is closed.
    /// An answer still being sent (an event stream) is no idle time. The
    /// default is [`DEFAULT_IDLE_TIMEOUT`](Self::DEFAULT_IDLE_TIMEOUT).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The largest request body read, in bytes; a larger one is answered
    /// `413 Payload Too Large` (at once when its `Content-Length` says so).
    /// The default is [`DEFAULT_MAX_BODY`](Self::DEFAULT_MAX_BODY).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Host names (or `host:port`) accepted in a request's `Host` header
    /// besides the loopback ones (`localhost`, `127.0.0.1`, `[::1]`), which
    /// are always accepted. A request naming another host is answered
    /// `403 Forbidden` before its body is read: the guard against DNS
    /// rebinding. Behind a proxy that keeps the client's `Host`, name it
    /// here.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Web origins (`scheme://host[:port]`, as browsers send them in
    /// `Origin`) accepted besides the loopback ones (`http` or `https` on
    /// `localhost`, `127.0.0.1` or `[::1]`, any port), which are always
    /// accepted. A request whose `Origin` is another one is answered
    /// `403 Forbidden` before its body is read, as MCP asks; a request
    /// without `Origin` (no browser sent it) is served.
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The most sessions open at once (at least 1). An `initialize` beyond
    /// it ends a session not in use (none of its requests or streams open)
    /// to make room: one of the peer address that
    /// holds the most sessions, the one that has had no request since its
    /// `initialize` first, then the one unused longest; the session ended
    /// is unknown from then on (`404 Not Found`), and its client starts a
    /// new one. When every session is in use, the `initialize` is answered
    /// `503 Service Unavailable`. The default is
    /// [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// The most sessions one caller an access token shows (with a
    /// resource server, `resource_server`, feature `auth`) has open
    /// at once (at least 1): its `initialize` beyond it ends the caller's
    /// own session not in use that has gone unused longest, never another
    /// caller's, and is answered `429 Too Many Requests` with
    /// `Retry-After` when each of the caller's sessions is in use. So a
    /// caller that opens sessions without end takes no more than its
    /// share of [`max_sessions`](Self::max_sessions) (where the sessions
    /// given up for new ones are those of whoever holds the most).
    /// Anonymous clients are held to `max_sessions` only. The default is
    /// [`DEFAULT_MAX_SESSIONS_PER_CALLER`](Self::DEFAULT_MAX_SESSIONS_PER_CALLER).
    pub fn max_sessions_per_caller(mut self, sessions: usize) -> Self {
        self.max_sessions_per_caller = sessions.max(1);
        self
    }

    /// The most calls (`tools/call`) one caller an access token shows
    /// (with a resource server, `resource_server`, feature `auth`)
    /// runs at once over all its requests, in sessions or not (at least
    /// 1); its call beyond it is answered `429 Too Many Requests` with
    /// `Retry-After: 1` and a JSON-RPC error (`-32603`, with
    /// `{"maxCallsPerCaller": n}` as its data), and may be sent again once
    /// one has finished. Its calls also keep to each session's limit
    /// ([`McpServer::with_max_concurrent_calls`]); an anonymous client's
    /// requests without a session keep to that limit for each peer address
    /// instead. The default is
    /// [`DEFAULT_MAX_CALLS_PER_CALLER`](Self::DEFAULT_MAX_CALLS_PER_CALLER).
    pub fn max_calls_per_caller(mut self, calls: usize) -> Self {
        self.max_calls_per_caller = calls.max(1);
        self
    }

    /// How long a session may go without a request or an open stream before
    /// the server ends it (its id is then unknown: `404 Not Found`). The
    /// default is [`DEFAULT_SESSION_TIMEOUT`](Self::DEFAULT_SESSION_TIMEOUT).
    pub fn session_timeout(mut self, timeout: Duration) -> Self {
        self.session_timeout = timeout;
        self
    }

    /// The most event streams open at once in the whole server: a
    /// session's standalone stream (`GET`) and the streams of
    /// `subscriptions/listen` (revision 2026-07-28), which stay open until
    /// their client or the server ends them. A call's own stream (its
    /// progress, then its answer) is not one. Whatever this says, event
    /// streams hold at most half of
    /// [`max_connections`](Self::max_connections) (none with one
    /// connection), so that requests always find one. A `GET` beyond it is
    /// answered `503 Service Unavailable`, a `subscriptions/listen` with a
    /// JSON-RPC error (`-32603`, "server busy", with
    /// `{"maxEventStreams": n}` as its data). The default is
    /// [`DEFAULT_MAX_EVENT_STREAMS`](Self::DEFAULT_MAX_EVENT_STREAMS).
    pub fn max_event_streams(mut self, streams: usize) -> Self {
        self.max_event_streams = streams;
        self
    }

    /// The most event streams ([`max_event_streams`](Self::max_event_streams))
    /// one session has open at once: its standalone stream and the
    /// `subscriptions/listen` requests sent with its `Mcp-Session-Id`
    /// (at least 1). One beyond it is refused as one beyond the server's
    /// cap is, `{"maxEventStreamsPerSession": n}` the error's data. A
    /// `subscriptions/listen` without a session counts against the
    /// server's cap only. The default is
    /// [`DEFAULT_MAX_EVENT_STREAMS_PER_SESSION`](Self::DEFAULT_MAX_EVENT_STREAMS_PER_SESSION).
    pub fn max_event_streams_per_session(mut self, streams: usize) -> Self {
        self.max_session_event_streams = streams.max(1);
        self
    }

    /// How long an event stream ([`max_event_streams`](Self::max_event_streams))
    /// stays open: then the server ends it, a standalone stream by closing
    /// it, a `subscriptions/listen` with its closing result (an empty
    /// `complete` result), and the client opens a new one, as MCP lets it
    /// when a stream ends. The default is
    /// [`DEFAULT_EVENT_STREAM_LIFETIME`](Self::DEFAULT_EVENT_STREAM_LIFETIME).
    pub fn event_stream_lifetime(mut self, lifetime: Duration) -> Self {
        self.event_stream_lifetime = lifetime;
        self
    }

    /// Serves as an OAuth 2.1 resource server (feature `auth`): every
    /// request to the MCP endpoint (`POST`, `GET`, `DELETE`) must carry an
    /// access token `resource_server` accepts, checked before its body is
    /// read, and granting its required scopes; the protected resource
    /// metadata is served to anyone. The [`Caller`](tool_runtime::context::Caller)
    /// of each request reaches the tools it calls, as an extension of
    /// their context. See [`auth`](crate::auth). Without it (the default)
    /// the server asks for no token.
    #[cfg(feature = "auth")]
    pub fn resource_server(mut self, resource_server: crate::auth::ResourceServer) -> Self {
        self.resource_server = Some(resource_server);
        self
    }

    /// The event streams the server holds open at once: the smaller of
    /// [`max_event_streams`](Self::max_event_streams) and half of
    /// [`max_connections`](Self::max_connections).
    fn event_stream_cap(&self) -> usize {
        self.max_event_streams.min(self.max_connections / 2)
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
    let room = Arc::new(Semaphore::new(options.max_connections));
    let shared = Arc::new(sessions::Shared::new(server, options, shutdown.clone()));
    let sweeping = tokio::spawn(sessions::sweep(Arc::clone(&shared)));
    let watching = tokio::spawn(conn::watch(Arc::clone(&shared)));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: wait, go on.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Beyond the cap, an idle connection makes room; while none is
        // idle, the connections after this one wait in the listener's
        // backlog.
        let Some(permit) = conn::admit(&room, &shared).await else {
            break;
        };
        // A response may go out in several small writes (headers, then each
        // event); with Nagle's algorithm the later ones would wait for the
        // client's delayed ACK, some 40 ms each.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY could not be set on a connection");
        }
        tokio::spawn(conn::serve(stream, peer.ip(), Arc::clone(&shared), permit));
    }
    sweeping.abort();
    watching.abort();
    shared.close_all();
    Ok(())
}
