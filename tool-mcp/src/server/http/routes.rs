//! Where an HTTP session's messages go: the [`Outbox`] of the HTTP
//! transport. Each request the core serves has a route, the response of
//! the POST that carried it; its answer ends the route. A session's own
//! messages (a change to the tools, in the revisions with sessions) go to
//! its standalone stream (`GET`), when one is open, and are dropped when
//! none is.
//!
//! A route holds a few messages ([`ROUTE_MESSAGES`]); when its client does
//! not read, whoever sends on it waits (a tool's progress report, say), so
//! memory stays bounded as it does on stdio.
//!
//! A call runs on the connection that carried it: the core hands its work
//! to the route ([`Outbox::run`]), and the POST's response drives it while
//! it waits for the call's messages, so a call costs no task of its own,
//! and a response dropped (its client gone) drops the call with it.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::Notify;
use tokio::time::Sleep;
use tool_runtime::ToolContext;

use super::activity::now_ms;
use super::budget::{Budget, Held};
use crate::server::output::Outbox;
use crate::server::session::{Session, lock};
use crate::server::wire::Id;

/// The messages a route (or a standalone stream) holds while its client
/// has not read them.
const ROUTE_MESSAGES: usize = 32;

/// How often an open event stream with nothing to send says it is alive (a
/// comment line), so that proxies keep it and a client gone is noticed.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A message on a route.
pub(super) enum Out {
    /// A notification, or a request to the client, belonging to the request.
    Message(Vec<u8>),
    /// The request's answer: its last message.
    Answer(Vec<u8>),
}

/// The messages of a route (or a standalone stream) on their way to its
/// response: at most [`ROUTE_MESSAGES`] wait, a sender waits for room
/// beyond that; one reader. Lighter than a channel for a route that mostly
/// carries one message, its answer.
pub(super) struct Queue {
    state: Mutex<QueueState>,
    /// Told when a message is taken, or the queue closes: room for a
    /// waiting sender.
    room: Notify,
}

struct QueueState {
    /// The first message waiting, held without an allocation (most routes
    /// carry one message, their answer), and those after it.
    first: Option<Out>,
    more: VecDeque<Out>,
    reader: Option<Waker>,
    /// No more messages come (the route closed, or its response went).
    closed: bool,
    /// The work of the route's call, until its response takes it.
    driver: Option<Driver>,
    /// Senders waiting for room (told through `Queue::room` only then).
    waiting: usize,
}

impl QueueState {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    fn push(&mut self, out: Out) {
        if self.first.is_none() && self.more.is_empty() {
            self.first = Some(out);
        } else {
            self.more.push_back(out);
        }
    }

    fn pop(&mut self) -> Option<Out> {
        self.first.take().or_else(|| self.more.pop_front())
    }
}

impl Queue {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(QueueState {
                first: None,
                more: VecDeque::new(),
                reader: None,
                closed: false,
                driver: None,
                waiting: 0,
            }),
            room: Notify::new(),
        })
    }

    /// Adds `out`, once there is room; dropped when the queue is closed.
    async fn push(&self, out: Out) {
        let mut out = Some(out);
        loop {
            let room = self.room.notified();
            let mut room = std::pin::pin!(room);
            let reader = {
                let mut state = lock(&self.state);
                if state.closed {
                    return;
                }
                if state.len() < ROUTE_MESSAGES {
                    state.push(out.take().expect("added once"));
                    Some(state.reader.take())
                } else {
                    // Registered before the lock goes, so that the room a
                    // reader makes after it is not missed.
                    room.as_mut().enable();
                    state.waiting += 1;
                    None
                }
            };
            match reader {
                Some(reader) => {
                    if let Some(reader) = reader {
                        reader.wake();
                    }
                    return;
                }
                None => {
                    let _waited = Waited(self);
                    room.await;
                }
            }
        }
    }

    /// Closes the queue: what waits in it is still read, then the end.
    fn close(&self) {
        let mut state = lock(&self.state);
        state.closed = true;
        let reader = state.reader.take();
        let waiting = state.waiting > 0;
        drop(state);
        if let Some(reader) = reader {
            reader.wake();
        }
        if waiting {
            self.room.notify_waiters();
        }
    }

    /// The next message; `None` once the queue is closed and empty.
    pub(super) fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<Out>> {
        let mut state = lock(&self.state);
        if let Some(out) = state.pop() {
            let waiting = state.waiting > 0;
            drop(state);
            if waiting {
                self.room.notify_one();
            }
            return Poll::Ready(Some(out));
        }
        if state.closed {
            return Poll::Ready(None);
        }
        match &mut state.reader {
            Some(reader) if reader.will_wake(cx.waker()) => {}
            reader => *reader = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The work of the route's call, for its response to drive.
    pub(super) fn take_driver(&self) -> Option<Driver> {
        lock(&self.state).driver.take()
    }

    /// The next message; `None` once the queue is closed and empty.
    pub(super) async fn recv(&self) -> Option<Out> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }
}

