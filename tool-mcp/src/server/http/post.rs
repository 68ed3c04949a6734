//! Each HTTP request, routed: the head checked first (path, `Host`,
//! `Origin`, media types, size), then, for a POST, its body read under the
//! body timeout, its JSON-RPC envelope and headers checked, and the message
//! handed to the session it belongs to. A request's answer comes back on
//! the POST's own response: one JSON document when the answer is all there
//! is, an event stream when notifications or requests to the client come
//! first. A notification or a response gets `202 Accepted`.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap};
use hyper::{Method, Request, StatusCode};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tool_runtime::ToolContext;

use super::body::{self, Reply};
use super::budget::Held;
use super::headers::{self, HEADER_MISMATCH, Message, SESSION_ID};
use super::routes::{Events, Holder, HttpSession, Out, Route, first_message};
use super::sessions::{self, NoRoom, Shared, StreamsFull};
use super::{MCP_PATH, guard};
use crate::headers::check_headers;
use crate::server::revision::{self, Era, MISSING_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION};
use crate::server::wire::{
    self, INTERNAL_ERROR, INVALID_REQUEST, Id, METHOD_NOT_FOUND, PARSE_ERROR,
};

/// Answers one HTTP request, from `peer`.
pub(super) async fn handle(
    shared: &Arc<Shared>,
    request: Request<Incoming>,
    peer: IpAddr,
) -> Reply {
    if let Err((status, text)) = guard::check(request.headers(), &shared.options) {
        return body::text(status, text);
    }
    #[cfg(feature = "auth")]
    if let Some(reply) = super::authz::metadata(shared, request.method(), request.uri().path()) {
        return reply;
    }
    if request.uri().path() != MCP_PATH {
        return body::text(
            StatusCode::NOT_FOUND,
            format!("not found; the MCP endpoint is {MCP_PATH}"),
        );
    }
    // The access token, checked before anything else is read: the
    // context the request's calls start from, with its caller.
    #[cfg(feature = "auth")]
    let context = match super::authz::check(shared, request.headers()).await {
        Ok(context) => context,
        Err(refusal) => return *refusal,
    };
    #[cfg(not(feature = "auth"))]
    let context = None;
    // A session is its caller's: another's names none.
    let owner = context.as_ref().and_then(ToolContext::owner).cloned();
    match *request.method() {
        Method::POST => post(shared, request, peer, context).await,
        Method::GET => sessions::get(shared, request.headers(), owner.as_ref()),
        Method::DELETE => sessions::delete(shared, request.headers(), owner.as_ref()),
        _ => sessions::not_allowed(shared.options.stateless),
    }
}

/// The refusal of a POST whose head is not one the endpoint takes, if it
/// is not.
fn check_head(shared: &Shared, headers: &HeaderMap) -> Option<Reply> {
    if !headers::accepts_json_and_events(headers) {
        return Some(body::text(
            StatusCode::NOT_ACCEPTABLE,
            "not acceptable: a client must accept both application/json and text/event-stream",
        ));
    }
    if !headers::sends_json(headers) {
        return Some(body::text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported media type: the body must be application/json",
        ));
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > shared.options.max_body as u64) {
        return Some(too_large(shared));
    }
    None
}

fn too_large(shared: &Shared) -> Reply {
    body::text(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!(
            "payload too large: the server reads bodies of at most {} bytes",
            shared.options.max_body
        ),
    )
}

