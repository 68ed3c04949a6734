//! Which revision of MCP the client speaks, and what it does differently in
//! the stateless revision: tool-list changes come through a subscription.

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, Peer, RoleClient};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// How the client opens its conversation with a server: which revision era
/// of MCP it speaks.
///
/// - [`Initialize`](Self::Initialize), the default: the `initialize`
///   handshake, offering revision 2025-11-25 (a server may answer with an
///   older one). Every MCP server written so far speaks it.
/// - [`Discover`](Self::Discover): revision 2026-07-28 only. The client asks
///   `server/discover` and then sends each request with its own `_meta`
///   (no session); a server that does not offer 2026-07-28 fails to
///   connect, with its answer quoted. Tool-list changes arrive through a
///   `subscriptions/listen` request the client keeps open.
/// - [`Auto`](Self::Auto): `server/discover` first, and the `initialize`
///   handshake when the server answers that it does not know it. A server
///   that ignores the unknown request, rather than answering it, is waited
///   for until the connect timeout.
///
/// In a registry file this is an MCP server entry's `protocol` key:
/// `"2025-11-25"`, `"2026-07-28"` or `"auto"`.
///
/// ```
/// use tool_mcp::client::{McpClientOptions, McpProtocol};
///
/// let options = McpClientOptions::default().with_protocol(McpProtocol::Discover);
/// assert_eq!(options.protocol, McpProtocol::Discover);
/// assert_eq!(McpProtocol::default(), McpProtocol::Initialize);
/// assert_eq!(serde_json::to_string(&McpProtocol::Auto)?, r#""auto""#);
/// let pinned: McpProtocol = serde_json::from_str(r#""2026-07-28""#)?;
/// assert_eq!(pinned, McpProtocol::Discover);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[non_exhaustive]
pub enum McpProtocol {
    /// The `initialize` handshake, at revision 2025-11-25 or older.
    #[default]
    #[serde(rename = "2025-11-25")]
    Initialize,
    /// `server/discover`, at revision 2026-07-28.
    #[serde(rename = "2026-07-28")]
    Discover,
    /// `server/discover`, then `initialize` if the server does not know it.
    #[serde(rename = "auto")]
    Auto,
}

impl McpProtocol {
    /// How rmcp's client is to open the conversation.
    pub(crate) fn lifecycle(self) -> ClientLifecycleMode {
        let modern = vec![ProtocolVersion::V_2026_07_28];
        match self {
            McpProtocol::Initialize => ClientLifecycleMode::Initialize,
            McpProtocol::Discover => ClientLifecycleMode::Discover {
                preferred_versions: modern,
            },
            McpProtocol::Auto => ClientLifecycleMode::Auto {
                preferred_versions: modern,
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
        }
    }
}

/// Whether the conversation on `peer` is in the stateless revision (opened
/// with `server/discover`).
pub(crate) fn is_stateless(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|info| !info.protocol_version.has_initialize())
}

/// In the stateless revision, a server sends `notifications/tools/list_changed`
/// (and its prompts' and resources') only on a `subscriptions/listen`
/// request: this opens one and passes each change of the tools to
/// `changed`, of the prompts or resources to `content_changed`, as the `initialize` era's unasked notification
/// is, until `close` is cancelled or the subscription ends; once the
/// subscription is acknowledged the tools are listed again, for a change
/// made before it. A server that
/// refuses the subscription is only logged (`server` names it): its tools
/// are listed again after each restart, as before.
pub(crate) fn follow_tool_changes(
    peer: Peer<RoleClient>,
    server: String,
    close: CancellationToken,
    changed: impl Fn() + Send + 'static,
    content_changed: impl Fn() + Send + 'static,
) {
    tokio::spawn(async move {
        let filter = SubscriptionFilter::builder()
            .tools_list_changed()
            .prompts_list_changed()
            .resources_list_changed()
            .build();
        let mut subscription = tokio::select! {
            _ = close.cancelled() => return,
            opened = peer.listen(filter) => match opened {
                Ok(subscription) => subscription,
                Err(error) => {
                    tracing::debug!(%server, %error, "no subscription to tool-list changes");
                    return;
                }
            },
        };
        // A change between the first listing and the acknowledgement sent
        // no notification: one more listing catches it.
        changed();
        loop {
            let next = tokio::select! {
                _ = close.cancelled() => return,
                next = subscription.next() => next,
            };
            match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                    changed();
                }
                Ok(Some(
                    ServerNotification::PromptListChangedNotification(_)
                    | ServerNotification::ResourceListChangedNotification(_),
                )) => content_changed(),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            }
        }
    });
}