/// A sender waiting for room in a queue, counted until it stops waiting.
struct Waited<'a>(&'a Queue);

impl Drop for Waited<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).waiting -= 1;
    }
}

/// The work of a call, which its response drives.
pub(super) type Driver = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A request's route.
struct Entry {
    queue: Arc<Queue>,
    /// The context the request's calls start from, when not the server's.
    context: Option<ToolContext>,
}

/// An HTTP session's routes: one per request in flight, and the standalone
/// stream.
pub(in crate::server) struct Routes {
    by_request: Mutex<HashMap<String, Entry>>,
    /// The standalone stream, with its number (a stream replaced is not
    /// closed by its predecessor's end).
    standalone: Mutex<Option<(u64, Arc<Queue>)>>,
    streams: AtomicU64,
    /// When the session last served a request or closed a stream, in
    /// [`now_ms`] time.
    last_used: AtomicU64,
    /// The responses of the session still open (routes and the standalone
    /// stream): a session with one is in use.
    open: AtomicUsize,
    /// A request named the session since its `initialize`.
    used: AtomicBool,
    /// The session's event streams (its standalone stream and its
    /// subscriptions) open.
    event_streams: Arc<Budget>,
}

impl Routes {
    /// A session's routes, none open; at most `event_streams` event streams
    /// open at once.
    pub(super) fn new(event_streams: usize) -> Self {
        Self {
            by_request: Mutex::new(HashMap::new()),
            standalone: Mutex::new(None),
            streams: AtomicU64::new(0),
            last_used: AtomicU64::new(now_ms()),
            open: AtomicUsize::new(0),
            used: AtomicBool::new(false),
            event_streams: Budget::new(event_streams),
        }
    }

    /// The session's budget of event streams.
    pub(super) fn streams(&self) -> &Arc<Budget> {
        &self.event_streams
    }

    /// A request named the session.
    pub(super) fn mark_used(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    /// Whether a request named the session since its `initialize`.
    pub(super) fn was_used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// Opens the route of the request whose id has `key`: `None` when one is
    /// open already (a request of that id is in flight).
    fn open_route(&self, key: &str, context: Option<ToolContext>) -> Option<Arc<Queue>> {
        match lock(&self.by_request).entry(key.to_owned()) {
            std::collections::hash_map::Entry::Occupied(_) => None,
            std::collections::hash_map::Entry::Vacant(vacant) => {
                let queue = Queue::new();
                vacant.insert(Entry {
                    queue: Arc::clone(&queue),
                    context,
                });
                Some(queue)
            }
        }
    }

    /// Closes the route of the request whose id has `key`, if it is open:
    /// its response ends without an answer.
    pub(super) fn close_route(&self, key: &str) {
        let entry = lock(&self.by_request).remove(key);
        if let Some(entry) = entry {
            entry.queue.close();
        }
    }

    /// Closes every route and the standalone stream (the session ends).
    pub(super) fn close_all(&self) {
        let entries: Vec<Entry> = lock(&self.by_request)
            .drain()
            .map(|(_, entry)| entry)
            .collect();
        for entry in entries {
            entry.queue.close();
        }
        if let Some((_, queue)) = lock(&self.standalone).take() {
            queue.close();
        }
    }

    /// Whether the session has a response open.
    pub(super) fn in_use(&self) -> bool {
        self.open.load(Ordering::Relaxed) > 0
    }

    /// When the session was last used, in [`now_ms`] time.
    pub(super) fn last_used(&self) -> u64 {
        self.last_used.load(Ordering::Relaxed)
    }

    /// The session serves a request now.
    pub(super) fn touch(&self) {
        self.last_used.store(now_ms(), Ordering::Relaxed);
    }
}

impl Outbox for Routes {
    async fn send(&self, line: Vec<u8>, request: Option<&Id>) {
        let route = request.and_then(|id| {
            lock(&self.by_request)
                .get(&*id.key())
                .map(|entry| Arc::clone(&entry.queue))
        });
        let route = route.or_else(|| {
            lock(&self.standalone)
                .as_ref()
                .map(|(_, queue)| Arc::clone(queue))
        });
        // With no route, or one whose response is gone, the message has
        // nowhere to go.
        if let Some(route) = route {
            route.push(Out::Message(line)).await;
        }
    }