/// A POST, from `peer`: one JSON-RPC message, whose calls start from
/// `context` when it has one (else from the server's).
async fn post(
    shared: &Arc<Shared>,
    request: Request<Incoming>,
    peer: IpAddr,
    context: Option<ToolContext>,
) -> Reply {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    if let Some(refusal) = check_head(shared, headers) {
        return refusal;
    }
    let options = &shared.options;
    let read = Limited::new(body, options.max_body).collect();
    let body = match tokio::time::timeout(options.body_timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) => {
            if error.is::<http_body_util::LengthLimitError>() {
                return too_large(shared);
            }
            return body::text(
                StatusCode::BAD_REQUEST,
                "bad request: the body could not be read",
            );
        }
        Err(_) => {
            return body::text(
                StatusCode::REQUEST_TIMEOUT,
                "request timeout: the body did not arrive in time",
            );
        }
    };
    // A `tools/call`, by far the most frequent, is read once, in one pass,
    // and handed to the session as it is.
    let posted = match wire::decode_call(&body) {
        Some(call) => Posted::call(call),
        None => match Posted::read(&body) {
            Ok(posted) => posted,
            Err(reply) => return *reply,
        },
    };
    posted.dispatch(shared, headers, &body, peer, context).await
}

/// What the transport reads of a message: its kind, id, method and
/// parameters (left as written).
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "given")]
    result: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "given")]
    error: Option<IgnoredAny>,
}

/// A member that is there, `null` included.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

fn given<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<IgnoredAny>, D::Error> {
    IgnoredAny::deserialize(deserializer).map(Some)
}

/// A message's kind.
enum Kind {
    Request(Id),
    Notification,
    Response,
}

/// A POSTed message, read.
struct Posted<'a> {
    kind: Kind,
    method: Option<Cow<'a, str>>,
    /// The parameters as written (a message read generally).
    raw_params: Option<&'a RawValue>,
    /// The parameters, when the checks needed them read.
    params: Option<Map<String, Value>>,
    /// The `tools/call`, when the body was one, read.
    call: Option<wire::Call>,
}

impl<'a> Posted<'a> {
    /// A `tools/call` read by [`wire::decode_call`].
    fn call(call: wire::Call) -> Self {
        Self {
            kind: Kind::Request(call.id.clone()),
            method: Some(Cow::Borrowed("tools/call")),
            raw_params: None,
            params: None,
            call: Some(call),
        }
    }

