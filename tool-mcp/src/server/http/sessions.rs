//! The sessions of the revisions with `initialize`, by their
//! `Mcp-Session-Id`, and the sessions a request has of its own; a
//! session's standalone stream (`GET`) and its end (`DELETE`, unused for
//! the session timeout, or given up for a new session when the table is
//! full: [`Shared::register`]).
//!
//! Each session is the core's [`Session`](crate::server::session::Session)
//! writing to [`Routes`], with a clone of the server of its own (its own
//! log level); a session a request has of its own (revision 2026-07-28, or
//! any request of a stateless server) ends with the request.
//!
//! A session opened by a caller an access token showed is that caller's:
//! a request of anyone else naming it is answered as one naming a session
//! that does not exist (`404`), and each caller keeps at most its share of
//! sessions ([`HttpOptions::max_sessions_per_caller`]).

use std::cmp::Reverse;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::StatusCode;
use hyper::header::{self, HeaderMap, HeaderValue};
use serde_json::Map;
use tool_runtime::context::{CancellationToken, Owner};

use super::HttpOptions;
use super::activity::{Connections, now_ms};
use super::body::{self, Reply};
use super::budget::{Budget, Held, PeerBudget, Principal};
use super::headers::{self, SESSION_ID};
use super::routes::{Events, Holder, HttpSession, Routes, Standalone};
use crate::server::McpServer;
use crate::server::session::{Session, lock};

/// What every connection's requests are served with.
pub(in crate::server) struct Shared {
    /// The server each session serves a clone of.
    server: McpServer,
    pub(super) options: HttpOptions,
    pub(super) shutdown: CancellationToken,
    sessions: Mutex<HashMap<String, Entry>>,
    /// The connections open, for the watchdog of their timeouts.
    pub(super) connections: Connections,
    /// The event streams open in the whole server.
    streams: Arc<Budget>,
    /// The calls of anonymous requests without a session, by peer address.
    pub(super) calls: Arc<PeerBudget>,
    /// The calls of each caller an access token showed, by its owner key.
    pub(super) caller_calls: Arc<PeerBudget<Owner>>,
}

/// A session open, and whom it counts against: the caller that opened it,
/// or for an anonymous client the address of its peer.
struct Entry {
    session: Arc<HttpSession>,
    holder: Principal,
}

impl Entry {
    /// The caller whose session it is, if one opened it.
    fn owner(&self) -> Option<&Owner> {
        match &self.holder {
            Principal::Caller(owner) => Some(owner),
            Principal::Peer(_) => None,
        }
    }

    /// Whether the session is in use: a request or stream of it open, or a
    /// task of it running.
    fn in_use(&self) -> bool {
        self.session.output.in_use() || self.session.tasks.running() > 0
    }
}

/// Why a session may not open.
pub(super) enum NoRoom {
    /// The server holds as many sessions as it may, each in use.
    Server,
    /// The caller holds its share, each in use.
    Caller(usize),
}

/// Why an event stream may not open: the cap it would pass, as the data
/// of the refusal (`{"maxEventStreams": n}`).
pub(super) struct StreamsFull {
    /// The member of the data: the server's cap or the session's.
    pub(super) name: &'static str,
    pub(super) max: usize,
}

impl Shared {
    /// What `server` is served with as `options` say, until `shutdown`.
    pub(super) fn new(
        server: McpServer,
        options: HttpOptions,
        shutdown: CancellationToken,
    ) -> Self {
        let calls = PeerBudget::new(server.limits.max_calls);
        let caller_calls = PeerBudget::new(options.max_calls_per_caller);
        Self {
            streams: Budget::new(options.event_stream_cap()),
            server,
            options,
            shutdown,
            sessions: Mutex::new(HashMap::new()),
            connections: Connections::default(),
            calls,
            caller_calls,
        }
    }

    /// The session of id `id`, if it is open and `owner`'s (the caller of
    /// the request naming it; `None` for an anonymous request, which finds
    /// the sessions no caller opened): a request names it, which uses it.
    /// Another caller's session is not found, as one never opened.
    pub(super) fn find(&self, id: &str, owner: Option<&Owner>) -> Option<Arc<HttpSession>> {
        let session = lock(&self.sessions)
            .get(id)
            .filter(|entry| entry.owner() == owner)
            .map(|entry| Arc::clone(&entry.session))?;
        session.output.mark_used();
        Some(session)
    }

    /// A place for an event stream, of `session` when it has one
    /// registered: under the server's cap and the session's.
    pub(super) fn stream_slot(&self, session: Option<&HttpSession>) -> Result<Held, StreamsFull> {
        let server = self.streams.take().ok_or(StreamsFull {
            name: "maxEventStreams",
            max: self.streams.max(),
        })?;
        let own = match session {
            Some(session) => {
                let budget = session.output.streams();
                let slot = budget.take().ok_or(StreamsFull {
                    name: "maxEventStreamsPerSession",
                    max: budget.max(),
                })?;
                Some(slot)
            }
            None => None,
        };
        Ok(Held {
            stream: Some((server, own)),
            ..Held::default()
        })
    }