    async fn answer(&self, line: Vec<u8>, request: &Id) {
        let route = lock(&self.by_request).remove(&*request.key());
        if let Some(route) = route {
            route.queue.push(Out::Answer(line)).await;
            route.queue.close();
        }
    }

    fn routes_by_request(&self) -> bool {
        true
    }

    fn context(&self, request: &Id) -> Option<ToolContext> {
        lock(&self.by_request)
            .get(&*request.key())
            .and_then(|entry| entry.context.clone())
    }

    fn run<F>(&self, request: &Id, call: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let queue = lock(&self.by_request)
            .get(&*request.key())
            .map(|entry| Arc::clone(&entry.queue));
        let mut call = Some(call);
        if let Some(queue) = queue {
            let mut state = lock(&queue.state);
            if state.driver.is_none() {
                state.driver = call.take().map(|call| Box::pin(call) as Driver);
            }
        }
        // No response to drive it (never so for a call a POST carried).
        if let Some(call) = call {
            tokio::spawn(call);
        }
    }
}

/// Drives `driver` (a call's work, if its response has it) until the
/// route's first message comes: that message (`None` when the route closed
/// without one), and the work if it is not done.
pub(super) async fn first_message(
    receiver: &Queue,
    mut driver: Option<Driver>,
) -> (Option<Out>, Option<Driver>) {
    let first = std::future::poll_fn(|cx| {
        if let Some(work) = driver.as_mut()
            && work.as_mut().poll(cx).is_ready()
        {
            driver = None;
        }
        receiver.poll_recv(cx)
    })
    .await;
    (first, driver)
}

/// An HTTP session: the core's session writing to routes.
pub(super) type HttpSession = Session<Routes>;

/// A request's route, held by the response that carries it: when the
/// response is dropped before the answer (its client went away), the route
/// closes and the request is cancelled; a session of the request's own
/// ends with it.
pub(super) struct Route {
    session: Arc<HttpSession>,
    id: Id,
    answered: bool,
    /// The session is the request's own (revision 2026-07-28, or a stateless
    /// server): it ends with the request.
    own_session: bool,
}

impl Route {
    /// Opens the route of request `id` in `session`, with the receiver of its
    /// messages; `None` when a request of that id is in flight already. The
    /// request's calls start from `context` when it is given.
    pub(super) fn open(
        session: &Arc<HttpSession>,
        id: &Id,
        own_session: bool,
        context: Option<ToolContext>,
    ) -> Option<(Self, Arc<Queue>)> {
        let receiver = session.output.open_route(&id.key(), context)?;
        // In use while open; its end marks the session used.
        session.output.open.fetch_add(1, Ordering::Relaxed);
        let route = Route {
            session: Arc::clone(session),
            id: id.clone(),
            answered: false,
            own_session,
        };
        Some((route, receiver))
    }

    /// The answer went out.
    pub(super) fn answered(&mut self) {
        self.answered = true;
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        let routes = &self.session.output;
        if !self.answered {
            routes.close_route(&self.id.key());
            self.session.cancel_in_flight(&self.id);
        }
        routes.open.fetch_sub(1, Ordering::Relaxed);
        routes.touch();
        if self.own_session {
            self.session.closed.cancel();
        }
    }
}

/// A session's standalone stream, held by the `GET` response that carries
/// it; closed when that response is dropped.
pub(super) struct Standalone {
    session: Arc<HttpSession>,
    number: u64,
}

impl Standalone {
    /// Opens the standalone stream of `session`, with the receiver of its
    /// messages; `None` when one is open already.
    pub(super) fn open(session: &Arc<HttpSession>) -> Option<(Self, Arc<Queue>)> {
        let routes = &session.output;
        let mut standalone = lock(&routes.standalone);
        if standalone.is_some() {
            return None;
        }
        let number = routes.streams.fetch_add(1, Ordering::Relaxed);
        let queue = Queue::new();
        *standalone = Some((number, Arc::clone(&queue)));
        routes.open.fetch_add(1, Ordering::Relaxed);
        let stream = Standalone {
            session: Arc::clone(session),
            number,
        };
        Some((stream, queue))
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        let routes = &self.session.output;
        let mut standalone = lock(&routes.standalone);
        if standalone
            .as_ref()
            .is_some_and(|(number, _)| *number == self.number)
            && let Some((_, queue)) = standalone.take()
        {
            queue.close();
        }
        drop(standalone);
        routes.open.fetch_sub(1, Ordering::Relaxed);
        routes.touch();
    }
}

/// What keeps an event stream's route open.
pub(super) enum Holder {
    Route(Route),
    Standalone { _stream: Standalone },
}

/// How long a subscription asked to close at the end of its stream's
/// lifetime has to send its closing result before the stream ends anyway.
const CLOSING: Duration = Duration::from_secs(5);

/// An event stream (`text/event-stream`): each message a `data:` event,
/// a comment every [`KEEP_ALIVE`] while nothing comes; a request's stream
/// ends after its answer, a standalone one when the session ends, and one
/// of the server's budget of event streams at the end of its lifetime.
pub(super) struct Events {
    first: Option<Vec<u8>>,
    receiver: Arc<Queue>,
    /// The call whose messages these are, still at work.
    driver: Option<Driver>,
    done: bool,
    keep_alive: Pin<Box<Sleep>>,
    holder: Holder,
    /// The places the stream holds in the server's budgets, given back
    /// when it ends.
    _held: Held,
    /// When the stream ends, if it has a lifetime; then whether its
    /// subscription was asked to close.
    lifetime: Option<(Pin<Box<Sleep>>, bool)>,
}

impl Events {
    /// The stream of `receiver`'s messages, `first` (already received)
    /// first, driving `driver` (the call that sends them) meanwhile.
    pub(super) fn new(
        first: Option<Vec<u8>>,
        receiver: Arc<Queue>,
        driver: Option<Driver>,
        holder: Holder,
    ) -> Self {
        Self {
            first,
            receiver,
            driver,
            done: false,
            keep_alive: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
            holder,
            _held: Held::default(),
            lifetime: None,
        }
    }

