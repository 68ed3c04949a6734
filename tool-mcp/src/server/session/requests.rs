//! A session's requests to its client, in the revisions with sessions: the
//! tools' sampling, elicitation and roots requests go to the client as
//! requests of the server's (ids 0, 1, 2, ...), each belonging to the call
//! that made it (over streamable HTTP it goes out on that call's
//! response), and the client's responses come back to the tool that asked.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tool_runtime::ToolError;

use super::{Session, lock};
use crate::server::output::Outbox;
use crate::server::peer;
use crate::server::wire::{self, Id};

impl<O: Outbox> Session<O> {
    /// A response of the client's to one of the server's requests.
    pub(super) fn on_response(&self, id: &Value, mut message: Map<String, Value>) {
        let Some(waiting) = id.as_u64().and_then(|id| lock(&self.pending).remove(&id)) else {
            tracing::debug!(%id, "dropping a response to no request of the server's");
            return;
        };
        let answer = match message.remove("result") {
            Some(result) => Ok(result),
            None => {
                let error = message.remove("error").unwrap_or_default();
                let text = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned);
                Err(text)
            }
        };
        let _ = waiting.send(answer);
    }

    /// Sends the client request `method` for call `call` (when the output
    /// routes by request) and waits for its answer: the result, or the
    /// error's message.
    async fn request(
        &self,
        call: Option<&Id>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        // Forgotten if the tool stops waiting.
        let _forget = Forget(self, id);
        self.send(wire::request_line(&Id::from_u64(id), method, params), call)
            .await;
        answered
            .await
            .map_err(|_| "the session ended before the client answered".to_owned())?
    }

    /// An error unless the client declared the capability `name`.
    fn require(&self, name: &str) -> Result<(), ToolError> {
        let declared = lock(&self.client)
            .as_ref()
            .is_some_and(|capabilities| capabilities.contains_key(name));
        if declared {
            Ok(())
        } else {
            Err(peer::unavailable(name))
        }
    }
}

/// Takes request `.1` off the pending ones when dropped.
struct Forget<'a, O: Outbox>(&'a Session<O>, u64);

impl<O: Outbox> Drop for Forget<'_, O> {
    fn drop(&mut self) {
        lock(&self.0.pending).remove(&self.1);
    }
}

/// How a session asks its client ([`peer::Ask`]) its calls' sampling,
/// elicitation and roots requests: for one call (whose requests then belong
/// to it), or for every call. Weak: the session holds the contexts that
/// hold it.
pub(super) struct SessionClient<O: Outbox> {
    pub(super) session: Weak<Session<O>>,
    /// The call whose requests these are, if one.
    pub(super) call: Option<Id>,
}

impl<O: Outbox> SessionClient<O> {
    fn session(&self) -> Result<Arc<Session<O>>, ToolError> {
        self.session
            .upgrade()
            .ok_or_else(|| ToolError::new("the MCP session has ended"))
    }
}

impl<O: Outbox> peer::Ask for SessionClient<O> {
    async fn ask(&self, request: peer::Request) -> Result<Value, ToolError> {
        let session = self.session()?;
        session.require(request.capability)?;
        session
            .request(self.call.as_ref(), request.method, request.params)
            .await
            .map_err(|error| peer::failed(request.capability, error))
    }
}
