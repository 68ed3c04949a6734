//! `subscriptions/listen` (revision 2026-07-28): a request that stays in
//! flight and brings the notifications the client asked for, each marked
//! with the subscription's id (the request's). The server honours
//! `toolsListChanged`, and `promptsListChanged`, `resourcesListChanged`
//! and `resourceSubscriptions` (the URIs whose
//! `notifications/resources/updated` it wants, at most the server's
//! [`max_subscriptions`](super::McpServer::with_max_subscriptions)) when
//! it serves prompts and resources; other kinds are left out of the
//! acknowledgement and never sent.
//!
//! The subscription ends when the client cancels the request
//! (`notifications/cancelled`, no answer), or when the session ends or
//! the transport ends its stream (at the end of its lifetime, over HTTP):
//! then the server answers the request with an empty `complete` result,
//! its graceful close, and the client may listen again.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::broadcast;
use tool_runtime::context::CancellationToken;

use super::output::Outbox;
use super::revision::{self, META_SERVER_INFO};
use super::session::{Session, ToolChanges, lock};
use super::wire::{self, Id, RpcError};

/// The `_meta` of a subscription's messages: its id (and, on its closing
/// result, the server's name).
#[derive(Serialize)]
struct SubscriptionMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    id: &'a Id,
    #[serde(
        rename = "io.modelcontextprotocol/serverInfo",
        skip_serializing_if = "Option::is_none"
    )]
    server: Option<Value>,
}

/// The parameters of a subscription's notifications.
#[derive(Serialize)]
struct Params<'a> {
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    notifications: Option<&'a Map<String, Value>>,
    /// The URI of a `notifications/resources/updated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
}

/// The notifications a subscription asked for that the server sends.
struct Kinds {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// The URIs whose updates it wants.
    updated: HashSet<String>,
}

/// Waits for the next change of `changes`, if there is one to wait for;
/// `false` once it can change no more.
pub(super) async fn changed<T>(changes: &mut Option<tokio::sync::watch::Receiver<T>>) -> bool {
    match changes {
        Some(changes) => changes.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}

/// A subscription's closing result.
#[derive(Serialize)]
struct Closed<'a> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: SubscriptionMeta<'a>,
}

impl<O: Outbox> Session<O> {
    /// `subscriptions/listen`: acknowledges what it will send, then sends
    /// it until the subscription ends.
    pub(super) async fn listen(self: &Arc<Self>, id: Id, params: Option<Map<String, Value>>) {
        let filter = params
            .as_ref()
            .and_then(|params| params.get("notifications"))
            .and_then(Value::as_object);
        let Some(filter) = filter else {
            let error = RpcError::invalid_params(
                "invalid params for subscriptions/listen: `notifications` must be an object \
                 naming the notifications wanted, such as {\"toolsListChanged\": true}",
            );
            return self.answer(error.line(&id), &id).await;
        };
        let wants = |kind: &str| filter.get(kind) == Some(&Value::Bool(true));
        let updated = match self.resource_subscriptions(filter) {
            Ok(updated) => updated,
            Err(error) => return self.answer(error.line(&id), &id).await,
        };
        let kinds = Kinds {
            tools: wants("toolsListChanged"),
            prompts: wants("promptsListChanged") && self.server.prompts.is_some(),
            resources: wants("resourcesListChanged") && self.server.resources.is_some(),
            updated,
        };
        let key = id.key().into_owned();
        let cancelled = CancellationToken::new();
        if let Err(error) = self.admit(&key, &cancelled, false) {
            return self.answer(error.line(&id), &id).await;
        }
        lock(&self.listens).insert(key.clone(), id.clone());
        let mut honoured = Map::new();
        let named = [
            ("toolsListChanged", kinds.tools),
            ("promptsListChanged", kinds.prompts),
            ("resourcesListChanged", kinds.resources),
        ];
        for (kind, _) in named.into_iter().filter(|(_, wanted)| *wanted) {
            honoured.insert(kind.into(), Value::Bool(true));
        }
        if !kinds.updated.is_empty() {
            let mut uris: Vec<&str> = kinds.updated.iter().map(String::as_str).collect();
            uris.sort();
            honoured.insert("resourceSubscriptions".into(), uris.into());
        }
        let ack = Params {
            meta: SubscriptionMeta {
                id: &id,
                server: None,
            },
            notifications: Some(&honoured),
            uri: None,
        };
        let line = wire::notification_line("notifications/subscriptions/acknowledged", ack);
        self.send(line, Some(&id)).await;
        let session = Arc::clone(self);
        tokio::spawn(async move {
            session.deliver(&id, kinds, &cancelled).await;
            lock(&session.listens).remove(&key);
            session.finish(&key, false);
        });
    }