    /// The message `body` holds, or the answer to give when it holds none
    /// the server can take: `400 Bad Request` with a JSON-RPC error.
    fn read(body: &'a [u8]) -> Result<Self, Box<Reply>> {
        let refuse = |code: i64, message: &str| {
            let reply = body::rpc_error(StatusCode::BAD_REQUEST, None, code, message);
            Err(Box::new(reply))
        };
        let raw: Raw<'a> = match serde_json::from_slice(body) {
            Ok(raw) => raw,
            Err(_) if serde_json::from_slice::<IgnoredAny>(body).is_err() => {
                return refuse(PARSE_ERROR, "parse error: the body is not JSON");
            }
            Err(_) => {
                return refuse(
                    INVALID_REQUEST,
                    "invalid request: the body must be one JSON-RPC message (an object whose \
                     method is a string; batches are not taken)",
                );
            }
        };
        let kind = match (&raw.method, raw.id) {
            (Some(_), Some(id)) => match Id::from_raw(id) {
                Some(id) => Kind::Request(id),
                None => {
                    return refuse(
                        INVALID_REQUEST,
                        "invalid request: `id` must be a string or a number",
                    );
                }
            },
            (Some(_), None) => Kind::Notification,
            (None, Some(_)) if raw.result.is_some() || raw.error.is_some() => Kind::Response,
            (None, _) => {
                return refuse(
                    INVALID_REQUEST,
                    "invalid request: a JSON-RPC message is a request (`method` and `id`), a \
                     notification (`method`) or a response (`id` and `result` or `error`)",
                );
            }
        };
        Ok(Posted {
            kind,
            method: raw.method,
            raw_params: raw.params,
            params: None,
            call: None,
        })
    }

    /// The request's id, for the errors answering it.
    fn id(&self) -> Option<&Id> {
        match &self.kind {
            Kind::Request(id) => Some(id),
            _ => None,
        }
    }

    /// The `_meta` of the parameters, as far as they were read.
    fn meta(&self) -> Option<&Map<String, Value>> {
        match &self.call {
            Some(call) => call.meta.as_ref(),
            None => revision::meta_of(self.params.as_ref()),
        }
    }

    /// What the header checks need of the message.
    fn message(&self) -> Message<'_> {
        match &self.call {
            Some(call) => Message::of_call(&call.name, call.meta.as_ref()),
            None => Message::of(self.method.as_deref(), self.params.as_ref()),
        }
    }

    /// Hands the message to `session`.
    async fn deliver(&mut self, session: &Arc<HttpSession>, body: &[u8]) {
        match self.call.take() {
            Some(call) => session.on_call(call).await,
            None => session.handle_line(body).await,
        }
    }

    /// The name of the tool a `tools/call` calls, when the message is one
    /// and names it.
    #[cfg(feature = "auth")]
    fn called_tool(&self) -> Option<Cow<'_, str>> {
        #[derive(Deserialize)]
        struct Named<'a> {
            #[serde(borrow)]
            name: Cow<'a, str>,
        }
        if let Some(call) = &self.call {
            return Some(Cow::Borrowed(&call.name));
        }
        if self.method.as_deref() != Some("tools/call") {
            return None;
        }
        if let Some(params) = &self.params {
            return params.get("name")?.as_str().map(Cow::Borrowed);
        }
        let named: Named<'_> = serde_json::from_str(self.raw_params?.get()).ok()?;
        Some(named.name)
    }

    /// The refusal of a `tools/call` whose header parameters' headers
    /// (`Mcp-Param-*`, revision 2026-07-28) disagree with its arguments:
    /// `400` and `-32020`, before the tool runs. `None` for anything else,
    /// a tool the registry does not have included (the call is answered
    /// for that).
    fn check_header_params(&self, shared: &Shared, headers: &HeaderMap) -> Option<Reply> {
        let (name, arguments) = match &self.call {
            Some(call) => (
                call.name.as_str(),
                Value::Object(call.arguments.clone().unwrap_or_default()),
            ),
            None if self.method.as_deref() == Some("tools/call") => {
                let params = self.params.as_ref()?;
                let name = params.get("name")?.as_str()?;
                let arguments = params
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                (name, arguments)
            }
            None => return None,
        };
        let registry = shared.registry();
        let tool = registry.resolve(name)?;
        let mismatch =
            check_headers(tool.spec(), &arguments, |header| headers.get(header)).err()?;
        let error = mismatch.json_rpc_error();
        let line = wire::error_line(
            self.id().unwrap_or(&Id::null()),
            HEADER_MISMATCH,
            error["message"].as_str().unwrap_or("header mismatch"),
            error.get("data").cloned(),
        );
        Some(body::json(StatusCode::BAD_REQUEST, line))
    }

    /// Checks the message, from `peer`, against the request's headers, then
    /// hands it to the session it belongs to; its calls start from
    /// `context` when it has one.
    async fn dispatch(
        mut self,
        shared: &Arc<Shared>,
        headers: &HeaderMap,
        body: &[u8],
        peer: IpAddr,
        context: Option<ToolContext>,
    ) -> Reply {
        let session_id = headers.get(SESSION_ID).and_then(|id| id.to_str().ok());
        let version = headers::protocol_version(headers);
        let modern = version.is_some_and(headers::is_modern);
        let sessionless = shared.options.stateless || session_id.is_none();
        // Parameters read generally are read again only when the checks
        // need them: a revision 2026-07-28 request, one without a session,
        // or one whose `_meta` may name a protocol version.
        let read_params = modern
            || sessionless
            || self.raw_params.is_some_and(|params| {
                contains(params.get().as_bytes(), revision::META_VERSION.as_bytes())
            });
        if read_params && let Some(raw) = self.raw_params {
            self.params = serde_json::from_str(raw.get()).ok();
        }
        let message = self.message();
        if let Err(error) = headers::check(headers, version, &message) {
            let line = error.line(self.id().unwrap_or(&Id::null()));
            return body::json(StatusCode::BAD_REQUEST, line);
        }
        if let Some(version) = version
            && message.meta_version.is_none()
            && !headers::is_known(version)
        {
            return body::text(
                StatusCode::BAD_REQUEST,
                format!("bad request: unsupported MCP-Protocol-Version {version:?}"),
            );
        }
        if modern && let Some(refusal) = self.check_header_params(shared, headers) {
            return refusal;
        }
        // A tool whose scopes the token lacks: `403` before dispatch.
        #[cfg(feature = "auth")]
        if let Some(name) = self.called_tool()
            && let Some(refusal) = super::authz::tool_scopes(shared, context.as_ref(), &name)
        {
            return refusal;
        }
        let owner = context.as_ref().and_then(ToolContext::owner);
        let session = match session_id {
            Some(id) if !shared.options.stateless => match shared.find(id, owner) {
                Some(session) => Some(session),
                None => return sessions::unknown_session(),
            },
            _ => None,
        };
        let kind = std::mem::replace(&mut self.kind, Kind::Notification);
        match (kind, session) {
            (Kind::Request(id), Some(session)) => {
                let mut call = Call {
                    id,
                    body,
                    modern,
                    peer,
                    context,
                };
                call.serve(shared, session, false, &mut self).await
            }
            (Kind::Request(id), None) => {
                let call = Call {
                    id,
                    body,
                    modern,
                    peer,
                    context,
                };
                call.sessionless(shared, self).await
            }
            (Kind::Notification, Some(session)) => {
                session.output.touch();
                session.handle_line(body).await;
                if self.method.as_deref() == Some("notifications/cancelled") {
                    cancelled(&session, self.raw_params);
                }
                body::empty(StatusCode::ACCEPTED)
            }
            // Nothing outlasts a request without a session.
            (Kind::Notification, None) => body::empty(StatusCode::ACCEPTED),
            (Kind::Response, Some(session)) => {
                session.output.touch();
                session.handle_line(body).await;
                body::empty(StatusCode::ACCEPTED)
            }
            (Kind::Response, None) => body::rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                INVALID_REQUEST,
                "invalid request: without a session no request of the server's awaits a \
                 response",
            ),
        }
    }
}

