//! The server's resources, prompts and completion: the methods of
//! [`Resources`](crate::resources::Resources) and
//! [`Prompts`](crate::prompts::Prompts) a server serves
//! ([`McpServer::with_resources`], [`McpServer::with_prompts`]), in either
//! era.
//!
//! What each request gets:
//!
//! - The lists (`resources/templates/list`, `prompts/list`) and
//!   `resources/subscribe`/`unsubscribe` are answered at once; the lists
//!   are one page each (a `cursor` the server never gave is refused,
//!   `-32602`). `resources/list`, one page too, asks the templates for
//!   their members (a program's code), so it runs as a read does, below.
//! - `resources/read`, `prompts/get` and `completion/complete` run a
//!   program's code: each runs as a call does, on a task of its own,
//!   counted against the server's limit of calls at once, and stopped by
//!   `notifications/cancelled` (with no answer).
//! - A method of what the server does not serve is not found (`-32601`);
//!   but in revision 2026-07-28, whose `server/discover` always declares
//!   prompts and resources, the lists are empty and every URI is unknown
//!   (`-32602`, SEP-2164).
//! - Results of revision 2026-07-28 carry their `resultType` and the
//!   server's `_meta`; lists and reads their caching hints (`ttlMs`,
//!   `cacheScope`). Resource subscriptions there go through
//!   `subscriptions/listen`: `resources/subscribe` is not found.

mod completion;
mod notify;
mod prompts;
mod resources;
#[cfg(feature = "skills")]
mod skills;

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use tool_runtime::ToolContext;
use tool_runtime::context::CancellationToken;

use super::Session;
use crate::server::McpServer;
use crate::server::mrtr;
use crate::server::output::Outbox;
use crate::server::revision::{self, Caching, RequestMeta};
use crate::server::wire::{self, Call, Id, METHOD_NOT_FOUND, RpcError, quoted};

/// What a session keeps of its resources: the URIs it subscribed to
/// (revision 2025-11-25), and whether it is told of changes already.
#[derive(Default)]
pub(in crate::server) struct SessionContent {
    subscribed: Mutex<HashSet<String>>,
    watching: AtomicBool,
}

/// Whether `method` is one of this module's.
pub(super) fn serves(method: &str) -> bool {
    matches!(
        method,
        "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
    ) || (cfg!(feature = "skills")
        && matches!(
            method,
            "skills/list" | "skills/get" | "resources/directory/read"
        ))
}

/// Whether `server` serves `method` (one of [`serves`]).
fn served(server: &McpServer, method: &str) -> bool {
    match method.split('/').next() {
        Some("resources") => server.resources.is_some(),
        Some("prompts") => server.prompts.is_some(),
        _ => server.resources.is_some() || server.prompts.is_some(),
    }
}

/// `-32602` for a list's `cursor`: every list is one page, so the server
/// never gives one.
fn refuse_cursor(method: &str, params: Option<&Map<String, Value>>) -> Result<(), RpcError> {
    match params.and_then(|params| params.get("cursor")) {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(RpcError::invalid_params(format!(
            "invalid params for {method}: unknown cursor (the list is one page, with no \
             nextCursor)"
        ))),
    }
}

/// The string parameter `key` of `method`, or `-32602`.
fn string_param<'a>(
    method: &str,
    params: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<&'a str, RpcError> {
    params
        .and_then(|params| params.get(key))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params(format!(
                "invalid params for {method}: `{key}` must be a string"
            ))
        })
}

/// A result of `method` for `era`: in revision 2026-07-28 with its
/// `resultType`, the server's `_meta`, and `caching` hints when it may be
/// cached.
fn shape(
    server: &McpServer,
    mut result: Value,
    stateless: bool,
    caching: Option<Caching>,
) -> Value {
    if stateless {
        revision::complete(server, &mut result);
        if let Some(caching) = caching {
            result["ttlMs"] = caching.ttl_ms.into();
            result["cacheScope"] = caching.cache_scope.into();
        }
    }
    result
}

impl<O: Outbox> Session<O> {
    /// A request of this module's `method` ([`serves`]), of revision
    /// 2026-07-28 when it has that revision's `meta`.
    pub(super) async fn content_request(
        self: &Arc<Self>,
        id: Id,
        method: &str,
        params: Option<Map<String, Value>>,
        meta: Option<RequestMeta>,
    ) {
        let stateless = meta.is_some();
        #[cfg(feature = "skills")]
        if skills::serves(method) {
            return self.skills_request(id, method, params, stateless).await;
        }
        let subscription = matches!(method, "resources/subscribe" | "resources/unsubscribe");
        if stateless && subscription {
            let error = revision::not_in_stateless(method);
            return self.answer(error.line(&id), &id).await;
        }
        let server = &self.server;
        let listing = matches!(
            method,
            "resources/list" | "resources/templates/list" | "prompts/list"
        );
        let unserved = !served(server, method);
        if unserved && !(stateless && (listing || method == "resources/read")) {
            let message = format!("method not found: {}", quoted(method));
            let error = RpcError::new(METHOD_NOT_FOUND, message);
            return self.answer(error.line(&id), &id).await;
        }
        // resources/list asks the templates for their members: it runs as
        // a read does.
        if (listing && method != "resources/list") || subscription {
            let answer = if listing {
                refuse_cursor(method, params.as_ref()).map(|()| {
                    let list = match method {
                        "prompts/list" => prompts::list(server),
                        _ => resources::templates(server),
                    };
                    shape(server, list, stateless, Some(Caching::of(server)))
                })
            } else {
                self.subscription(method, params.as_ref())
            };
            let line = match answer {
                Ok(result) => wire::result_line(&id, result),
                Err(error) => error.line(&id),
            };
            return self.answer(line, &id).await;
        }
        if method == "resources/list"
            && let Err(error) = refuse_cursor(method, params.as_ref())
        {
            return self.answer(error.line(&id), &id).await;
        }
        self.run_content(id, method.to_owned(), params, meta).await;
    }

