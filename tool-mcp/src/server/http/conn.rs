//! One HTTP/1.1 connection, served by hyper, with the transport's
//! timeouts: a connection idle for the idle timeout (before its first
//! request, or after an answer) is closed, and so is one whose request
//! head takes longer than the header timeout from its first byte. The
//! body's timeout is the request's ([`post`](super::post)).
//!
//! hyper's own `header_read_timeout` starts when the connection becomes
//! idle, so it bounds the idle time and the head together; the two are
//! told apart here, from what the connection reads and whether a request
//! is being served. One watchdog task looks at every connection a few
//! times a second ([`watch`]) and closes those past their time, so that a
//! request costs a few atomic stores and no timer.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use super::sessions::Shared;

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
struct Activity {
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
}

impl Activity {
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
    fn begin(activity: &Arc<Activity>) -> Self {
        activity.busy.fetch_add(1, Ordering::AcqRel);
        activity.head.store(false, Ordering::Release);
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
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
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

/// Serves one connection until it ends, times out or the server shuts
/// down; `permit` is its place under the connection cap.
pub(super) async fn serve(stream: TcpStream, shared: Arc<Shared>, permit: OwnedSemaphorePermit) {
    let activity = Arc::new(Activity {
        busy: AtomicUsize::new(0),
        head: AtomicBool::new(false),
        since: AtomicU64::new(now_ms()),
        expired: tokio::sync::Notify::new(),
    });
    shared.connections.add(&activity);
    let io = TokioIo::new(Tracked {
        stream,
        activity: Arc::clone(&activity),
    });
    let service = {
        let shared = Arc::clone(&shared);
        let activity = Arc::clone(&activity);
        hyper::service::service_fn(move |request| {
            let busy = Busy::begin(&activity);
            let shared = Arc::clone(&shared);
            async move {
                let mut reply = super::post::handle(&shared, request).await;
                reply.body_mut().hold(busy);
                Ok::<_, Infallible>(reply)
            }
        })
    };
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    tokio::select! {
        outcome = connection => {
            if let Err(error) = outcome {
                tracing::debug!(%error, "an HTTP connection ended with an error");
            }
        }
        () = shared.shutdown.cancelled() => {}
        () = activity.expired.notified() => {
            tracing::debug!("closing an HTTP connection past its header or idle timeout");
        }
    }
    drop(permit);
}

/// The connections open, for the watchdog.
#[derive(Default)]
pub(super) struct Connections(Mutex<Vec<Weak<Activity>>>);

impl Connections {
    fn add(&self, activity: &Arc<Activity>) {
        crate::server::session::lock(&self.0).push(Arc::downgrade(activity));
    }
}

/// Closes every connection past its header or idle timeout, looking a few
/// times a second (or a quarter of the shorter timeout, when that is less),
/// until the task is aborted.
pub(super) async fn watch(shared: Arc<Shared>) {
    let (header, idle) = (shared.options.header_timeout, shared.options.idle_timeout);
    let every = (header.min(idle) / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
    loop {
        tokio::time::sleep(every).await;
        let now = now_ms();
        crate::server::session::lock(&shared.connections.0).retain(|connection| {
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
}
