//! What the client's handler shares with the calls of one connection:
//! where each request's progress and the server's questions go, the
//! tool-list-changed signal, the limits and what the transport refused. The transports (`stdio.rs`) and
//! the listing (`listing.rs`) use it as the connection (`connection.rs`)
//! does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestId,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext, RoleClient};
use serde_json::Value;
use tokio::sync::{Notify, watch};
use tool_runtime::context::ClientRequests;
use tool_runtime::events::Progress;

use super::error::untrusted;
use super::import::LeftOut;
use super::limits::McpLimits;
use super::requests;

/// What the client's handler shares with the calls: where progress goes,
/// the list-changed signal, the limits and what the transport refused.
pub(crate) struct Shared {
    pub(crate) server: String,
    pub(crate) limits: McpLimits,
    /// Reached over streamable HTTP, whose transport closes (rather than
    /// failing one request) on a response over `max_result_bytes`.
    pub(crate) http: bool,
    progress: Mutex<HashMap<ProgressToken, Watcher>>,
    pub(crate) list_changed: Notify,
    /// Counts the server's word that its resources, resource templates or
    /// prompts changed (and its restarts, which may change them).
    pub(crate) content_changed: watch::Sender<u64>,
    /// Why the transport refused the answers to these requests.
    refusals: Mutex<HashMap<RequestId, String>>,
    /// The tools of the last listing left out for the limits.
    pub(crate) left_out: Mutex<Arc<[LeftOut]>>,
    /// Who answers the server's requests made on the stream of each call
    /// in flight: the caller's client, if it has one.
    askers: Mutex<HashMap<RequestId, Option<Arc<dyn ClientRequests>>>>,
    /// Whether the client declares the elicitation capability
    /// ([`McpClientOptions::forward_requests`](super::McpClientOptions::forward_requests)).
    forward_requests: bool,
    /// The client's authorization at an HTTP server, kept across
    /// connections.
    #[cfg(feature = "client-auth")]
    pub(crate) oauth: Option<Arc<super::oauth::Session>>,
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
    pub(crate) fn new(server: String, limits: McpLimits, http: bool) -> Self {
        Self {
            server,
            limits,
            http,
            progress: Mutex::new(HashMap::new()),
            list_changed: Notify::new(),
            content_changed: watch::Sender::new(0),
            refusals: Mutex::new(HashMap::new()),
            left_out: Mutex::new(Arc::from([])),
            askers: Mutex::new(HashMap::new()),
            forward_requests: false,
            #[cfg(feature = "client-auth")]
            oauth: None,
        }
    }

    /// The same, authorizing itself to the HTTP server of `config` as
    /// `oauth` says (a stdio server is not authorized); or why it cannot.
    #[cfg(feature = "client-auth")]
    pub(crate) fn authorizing(
        mut self,
        config: &super::McpServerConfig,
        oauth: Option<&super::oauth::OAuth>,
    ) -> Result<Self, String> {
        let (Some(oauth), super::McpServerConfig::Http { url, headers }) = (oauth, config) else {
            return Ok(self);
        };
        if headers
            .keys()
            .any(|name| name.eq_ignore_ascii_case("authorization"))
        {
            return Err(
                "the configuration gives both an `Authorization` header and OAuth: give one"
                    .to_owned(),
            );
        }
        self.oauth = Some(Arc::new(super::oauth::Session::new(url, oauth.clone())?));
        Ok(self)
    }

    /// Whether an authorization waits for the user now: the connection's
    /// time limit waits too.
    pub(crate) fn waiting_for_user(&self) -> bool {
        #[cfg(feature = "client-auth")]
        if let Some(session) = &self.oauth {
            return session.is_interacting();
        }
        false
    }

    /// Why the last authorization failed, if one did since the last call.
    pub(crate) fn authorization_failure(&self) -> Option<String> {
        #[cfg(feature = "client-auth")]
        if let Some(session) = &self.oauth {
            return session.take_failure();
        }
        None
    }

    /// The same, declaring the elicitation capability when
    /// `forward_requests`.
    pub(crate) fn forwarding_requests(mut self, forward_requests: bool) -> Self {
        self.forward_requests = forward_requests;
        self
    }

    /// Sends the server's requests made on the stream of the request `id`
    /// to `client` (the caller's) until the guard is dropped.
    pub(crate) fn route_requests(
        self: &Arc<Self>,
        id: RequestId,
        client: Option<Arc<dyn ClientRequests>>,
    ) -> RouteGuard {
        self.askers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), client);
        RouteGuard {
            shared: Arc::clone(self),
            id,
        }
    }

    /// The answer to the server's request `method` with `params`, made on
    /// the stream `context` tells, by the caller of that call.
    async fn answer(
        &self,
        method: &str,
        params: Value,
        context: &RequestContext<RoleClient>,
    ) -> Result<Value, ErrorData> {
        let client = {
            let askers = self.askers.lock().unwrap_or_else(PoisonError::into_inner);
            match context.extensions.get::<InboundStreamOrigin>() {
                Some(InboundStreamOrigin::OutboundRequest(id)) => askers.get(id).cloned(),
                // A request on a stream of no call (the standalone one, or a
                // stdio server's) is the only call's, when there is one.
                _ if askers.len() == 1 => askers.values().next().cloned(),
                _ => None,
            }
        };
        let Some(client) = client else {
            return Err(ErrorData::invalid_request(
                format!(
                    "`{method}` is answered during a tool call, by its caller; \
                     there is no call in flight it could belong to, or more than one"
                ),
                None,
            ));
        };
        requests::answer(client.as_ref(), method, params)
            .await
            .map_err(|message| ErrorData::internal_error(message, None))
    }

    /// The transport refused the answer to the request `id`, for `reason`.
    pub(crate) fn refused(&self, id: RequestId, reason: String) {
        self.refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, reason);
    }

    /// Why the transport refused the answer to the request `id`, if it did.
    pub(crate) fn take_refusal(&self, id: &RequestId) -> Option<String> {
        self.refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
    }

    /// The server said its tool list changed: the client lists it again.
    pub(crate) fn tool_list_changed(&self) {
        tracing::debug!(server = %self.server, "the server's tool list changed");
        self.list_changed.notify_one();
    }

    /// The server said its resources, resource templates or prompts
    /// changed (or it was started again): whoever follows them lists them
    /// again.
    pub(crate) fn content_list_changed(&self) {
        tracing::debug!(server = %self.server, "the server's resources or prompts changed");
        self.content_changed.send_modify(|count| *count += 1);
    }

    /// The tools of the last listing left out for the limits.
    pub(crate) fn publish_left_out(&self, left_out: Vec<LeftOut>) {
        *self.left_out.lock().unwrap_or_else(PoisonError::into_inner) = left_out.into();
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

/// Stops sending the server's requests on one call's stream to its caller
/// when dropped.
pub(crate) struct RouteGuard {
    shared: Arc<Shared>,
    id: RequestId,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.shared
            .askers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
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
    pub(crate) async fn settle(&self) {
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
        let message = untrusted(params.message.as_deref().unwrap_or_default(), 200);
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
        self.tool_list_changed();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.content_list_changed();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.content_list_changed();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).unwrap_or(Value::Null);
        let answer = self.answer("elicitation/create", params, &context).await?;
        serde_json::from_value(answer)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.forward_requests {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        }
        // The `initialize` handshake, whose list-changed notifications
        // reach the client unasked.
        ClientConfig::new(
            capabilities,
            Implementation::new("tool-mcp", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}