    /// Runs request `id` of `method` (`resources/read`, `prompts/get`,
    /// `completion/complete`, `resources/list`) as a call runs: admitted
    /// against the server's limit, on the transport's task, stopped when
    /// cancelled;
    /// its requests to the client go to it as the server's requests in a
    /// session, and end the round of revision 2026-07-28 (`meta`) with an
    /// `input_required` result ([`mrtr`](crate::server::mrtr)).
    async fn run_content(
        self: &Arc<Self>,
        id: Id,
        method: String,
        params: Option<Map<String, Value>>,
        meta: Option<RequestMeta>,
    ) {
        let key = id.key().into_owned();
        let cancelled = CancellationToken::new();
        if let Err(error) = self.admit(&key, &cancelled, true) {
            return self.answer(error.line(&id), &id).await;
        }
        let session = Arc::clone(self);
        let context = match meta {
            Some(_) => self.base_context(&id),
            None => self.session_context(&id),
        };
        let span = span(&id, &method, params.as_ref());
        let request = id.clone();
        let work = async move {
            let _done = Done {
                session: &*session,
                key: &key,
            };
            let work = session.content_result(&id, &method, params.as_ref(), context, meta);
            let answer = tokio::select! {
                answer = work => answer,
                () = cancelled.cancelled() => return,
            };
            let line = match answer {
                Ok(result) => wire::result_line(&id, result),
                Err(error) => error.line(&id),
            };
            session.answer(line, &id).await;
        };
        self.output
            .run(&request, tracing::Instrument::instrument(work, span));
    }

    /// The result of request `id` of `method` with `params` in `context`,
    /// shaped for its era: in revision 2026-07-28 (`meta`), a read or a
    /// prompt runs in a round, whose requests to the client end it with an
    /// `input_required` result.
    async fn content_result(
        &self,
        id: &Id,
        method: &str,
        params: Option<&Map<String, Value>>,
        context: ToolContext,
        meta: Option<RequestMeta>,
    ) -> Result<Value, RpcError> {
        let server = &self.server;
        let stateless = meta.is_some();
        let work = async |context: ToolContext| {
            let (result, caching) = match method {
                "resources/read" => {
                    let (result, caching) = resources::read(server, params, context).await?;
                    (result, Some(caching))
                }
                "prompts/get" => (prompts::get(server, params, context).await?, None),
                "resources/list" => (
                    resources::list(server, context).await,
                    Some(Caching::of(server)),
                ),
                _ => (completion::complete(server, params, context).await?, None),
            };
            Ok(shape(server, result, stateless, caching))
        };
        match meta {
            Some(meta) if !matches!(method, "completion/complete" | "resources/list") => {
                let round = round_call(id, method, params)?;
                mrtr::in_round(server, &round, meta.capabilities, context, work).await
            }
            _ => work(context).await,
        }
    }
}

/// Request `id` of `method` with `params` as a round's call: its subject
/// (`prompts/get` and the prompt's name, or `resources/read` and the URI,
/// joined by a NUL no tool name has, so that no state moves between
/// methods), its arguments (a prompt's), its answers and state.
fn round_call(
    id: &Id,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<Call, RpcError> {
    let key = if method == "prompts/get" {
        "name"
    } else {
        "uri"
    };
    let subject = string_param(method, params, key)?;
    let field = |key: &str| params.and_then(|params| params.get(key)).cloned();
    let arguments = match field("arguments") {
        Some(Value::Object(arguments)) if method == "prompts/get" => Some(arguments),
        _ => None,
    };
    Ok(Call {
        id: id.clone(),
        name: format!("{method}\0{subject}"),
        arguments,
        meta: None,
        input_responses: field("inputResponses"),
        request_state: field("requestState"),
    })
}

/// The span of a request of this module: named for its method and what
/// it names (a prompt, a URI), with the request's id.
fn span(id: &Id, method: &str, params: Option<&Map<String, Value>>) -> tracing::Span {
    let target = params
        .and_then(|params| params.get("name").or_else(|| params.get("uri")))
        .and_then(Value::as_str)
        .map(wire::cut);
    // `resources/read docs://readme`, or the method alone (`resources/list`).
    let name = match target {
        Some(target) => format!("{method} {target}"),
        None => method.to_owned(),
    };
    tracing::info_span!(
        "mcp.request",
        otel.name = %name,
        otel.kind = "server",
        mcp.method.name = %method,
        jsonrpc.request.id = %id,
    )
}

/// Takes a request out of the session's requests in flight when dropped.
struct Done<'a, O: Outbox> {
    session: &'a Session<O>,
    key: &'a str,
}

impl<O: Outbox> Drop for Done<'_, O> {
    fn drop(&mut self) {
        self.session.finish(self.key, true);
    }
}

/// `data` for an error about the URI `uri` (cut short, as echoed input
/// is).
fn uri_data(uri: &str) -> Value {
    json!({"uri": wire::cut(uri)})
}
