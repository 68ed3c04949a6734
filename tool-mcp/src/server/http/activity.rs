//! What each connection is doing, for the transport's header and idle
//! timeouts: the transport's clock ([`now_ms`]), a connection's
//! [`Activity`], the request that keeps it busy ([`Busy`]), the socket that
//! notes a request's first bytes ([`Tracked`]), and the connections open
//! ([`Connections`]), which the watchdog sweeps and which give up an idle
//! one to make room for a new connection. A request costs a few atomic
//! stores and no timer.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::server::session::lock;

/// Milliseconds since the transport's first use: the clock of its
/// timeouts, which atomics can hold.
pub(super) fn now_ms() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// What a connection is doing, for its watchdog.
pub(super) struct Activity {
    /// Requests being served (from their head to the end of their answer).
    busy: AtomicUsize,
    /// The first bytes of a request's head have come (the connection was
    /// idle).
    head: AtomicBool,
    /// When the connection became idle, or its head began, in [`now_ms`]
    /// time.
    since: AtomicU64,
    /// Told when the connection is past its time.
    expired: tokio::sync::Notify,
    /// A request was served on the connection.
    served: AtomicBool,
    /// The connection was asked to close for a new one.
    evicted: AtomicBool,
    /// Told when the connection is to close, once idle, for a new one.
    evict: tokio::sync::Notify,
}

impl Activity {
    /// A connection's activity as it opens: idle since now.
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Activity {
            busy: AtomicUsize::new(0),
            head: AtomicBool::new(false),
            since: AtomicU64::new(now_ms()),
            expired: tokio::sync::Notify::new(),
            served: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            evict: tokio::sync::Notify::new(),
        })
    }

    /// Resolves once the connection is asked to make room for a new one.
    pub(super) async fn evicted(&self) {
        self.evict.notified().await;
    }

    /// When the connection became idle, if it is idle (no request served,
    /// none begun), and whether it served one: what tells which idle
    /// connection gives way first.
    fn idle_since(&self) -> Option<(bool, u64)> {
        let idle = self.busy.load(Ordering::Acquire) == 0
            && !self.head.load(Ordering::Acquire)
            && !self.evicted.load(Ordering::Acquire);
        idle.then(|| {
            (
                self.served.load(Ordering::Acquire),
                self.since.load(Ordering::Acquire),
            )
        })
    }

    /// Resolves once the watchdog finds the connection past its time.
    pub(super) async fn expired(&self) {
        self.expired.notified().await;
    }

    /// When the connection should be closed, in [`now_ms`] time: `None`
    /// while a request is served.
    fn deadline(&self, header: Duration, idle: Duration) -> Option<u64> {
        if self.busy.load(Ordering::Acquire) > 0 {
            return None;
        }
        let limit = if self.head.load(Ordering::Acquire) {
            header
        } else {
            idle
        };
        Some(
            self.since
                .load(Ordering::Acquire)
                .saturating_add(millis(limit)),
        )
    }
}

/// A request of the connection being served; dropped when its answer has
/// been sent (or given up), which makes the connection idle again.
pub(super) struct Busy(Arc<Activity>);

impl Busy {
    /// A request of the connection begins to be served.
    pub(super) fn begin(activity: &Arc<Activity>) -> Self {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        activity.head.store(false, Ordering::Release);
        activity.served.store(true, Ordering::Release);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let activity = &self.0;
        activity.since.store(now_ms(), Ordering::Release);
        activity.head.store(false, Ordering::Release);
        activity.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The socket, noting when a request's first bytes arrive on an idle
/// connection.
pub(super) struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl Tracked {
    /// `stream`, reporting to `activity`.
    pub(super) fn new(stream: TcpStream, activity: &Arc<Activity>) -> Self {
        Tracked {
            stream,
            activity: Arc::clone(activity),
        }
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            let activity = &this.activity;
            if activity.busy.load(Ordering::Acquire) == 0
                && !activity.head.swap(true, Ordering::AcqRel)
            {
                activity.since.store(now_ms(), Ordering::Release);
            }
        }
        read
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The connections open, for the watchdog.
#[derive(Default)]
pub(super) struct Connections(Mutex<Vec<Weak<Activity>>>);

impl Connections {
    /// A connection opened.
    pub(super) fn add(&self, activity: &Arc<Activity>) {
        lock(&self.0).push(Arc::downgrade(activity));
    }

    /// Tells each connection past its `header` or `idle` timeout to close,
    /// and forgets those that have ended.
    pub(super) fn expire(&self, header: Duration, idle: Duration) {
        let now = now_ms();
        lock(&self.0).retain(|connection| {
            let Some(activity) = connection.upgrade() else {
                return false;
            };
            if activity
                .deadline(header, idle)
                .is_some_and(|deadline| deadline <= now)
            {
                activity.expired.notify_one();
            }
            true
        });
    }

    /// Asks the idle connection that gives way first to close, making room
    /// for a new one: one that has served no request before one that has,
    /// then the one idle longest. Whether there was one.
    pub(super) fn evict_idle(&self) -> bool {
        let mut connections = lock(&self.0);
        connections.retain(|connection| connection.strong_count() > 0);
        let victim = connections
            .iter()
            .filter_map(Weak::upgrade)
            .filter_map(|activity| activity.idle_since().map(|key| (key, activity)))
            .min_by_key(|(key, _)| *key)
            .map(|(_, activity)| activity);
        drop(connections);
        let Some(victim) = victim else {
            return false;
        };
        victim.evicted.store(true, Ordering::Release);
        victim.evict.notify_one();
        true
    }
}
