//! One request to a server and its answer, in rounds: a `tools/call`,
//! `prompts/get` or `resources/read` that a server of revision 2026-07-28
//! answers `input_required` has the server's requests answered by the
//! caller's client ([`ToolContext::client`]) and is sent again with the
//! answers, up to [`MAX_INPUT_ROUNDS`] times. Any request waits for its
//! answer within the caller's cancellation and the time limit, and one
//! whose caller goes away is cancelled at the server.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    GetPromptRequest, GetPromptRequestParams, InputRequests, InputRequiredResult, InputResponses,
    ReadResourceRequest, ReadResourceRequestParams, RequestId, ServerResult,
};
use rmcp::service::{Peer, RoleClient};
use serde_json::Value;
use tokio::time::Instant;
use tool_runtime::ToolContext;

use super::connection::Live;
use super::listing::{self, Failure};
use super::requests::{self, MAX_INPUT_ROUNDS};
use super::shared::Shared;
use super::{McpClient, McpClientError, McpClientErrorKind, limits};

/// The parameters of a request a server may answer `input_required`.
pub(crate) trait Asking: Clone {
    /// The request.
    fn request(self) -> ClientRequest;
    /// The same, with the caller's answers to the last round's requests
    /// and the state the server gave with them.
    fn answered(&mut self, responses: Option<InputResponses>, state: Option<String>);
}

impl Asking for CallToolRequestParams {
    fn request(self) -> ClientRequest {
        ClientRequest::CallToolRequest(CallToolRequest::new(self))
    }

    fn answered(&mut self, responses: Option<InputResponses>, state: Option<String>) {
        self.input_responses = responses;
        self.request_state = state;
    }
}

impl Asking for GetPromptRequestParams {
    fn request(self) -> ClientRequest {
        ClientRequest::GetPromptRequest(GetPromptRequest::new(self))
    }

    fn answered(&mut self, responses: Option<InputResponses>, state: Option<String>) {
        self.input_responses = responses;
        self.request_state = state;
    }
}

impl Asking for ReadResourceRequestParams {
    fn request(self) -> ClientRequest {
        ClientRequest::ReadResourceRequest(ReadResourceRequest::new(self))
    }

    fn answered(&mut self, responses: Option<InputResponses>, state: Option<String>) {
        self.input_responses = responses;
        self.request_state = state;
    }
}

impl Live {
    /// Sends the request of `params` and waits for the answer, the
    /// caller's cancellation or the time limit. A server that answers
    /// `input_required` (revision 2026-07-28) has its requests answered by
    /// `ctx`'s client and is asked again with the answers, up to
    /// [`MAX_INPUT_ROUNDS`] times.
    pub(crate) async fn ask<A: Asking>(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        mut params: A,
        ctx: &ToolContext,
        deadline: Instant,
    ) -> CallEnd {
        for _ in 0..MAX_INPUT_ROUNDS {
            let request = params.clone().request();
            let asked = match self.round(shared, request, ctx, deadline, true).await {
                Round::End(end) => return end,
                Round::InputRequired(asked) => asked,
            };
            let answers = tokio::select! {
                answers = answer_all(ctx, asked.input_requests.unwrap_or_default()) => answers,
                () = ctx.cancelled() => return CallEnd::Cancelled,
                () = tokio::time::sleep_until(deadline) => return CallEnd::TimedOut,
            };
            match answers {
                // Echoed as the server wrote it, and only when it wrote one.
                Ok(answers) => params.answered(
                    (!answers.is_empty()).then_some(answers),
                    asked.request_state,
                ),
                Err(message) => return CallEnd::Unanswered(message),
            }
        }
        CallEnd::Protocol(format!(
            "the server asked for input {MAX_INPUT_ROUNDS} times without answering"
        ))
    }

    /// Sends `request`, which the server answers in one round (a list, a
    /// completion): an `input_required` answer to it is a protocol error.
    pub(crate) async fn once(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        request: ClientRequest,
        ctx: &ToolContext,
        deadline: Instant,
    ) -> CallEnd {
        match self.round(shared, request, ctx, deadline, false).await {
            Round::End(end) => end,
            Round::InputRequired(_) => CallEnd::Protocol(
                "the server asked for input, which this request takes none of".into(),
            ),
        }
    }

