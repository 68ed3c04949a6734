//! `subscriptions/listen` (revision 2026-07-28): a request that stays in
//! flight and brings the notifications the client asked for, each marked
//! with the subscription's id (the request's). The server honours
//! `toolsListChanged`, the only list it has; other kinds are left out of
//! the acknowledgement and never sent.
//!
//! The subscription ends when the client cancels the request
//! (`notifications/cancelled`, no answer), or when the session ends or
//! the transport ends its stream (at the end of its lifetime, over HTTP):
//! then the server answers the request with an empty `complete` result,
//! its graceful close, and the client may listen again.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tool_runtime::context::CancellationToken;

use super::output::Outbox;
use super::revision::{self, META_SERVER_INFO};
use super::session::{Session, lock};
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
        let tools = filter.get("toolsListChanged") == Some(&Value::Bool(true));
        let key = id.key().into_owned();
        let cancelled = CancellationToken::new();
        if let Err(error) = self.admit(&key, &cancelled, false) {
            return self.answer(error.line(&id), &id).await;
        }
        lock(&self.listens).insert(key.clone(), id.clone());
        let mut honoured = Map::new();
        if tools {
            honoured.insert("toolsListChanged".into(), Value::Bool(true));
        }
        let ack = Params {
            meta: SubscriptionMeta {
                id: &id,
                server: None,
            },
            notifications: Some(&honoured),
        };
        let line = wire::notification_line("notifications/subscriptions/acknowledged", ack);
        self.send(line, Some(&id)).await;
        let session = Arc::clone(self);
        tokio::spawn(async move {
            session.deliver(&id, tools, &cancelled).await;
            lock(&session.listens).remove(&key);
            session.finish(&key, false);
        });
    }

    /// Sends subscription `id` a `notifications/tools/list_changed` at each
    /// change to the tools when it asked for them (`tools`), until
    /// `cancelled`.
    async fn deliver(&self, id: &Id, tools: bool, cancelled: &CancellationToken) {
        let mut changes = self.server.registry.subscribe();
        loop {
            tokio::select! {
                changed = changes.changed(), if tools => {
                    if changed.is_err() {
                        // The tools never change again: wait for the end.
                        cancelled.cancelled().await;
                        return;
                    }
                    let params = Params {
                        meta: SubscriptionMeta { id, server: None },
                        notifications: None,
                    };
                    let line = wire::notification_line("notifications/tools/list_changed", params);
                    self.send(line, Some(id)).await;
                }
                () = cancelled.cancelled() => return,
            }
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