    /// The registry served, as it is now.
    pub(super) fn registry(&self) -> Arc<tool_runtime::Registry> {
        self.server.registry()
    }

    /// The context every call starts from (the server's).
    #[cfg(feature = "auth")]
    pub(super) fn base_context(&self) -> tool_runtime::ToolContext {
        self.server.context.clone()
    }

    /// A new session, not yet registered: `initialize` sets it up. What
    /// its anonymous calls leave behind is its own.
    pub(super) fn new_session(&self) -> Arc<HttpSession> {
        let routes = Routes::new(self.options.max_session_event_streams);
        Session::new(self.server.clone(), routes, true)
    }

    /// A session for one request: set up as if `initialize` had come, with
    /// a client of no capabilities, when `initialized` (a stateless
    /// server's requests of the revisions with sessions). It ends with the
    /// request, so what its anonymous calls leave behind is no one's.
    pub(super) fn own_session(&self, initialized: bool) -> Arc<HttpSession> {
        let routes = Routes::new(self.options.max_session_event_streams);
        let session = Session::new(self.server.clone(), routes, false);
        if initialized {
            *lock(&session.client) = Some(Map::new());
        }
        session
    }

    /// Registers `session`, set up, opened by `peer` for `owner` (the
    /// caller a token showed), under a new id: the id, or why there is no
    /// room. A caller at its share gives up its own session not in use
    /// that has gone unused longest; a full table, a session not in use
    /// ([`victim`]). Those given up end.
    pub(super) fn register(
        &self,
        session: Arc<HttpSession>,
        peer: IpAddr,
        owner: Option<&Owner>,
    ) -> Result<String, NoRoom> {
        let mut sessions = lock(&self.sessions);
        let mut ended = Vec::new();
        if let Some(owner) = owner {
            let share = self.options.max_sessions_per_caller;
            let own = sessions
                .values()
                .filter(|entry| entry.owner() == Some(owner))
                .count();
            if own >= share {
                let id = own_victim(&sessions, owner).ok_or(NoRoom::Caller(share))?;
                tracing::debug!(session = %id, "ending a caller's MCP session not in use to make room for its new one");
                ended.extend(sessions.remove(&id));
            }
        }
        if sessions.len() >= self.options.max_sessions {
            let Some(id) = victim(&sessions) else {
                drop(sessions);
                ended.into_iter().for_each(|entry| end(entry.session));
                return Err(NoRoom::Server);
            };
            tracing::debug!(session = %id, "ending an MCP session not in use to make room for a new one");
            ended.extend(sessions.remove(&id));
        }
        let id = new_id();
        let holder = Principal::of(owner, peer);
        sessions.insert(id.clone(), Entry { session, holder });
        drop(sessions);
        ended.into_iter().for_each(|entry| end(entry.session));
        Ok(id)
    }

    /// Ends the session of id `id`: whether there was one.
    fn end(&self, id: &str) -> bool {
        let entry = lock(&self.sessions).remove(id);
        entry.map(|entry| end(entry.session)).is_some()
    }

    /// Ends every session (the server shuts down).
    pub(super) fn close_all(&self) {
        let sessions: Vec<_> = lock(&self.sessions)
            .drain()
            .map(|(_, entry)| entry.session)
            .collect();
        sessions.into_iter().for_each(end);
    }
}

/// The session that gives way to a new one when the table is full, of
/// those not in use (no request or stream of it open, and no task of it
/// running): one of the caller (or, for anonymous clients, the peer
/// address) holding the most sessions, then one that has had no request
/// since its `initialize`, then the one unused longest. `None` when every
/// session is in use.
fn victim(sessions: &HashMap<String, Entry>) -> Option<String> {
    let mut held: HashMap<&Principal, usize> = HashMap::new();
    for entry in sessions.values() {
        *held.entry(&entry.holder).or_default() += 1;
    }
    sessions
        .iter()
        .filter(|(_, entry)| !entry.in_use())
        .max_by_key(|(_, entry)| {
            let routes = &entry.session.output;
            (
                held[&entry.holder],
                !routes.was_used(),
                Reverse(routes.last_used()),
            )
        })
        .map(|(id, _)| id.clone())
}

/// The session of `owner`'s that gives way to its new one when it holds
/// its share: of those not in use, one that has had no request since its
/// `initialize`, then the one unused longest. `None` when each is in use.
fn own_victim(sessions: &HashMap<String, Entry>, owner: &Owner) -> Option<String> {
    sessions
        .iter()
        .filter(|(_, entry)| entry.owner() == Some(owner) && !entry.in_use())
        .max_by_key(|(_, entry)| {
            let routes = &entry.session.output;
            (!routes.was_used(), Reverse(routes.last_used()))
        })
        .map(|(id, _)| id.clone())
}

