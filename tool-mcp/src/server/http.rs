//! The server over MCP's streamable HTTP transport (feature `http`): one
//! endpoint, [`MCP_PATH`], on a listener the caller binds, with hyper.

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

/// Serves `server` over streamable HTTP on `listener` until `shutdown` is
/// cancelled: [`McpServer::serve_http`].
pub(super) async fn serve(
    server: McpServer,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token());
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
