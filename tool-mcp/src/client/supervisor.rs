//! The task that keeps a connection up: it watches the server, refreshes
//! the tool list when the server says it changed, and restarts the server
//! with backoff when it exits or stops answering.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use tool_runtime::context::CancellationToken;

use super::McpClientOptions;
use super::config::McpServerConfig;
use super::connection::{Connection, STABLE, State, Status, connect};
use super::convert::McpTool;
use super::import::LeftOut;
use super::listing;
use super::shared::Shared;

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
            left_out,
            close,
            ..
        } = connection;
        let peer = service.peer().clone();
        self.publish_tools(tools, left_out);
        if generation > 1 {
            // A server started again may offer other resources and prompts.
            self.shared.content_list_changed();
        }
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
                    let listing = listing::list(&peer, &self.shared);
                    match tokio::time::timeout(self.options.call_timeout, listing).await {
                        Ok(Ok(listing)) => self.publish_tools(listing.tools, listing.left_out),
                        Ok(Err(failure)) => tracing::warn!(
                            server = %self.shared.server, error = %failure.into_message(),
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

    /// Publishes a tool list (and the tools it left out), waking the
    /// watchers only when it changed.
    fn publish_tools(&self, tools: Vec<McpTool>, left_out: Vec<LeftOut>) {
        self.shared.publish_left_out(left_out);
        self.tools.send_if_modified(|current| {
            if current[..] == tools[..] {
                return false;
            }
            *current = tools.into();
            true
        });
    }
}