/// A `notifications/cancelled` of a session, handed to it already: the
/// response of the request it names ends too.
fn cancelled(session: &HttpSession, params: Option<&RawValue>) {
    #[derive(Deserialize)]
    struct Cancelled<'a> {
        #[serde(borrow, rename = "requestId")]
        request_id: &'a RawValue,
    }
    let cancelled = params.and_then(|raw| serde_json::from_str::<Cancelled>(raw.get()).ok());
    if let Some(id) = cancelled.and_then(|cancelled| Id::from_raw(cancelled.request_id)) {
        session.output.close_route(&id.key());
    }
}

/// A request, to serve.
struct Call<'a> {
    id: Id,
    body: &'a [u8],
    /// It speaks a revision with the standard headers (2026-07-28): its
    /// errors have HTTP statuses of their own.
    modern: bool,
    /// The address it came from.
    peer: IpAddr,
    /// The context its calls start from, when not the server's (the
    /// caller its access token shows, as an extension).
    context: Option<ToolContext>,
}

impl Call<'_> {
    /// A request without a session: `initialize` opens one (or, stateless,
    /// has one of its own); a request of revision 2026-07-28, and any
    /// request of a stateless server, has a session of its own.
    async fn sessionless(mut self, shared: &Arc<Shared>, mut posted: Posted<'_>) -> Reply {
        let stateless = shared.options.stateless;
        if posted.method.as_deref() == Some("initialize") {
            if stateless {
                let session = shared.own_session(false);
                return self.serve(shared, session, true, &mut posted).await;
            }
            return self.initialize(shared).await;
        }
        // Without a session, a request must say its revision in its `_meta`
        // (a stateless server serves the older ones as if initialized).
        if !stateless || self.modern {
            match revision::era(posted.meta(), false) {
                Ok(Era::Stateless(_)) => {
                    let session = shared.own_session(false);
                    return self.serve(shared, session, true, &mut posted).await;
                }
                Ok(Era::Session) if !stateless => {
                    return body::text(
                        StatusCode::BAD_REQUEST,
                        "bad request: the Mcp-Session-Id header is missing (initialize opens a \
                         session)",
                    );
                }
                Ok(Era::Session) => {}
                Err(error) => return body::json(StatusCode::BAD_REQUEST, error.line(&self.id)),
            }
        }
        let session = shared.own_session(true);
        self.serve(shared, session, true, &mut posted).await
    }

    /// `initialize` without a session: a session opens, registered (its id
    /// in `Mcp-Session-Id`) when the answer is a result.
    async fn initialize(self, shared: &Arc<Shared>) -> Reply {
        let session = shared.new_session();
        let Some((mut route, receiver)) = Route::open(&session, &self.id, false, None) else {
            return in_flight(&self.id);
        };
        session.handle_line(self.body).await;
        let Some(Out::Answer(line)) = receiver.recv().await else {
            return body::text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error: initialize was not answered",
            );
        };
        route.answered();
        drop(route);
        if wire::error_code(&line).is_some() {
            return body::json(status_of(&line, self.modern), line);
        }
        let owner = self.context.as_ref().and_then(ToolContext::owner);
        let id = match shared.register(session, self.peer, owner) {
            Ok(id) => id,
            Err(NoRoom::Server) => return too_many_sessions(),
            Err(NoRoom::Caller(limit)) => return too_many_caller_sessions(limit),
        };
        let mut reply = body::json(StatusCode::OK, line);
        if let Ok(value) = id.parse() {
            reply.headers_mut().insert(SESSION_ID, value);
        }
        reply
    }

    /// Serves `posted`, the request, in `session` (its own when
    /// `own_session`) and answers with what it sends.
    async fn serve(
        &mut self,
        shared: &Shared,
        session: Arc<HttpSession>,
        own_session: bool,
        posted: &mut Posted<'_>,
    ) -> Reply {
        let held = match self.admit(shared, &session, own_session, posted) {
            Ok(held) => held,
            Err(refusal) => return *refusal,
        };
        let context = self.context.take();
        let Some((mut route, receiver)) = Route::open(&session, &self.id, own_session, context)
        else {
            return in_flight(&self.id);
        };
        posted.deliver(&session, self.body).await;
        let driver = receiver.take_driver();
        let (first, driver) = tokio::select! {
            first = first_message(&receiver, driver) => first,
            () = shared.shutdown.cancelled() => (None, None),
        };
        match first {
            Some(Out::Answer(line)) => {
                route.answered();
                // What the call does after its answer (nothing that waits).
                if let Some(work) = driver {
                    work.await;
                }
                body::json(status_of(&line, self.modern), line)
            }
            Some(Out::Message(line)) => {
                let holder = Holder::Route(route);
                let events = Events::new(Some(line), receiver, driver, holder);
                body::events(events.limited(held, shared.options.event_stream_lifetime))
            }
            // Cancelled before it sent anything: a stream without events.
            None => body::events(Events::new(None, receiver, None, Holder::Route(route))),
        }
    }

    /// What the request holds of the server's budgets while it is served,
    /// or the answer to give when it is beyond one: a call of a caller a
    /// token showed takes a place under its caller's cap of calls, an
    /// anonymous call without a session (`own_session`) one under its
    /// peer's, a `subscriptions/listen` one under the caps of event streams
    /// (the server's, and its session's when it has one).
    fn admit(
        &self,
        shared: &Shared,
        session: &HttpSession,
        own_session: bool,
        posted: &Posted<'_>,
    ) -> Result<Held, Box<Reply>> {
        let caller = self.context.as_ref().and_then(ToolContext::owner);
        match (posted.method.as_deref(), caller) {
            (Some("tools/call"), Some(caller)) => match shared.caller_calls.take(caller.clone()) {
                Some(slot) => Ok(Held {
                    _caller_call: Some(slot),
                    ..Held::default()
                }),
                None => Err(Box::new(self.caller_busy(shared.caller_calls.max()))),
            },
            (Some("tools/call"), None) if own_session => match shared.calls.take(self.peer) {
                Some(slot) => Ok(Held {
                    _call: Some(slot),
                    ..Held::default()
                }),
                None => {
                    let limit = shared.calls.max();
                    let message = format!(
                        "server busy: this client (its address) already runs {limit} calls \
                         without a session, the server's limit; send the call again once one \
                         has finished"
                    );
                    let data = serde_json::json!({"maxConcurrentCalls": limit});
                    Err(Box::new(self.busy(&message, data)))
                }
            },
            (Some("subscriptions/listen"), _) => {
                let session = (!own_session).then_some(session);
                shared.stream_slot(session).map_err(|full| {
                    let StreamsFull { name, max } = full;
                    let message = format!(
                        "server busy: {max} event streams are open, the most the server allows \
                         ({name}); listen again later"
                    );
                    Box::new(self.busy(&message, serde_json::json!({ name: max })))
                })
            }
            _ => Ok(Held::default()),
        }
    }

    /// The JSON-RPC error `-32603` ("server busy") with `data`, answering
    /// the request.
    fn busy(&self, message: &str, data: Value) -> Reply {
        let line = wire::error_line(&self.id, INTERNAL_ERROR, message, Some(data));
        body::json(status_of(&line, self.modern), line)
    }

    /// `429 Too Many Requests`, `Retry-After: 1`, with the JSON-RPC error
    /// `-32603` naming the caller's cap of calls, `limit`.
    fn caller_busy(&self, limit: usize) -> Reply {
        let message = format!(
            "too many requests: this caller already runs {limit} calls, its limit \
             (maxCallsPerCaller); send the call again once one has finished"
        );
        let data = serde_json::json!({"maxCallsPerCaller": limit});
        let line = wire::error_line(&self.id, INTERNAL_ERROR, &message, Some(data));
        let mut reply = body::json(StatusCode::TOO_MANY_REQUESTS, line);
        reply
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        reply
    }
}

