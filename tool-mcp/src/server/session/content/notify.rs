//! What a session of revision 2025-11-25 is told of the server's resources
//! and prompts: `notifications/resources/list_changed` and
//! `notifications/prompts/list_changed` at each change (once
//! `notifications/initialized` came), and `notifications/resources/updated`
//! for the URIs it subscribed to.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Map, json};
use tokio::sync::broadcast;

use crate::server::output::Outbox;
use crate::server::session::Session;
use crate::server::subscriptions::changed;
use crate::server::wire;

impl<O: Outbox> Session<O> {
    /// Tells the client of every change to the resources and prompts, and
    /// of the updates of the resources it subscribed to, from now until
    /// the session ends; once per session.
    pub(in crate::server) fn watch_content(self: &Arc<Self>) {
        let server = &self.server;
        if (server.resources.is_none() && server.prompts.is_none())
            || self.content.watching.swap(true, Ordering::Relaxed)
        {
            return;
        }
        let mut resources = server.resources.as_ref().map(|r| r.changes());
        let mut prompts = server.prompts.as_ref().map(|p| p.changes());
        let mut updates = server.resources.as_ref().map(|r| r.updates());
        let session = Arc::downgrade(self);
        let closed = self.closed.clone();
        tokio::spawn(async move {
            loop {
                let line = tokio::select! {
                    more = changed(&mut resources) => {
                        if !more { resources = None; continue; }
                        wire::notification_line("notifications/resources/list_changed", Map::new())
                    }
                    more = changed(&mut prompts) => {
                        if !more { prompts = None; continue; }
                        wire::notification_line("notifications/prompts/list_changed", Map::new())
                    }
                    update = async {
                        match &mut updates {
                            Some(updates) => updates.recv().await,
                            None => std::future::pending().await,
                        }
                    } => match update {
                        Ok(uri) => {
                            let Some(session) = session.upgrade() else { break };
                            if !session.subscribed(&uri) {
                                continue;
                            }
                            wire::notification_line("notifications/resources/updated", json!({"uri": uri}))
                        }
                        // Updates were lost: the whole list may have changed.
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            wire::notification_line("notifications/resources/list_changed", Map::new())
                        }
                        Err(broadcast::error::RecvError::Closed) => { updates = None; continue; }
                    },
                    () = closed.cancelled() => break,
                };
                let Some(session) = session.upgrade() else {
                    break;
                };
                session.send(line, None).await;
            }
        });
    }
}