    /// The stream holding `held` (its places in the server's budgets) until
    /// it ends; an event stream of the budget (`held` has a stream's place)
    /// ends after `lifetime`.
    pub(super) fn limited(mut self, held: Held, lifetime: Duration) -> Self {
        if held.stream.is_some() {
            self.lifetime = Some((Box::pin(tokio::time::sleep(lifetime)), false));
        }
        self._held = held;
        self
    }

    /// Whether the stream ends now for its lifetime: a standalone stream at
    /// once; a subscription is asked to close (its closing result ends the
    /// stream), and ends [`CLOSING`] later if it has not.
    fn past_lifetime(&mut self, cx: &mut Context<'_>) -> bool {
        let Some((deadline, closing)) = self.lifetime.as_mut() else {
            return false;
        };
        if deadline.as_mut().poll(cx).is_pending() {
            return false;
        }
        let Holder::Route(route) = &self.holder else {
            return true;
        };
        if *closing {
            return true;
        }
        *closing = true;
        let session = Arc::clone(&route.session);
        let id = route.id.clone();
        tokio::spawn(async move { session.close_subscription(&id).await });
        deadline
            .as_mut()
            .reset(tokio::time::Instant::now() + CLOSING);
        // Polled once, so that the new deadline wakes the stream.
        deadline.as_mut().poll(cx).is_ready()
    }

    /// The next chunk of the stream: an event or a comment; `None` at its
    /// end.
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(work) = self.driver.as_mut()
            && work.as_mut().poll(cx).is_ready()
        {
            self.driver = None;
        }
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(event(first)));
        }
        if self.done {
            return Poll::Ready(None);
        }
        if self.past_lifetime(cx) {
            self.done = true;
            return Poll::Ready(None);
        }
        match self.receiver.poll_recv(cx) {
            Poll::Ready(Some(Out::Message(line))) => {
                self.reset_keep_alive();
                Poll::Ready(Some(event(line)))
            }
            Poll::Ready(Some(Out::Answer(line))) => {
                self.done = true;
                if let Holder::Route(route) = &mut self.holder {
                    route.answered();
                }
                Poll::Ready(Some(event(line)))
            }
            Poll::Ready(None) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => {
                if self.keep_alive.as_mut().poll(cx).is_ready() {
                    self.reset_keep_alive();
                    return Poll::Ready(Some(Bytes::from_static(b": keep-alive\n\n")));
                }
                Poll::Pending
            }
        }
    }

    /// Whether the stream has ended.
    pub(super) fn is_done(&self) -> bool {
        self.done && self.first.is_none()
    }

    fn reset_keep_alive(&mut self) {
        let next = tokio::time::Instant::now() + KEEP_ALIVE;
        self.keep_alive.as_mut().reset(next);
    }
}

/// `line` (a message with its newline) as an event.
fn event(line: Vec<u8>) -> Bytes {
    let mut event = Vec::with_capacity(line.len() + 7);
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(&line);
    event.push(b'\n');
    Bytes::from(event)
}