/// Ends `session`: its responses close, its calls get the core's time to
/// finish (their answers go nowhere), then are cancelled.
fn end(session: Arc<HttpSession>) {
    session.output.close_all();
    tokio::spawn(async move { session.close().await });
}

/// A session id: 128 random bits, in hex.
fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Ends the sessions unused for the session timeout, until the server
/// shuts down (the task is aborted).
pub(super) async fn sweep(shared: Arc<Shared>) {
    let timeout = shared.options.session_timeout;
    let every = (timeout / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let limit = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    loop {
        tokio::time::sleep(every).await;
        let now = now_ms();
        let expired: Vec<String> = lock(&shared.sessions)
            .iter()
            .filter(|(_, entry)| {
                let routes = &entry.session.output;
                !routes.in_use() && now.saturating_sub(routes.last_used()) >= limit
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            tracing::debug!(session = %id, "ending an MCP session unused for the session timeout");
            shared.end(&id);
        }
    }
}

/// A `405 Method Not Allowed` naming the methods the endpoint has.
pub(super) fn not_allowed(stateless: bool) -> Reply {
    let mut reply = body::text(
        StatusCode::METHOD_NOT_ALLOWED,
        if stateless {
            "method not allowed: a stateless MCP server has POST only"
        } else {
            "method not allowed: the MCP endpoint has POST, GET and DELETE"
        },
    );
    let allow = if stateless {
        "POST"
    } else {
        "GET, POST, DELETE"
    };
    reply
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    reply
}

/// The session a request without a session id should have named.
fn session_required() -> Reply {
    body::text(
        StatusCode::BAD_REQUEST,
        "bad request: the Mcp-Session-Id header is missing (initialize opens a session)",
    )
}

/// `404 Not Found` for a session id the server does not know (never
/// given, ended, or timed out): the client starts a new session.
pub(super) fn unknown_session() -> Reply {
    body::text(
        StatusCode::NOT_FOUND,
        "not found: no such MCP session (it ended, or was never opened); initialize a new one",
    )
}

/// The session a `GET` or `DELETE` of `owner` names, or the answer to
/// give instead (another caller's session is unknown).
fn named_session(
    shared: &Shared,
    headers: &HeaderMap,
    owner: Option<&Owner>,
) -> Result<(String, Arc<HttpSession>), Box<Reply>> {
    if shared.options.stateless {
        return Err(Box::new(not_allowed(true)));
    }
    let Some(id) = headers.get(SESSION_ID).and_then(|id| id.to_str().ok()) else {
        // A client of revision 2026-07-28 has no session to name.
        return Err(Box::new(if headers::has_standard_headers(headers) {
            not_allowed(false)
        } else {
            session_required()
        }));
    };
    let session = shared
        .find(id, owner)
        .ok_or_else(|| Box::new(unknown_session()))?;
    if let Some(version) = headers::protocol_version(headers)
        && !headers::is_known(version)
    {
        return Err(Box::new(body::text(
            StatusCode::BAD_REQUEST,
            format!("bad request: unsupported MCP-Protocol-Version {version:?}"),
        )));
    }
    Ok((id.to_owned(), session))
}

/// `GET` of `owner`: the session's standalone stream, where its own
/// messages go (a change to the tools).
pub(super) fn get(shared: &Shared, headers: &HeaderMap, owner: Option<&Owner>) -> Reply {
    if !headers::accepts(headers, "text/event-stream") {
        return body::text(
            StatusCode::NOT_ACCEPTABLE,
            "not acceptable: the standalone stream is text/event-stream",
        );
    }
    let (_, session) = match named_session(shared, headers, owner) {
        Ok(named) => named,
        Err(reply) => return *reply,
    };
    session.output.touch();
    let held = match shared.stream_slot(Some(&*session)) {
        Ok(held) => held,
        Err(full) => return streams_full(&full),
    };
    match Standalone::open(&session) {
        Some((stream, receiver)) => {
            let holder = Holder::Standalone { _stream: stream };
            let events = Events::new(None, receiver, None, holder);
            body::events(events.limited(held, shared.options.event_stream_lifetime))
        }
        None => body::text(
            StatusCode::CONFLICT,
            "conflict: the session's standalone stream is open already",
        ),
    }
}

/// `503 Service Unavailable` for a `GET` beyond a cap of event streams.
fn streams_full(full: &StreamsFull) -> Reply {
    let mut reply = body::text(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "service unavailable: {} event streams are open, the most the server allows ({}); \
             try again later",
            full.max, full.name
        ),
    );
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    reply
}

/// `DELETE` of `owner`: the session ends.
pub(super) fn delete(shared: &Shared, headers: &HeaderMap, owner: Option<&Owner>) -> Reply {
    match named_session(shared, headers, owner) {
        Ok((id, _)) => {
            if shared.end(&id) {
                body::empty(StatusCode::OK)
            } else {
                unknown_session()
            }
        }
        Err(reply) => *reply,
    }
}