/// The status of an answer given as JSON: `200 OK`, but in revision
/// 2026-07-28 `404` for a method the server does not have and `400` for a
/// request the server cannot take (a header mismatch, a missing client
/// capability, an unsupported protocol version).
fn status_of(line: &[u8], modern: bool) -> StatusCode {
    if !modern {
        return StatusCode::OK;
    }
    match wire::error_code(line) {
        Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(headers::HEADER_MISMATCH | MISSING_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// A request whose id is that of a request of the session still in flight.
fn in_flight(id: &Id) -> Reply {
    let message = format!(
        "invalid request: the id {} is that of a request still in flight; each request needs \
         an id of its own",
        wire::cut(id.text())
    );
    body::rpc_error(StatusCode::OK, Some(id), INVALID_REQUEST, &message)
}

/// `429 Too Many Requests` for an `initialize` of a caller that holds its
/// share of sessions, `limit`, each in use.
fn too_many_caller_sessions(limit: usize) -> Reply {
    let mut reply = body::text(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "too many requests: this caller has {limit} MCP sessions open, its limit \
             (maxSessionsPerCaller), each in use; end one (DELETE) or try again later"
        ),
    );
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
    reply
}

fn too_many_sessions() -> Reply {
    body::text(
        StatusCode::SERVICE_UNAVAILABLE,
        "service unavailable: the server has as many MCP sessions open as it allows; try again \
         later",
    )
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}