    /// One request and its answer; the server's requests made on its
    /// stream go to `ctx`'s client when `asking` (a request that may ask:
    /// a call, a prompt, a read; a list is not counted, so that a request
    /// on no call's stream still finds the one call in flight).
    async fn round(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        request: ClientRequest,
        ctx: &ToolContext,
        deadline: Instant,
        asking: bool,
    ) -> Round {
        let mut handle = match self
            .peer
            .send_request_with_option(request, Default::default())
            .await
        {
            Ok(handle) => handle,
            Err(error) => return Round::End(CallEnd::Failed(error.to_string())),
        };
        let id = handle.id.clone();
        let progress = shared.watch_progress(handle.progress_token.clone(), ctx.progress_handle());
        // The server's requests on this request's stream go to the caller.
        let _asking = asking.then(|| shared.route_requests(id.clone(), ctx.client().cloned()));
        // Dropped before the answer (the caller's future dropped):
        // `notifications/cancelled`.
        let mut abandoned = Abandoned {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        enum Outcome {
            /// The answer, or `None` when the connection closed first.
            Answer(Option<Box<Result<ServerResult, rmcp::ServiceError>>>),
            Cancelled,
            TimedOut,
        }
        let outcome = tokio::select! {
            answer = &mut handle.rx => Outcome::Answer(answer.ok().map(Box::new)),
            () = ctx.cancelled() => Outcome::Cancelled,
            () = tokio::time::sleep_until(deadline) => Outcome::TimedOut,
        };
        abandoned.id = None;
        let answer = match outcome {
            Outcome::Answer(answer) => answer.map(|answer| *answer),
            Outcome::Cancelled => {
                let _ = handle.cancel(Some("cancelled by the caller".into())).await;
                return Round::End(CallEnd::Cancelled);
            }
            Outcome::TimedOut => {
                let reason = "the client stopped waiting (time limit)";
                let _ = handle.cancel(Some(reason.into())).await;
                return Round::End(CallEnd::TimedOut);
            }
        };
        Round::End(match answer {
            Some(Ok(ServerResult::InputRequiredResult(asked))) => {
                return Round::InputRequired(asked);
            }
            Some(Ok(result)) => {
                progress.settle().await;
                CallEnd::Result(Box::new(result))
            }
            Some(Err(rmcp::ServiceError::TransportClosed)) | None => CallEnd::Closed,
            Some(Err(error)) => {
                let failure = listing::failure(shared, Some(&id), &error, "its answer");
                match (failure, error) {
                    (Failure::Limit(message), _) => CallEnd::Limit(message),
                    (Failure::Failed(message), rmcp::ServiceError::McpError(_)) => {
                        CallEnd::Protocol(message)
                    }
                    (Failure::Failed(message), _) => CallEnd::Failed(message),
                }
            }
        })
    }
}

/// How one round of a request ended.
enum Round {
    End(CallEnd),
    /// The server needs the caller's input first (revision 2026-07-28).
    InputRequired(InputRequiredResult),
}

/// The caller's answers to the server's `input_required` requests, by key;
/// or why the request cannot go on.
async fn answer_all(ctx: &ToolContext, requests: InputRequests) -> Result<InputResponses, String> {
    let mut answers = InputResponses::new();
    for (key, request) in requests {
        let (method, params) = match serde_json::to_value(&request) {
            Ok(Value::Object(mut request)) => (
                request
                    .remove("method")
                    .and_then(|method| method.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                request.remove("params").unwrap_or(Value::Null),
            ),
            _ => return Err("the server's request for input cannot be read".to_owned()),
        };
        let answer = requests::answer(ctx.client(), &method, params).await?;
        answers.insert(key, answer);
    }
    Ok(answers)
}

/// How one request (a `tools/call`, a `prompts/get`, a list...) ended.
pub(crate) enum CallEnd {
    /// The server's answer (never `input_required`).
    Result(Box<ServerResult>),
    /// A JSON-RPC error from the server (its message escaped and cut
    /// short).
    Protocol(String),
    /// The answer was over a limit: the message says which.
    Limit(String),
    /// The connection closed before the answer.
    Closed,
    /// The request could not be sent, or the transport failed.
    Failed(String),
    /// The server asked for input the caller could not give: why.
    Unanswered(String),
    Cancelled,
    TimedOut,
}

/// Sends `notifications/cancelled` for a request whose caller went away.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = Some("the caller stopped waiting".to_owned());
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), reason))
                .await;
        });
    }
}

impl McpClient {
    /// The answer `end` to the request about `what` ("the call to `echo`",
    /// say), or the error naming the server it is; `who` is what did not
    /// answer in time ("`echo`"). A failure that may be the connection's
    /// has the server pinged (and restarted when it does not answer).
    pub(crate) fn answer_of(
        &self,
        live: &Arc<Live>,
        end: CallEnd,
        (what, who): (&str, &str),
    ) -> Result<ServerResult, McpClientError> {
        let timeout = self.inner.options.call_timeout;
        match end {
            CallEnd::Result(result) => Ok(*result),
            CallEnd::Limit(message) => Err(self.error(
                McpClientErrorKind::Limit,
                format!("{what} failed: {message}"),
            )),
            CallEnd::Protocol(message) | CallEnd::Unanswered(message) => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: {message}"),
            )),
            CallEnd::Closed => {
                live.check_health(self.name());
                let why = if self.inner.shared.http {
                    // rmcp's HTTP transport closes on a response over its
                    // size limit.
                    format!(
                        "did the server go away, or send more than {}, the limit \
                         `max_result_bytes`?",
                        limits::bytes(self.inner.options.limits.max_result_bytes)
                    )
                } else {
                    "did the server exit?".to_owned()
                };
                Err(self.error(
                    McpClientErrorKind::Closed,
                    format!(
                        "the connection closed during {what} ({why}); \
                         the client connects again, restarting a spawned server"
                    ),
                ))
            }
            CallEnd::Failed(message) => {
                if let Some(why) = self.inner.shared.authorization_failure() {
                    return Err(self.error(
                        McpClientErrorKind::Auth,
                        format!("{what} could not be authorized: {why}"),
                    ));
                }
                live.check_health(self.name());
                Err(self.error(
                    McpClientErrorKind::Closed,
                    format!("{what} failed: {message}"),
                ))
            }
            CallEnd::Cancelled => Err(self.error(
                McpClientErrorKind::Cancelled,
                format!("{what} was cancelled"),
            )),
            CallEnd::TimedOut => {
                live.check_health(self.name());
                Err(self.error(
                    McpClientErrorKind::TimedOut,
                    format!("{who} did not answer within {timeout:?}"),
                ))
            }
        }
    }
}
