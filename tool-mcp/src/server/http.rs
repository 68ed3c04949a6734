//! The server over MCP's streamable HTTP transport (feature `http`): one
//! endpoint, [`MCP_PATH`], on a listener the caller binds, with hyper;
//! with sessions, or stateless ([`HttpOptions::stateless`]) for several
//! instances behind a load balancer.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tool_runtime::CancellationToken;

use super::McpServer;

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
    let service: Service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
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
        let service = service.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(route(&service, request).await) }
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

async fn route(
    service: &Service,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if request.uri().path() == MCP_PATH {
        return service.handle(request).await;
    }
    let mut response = Response::new(
        Full::new(Bytes::from_static(b"not found; the MCP endpoint is /mcp\n")).boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}