    /// The `resourceSubscriptions` of a listen's `filter`: none when the
    /// server serves no resources; `-32602` when not a list of strings, or
    /// longer than the server's limit.
    fn resource_subscriptions(
        &self,
        filter: &Map<String, Value>,
    ) -> Result<HashSet<String>, RpcError> {
        let uris = match filter.get("resourceSubscriptions") {
            None | Some(Value::Null) => return Ok(HashSet::new()),
            Some(Value::Array(uris)) if uris.iter().all(Value::is_string) => uris,
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "invalid params for subscriptions/listen: `resourceSubscriptions` must be \
                     a list of resource URIs",
                ));
            }
        };
        let limit = self.server.limits.max_subscriptions;
        if uris.len() > limit {
            return Err(RpcError::invalid_params(format!(
                "invalid params for subscriptions/listen: at most {limit} \
                 resourceSubscriptions, the server's limit"
            ))
            .with_data(serde_json::json!({"maxSubscriptions": limit})));
        }
        if self.server.resources.is_none() {
            return Ok(HashSet::new());
        }
        Ok(uris
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect())
    }

    /// Sends subscription `id` a `notifications/tools/list_changed` at each
    /// change to the tools when it asked for them, the same of prompts and
    /// resources, and `notifications/resources/updated` for the URIs it
    /// subscribed to (`kinds`), until `cancelled`. Updates lost by a slow
    /// subscription become one `notifications/resources/list_changed`.
    async fn deliver(&self, id: &Id, kinds: Kinds, cancelled: &CancellationToken) {
        let mut tools = kinds.tools.then(|| ToolChanges::of(&self.server));
        let server = &self.server;
        let prompts = server.prompts.as_ref().map(|prompts| prompts.changes());
        let mut prompts = prompts.filter(|_| kinds.prompts);
        let resources = server
            .resources
            .as_ref()
            .map(|resources| resources.changes());
        let mut resources = resources.filter(|_| kinds.resources);
        let updates = server
            .resources
            .as_ref()
            .map(|resources| resources.updates());
        let mut updates = updates.filter(|_| !kinds.updated.is_empty());
        loop {
            let mut uri = None;
            let method = tokio::select! {
                more = async {
                    match &mut tools {
                        Some(tools) => tools.changed().await,
                        None => std::future::pending().await,
                    }
                } => {
                    if !more { tools = None; continue; }
                    "notifications/tools/list_changed"
                }
                more = changed(&mut prompts) => {
                    if !more { prompts = None; continue; }
                    "notifications/prompts/list_changed"
                }
                more = changed(&mut resources) => {
                    if !more { resources = None; continue; }
                    "notifications/resources/list_changed"
                }
                update = async {
                    match &mut updates {
                        Some(updates) => updates.recv().await,
                        None => std::future::pending().await,
                    }
                } => match update {
                    Ok(updated) if kinds.updated.contains(&updated) => {
                        uri = Some(updated);
                        "notifications/resources/updated"
                    }
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        "notifications/resources/list_changed"
                    }
                    Err(broadcast::error::RecvError::Closed) => { updates = None; continue; }
                },
                () = cancelled.cancelled() => return,
            };
            let params = Params {
                meta: SubscriptionMeta { id, server: None },
                notifications: None,
                uri: uri.as_deref(),
            };
            self.send(wire::notification_line(method, params), Some(id))
                .await;
        }
    }

    /// Ends every open subscription with its closing result (the session
    /// ends).
    pub(super) async fn close_subscriptions(&self) {
        let open: Vec<Id> = lock(&self.listens).values().cloned().collect();
        for id in open {
            self.close_subscription(&id).await;
        }
    }

    /// Ends subscription `id`, if it is open, with its closing result.
    pub(super) async fn close_subscription(&self, id: &Id) {
        if !lock(&self.listens).contains_key(&*id.key()) {
            return;
        }
        let info = revision::result_meta(&self.server, None)
            .remove(META_SERVER_INFO)
            .unwrap_or_default();
        let closed = Closed {
            result_type: "complete",
            meta: SubscriptionMeta {
                id,
                server: Some(info),
            },
        };
        self.answer(wire::result_line(id, closed), id).await;
        self.cancel_in_flight(id);
    }
}
