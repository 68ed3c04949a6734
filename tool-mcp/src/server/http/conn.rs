//! One HTTP/1.1 connection, served by hyper, with the transport's
//! timeouts: a connection idle for the idle timeout (before its first
//! request, or after an answer) is closed, and so is one whose request
//! head takes longer than the header timeout from its first byte. The
//! body's timeout is the request's ([`post`](super::post)).
//!
//! hyper's own `header_read_timeout` starts when the connection becomes
//! idle, so it bounds the idle time and the head together; the two are
//! told apart from what the connection reads and whether a request is
//! being served ([`activity`](super::activity)). One watchdog task looks
//! at every connection a few times a second ([`watch`]) and closes those
//! past their time, so that a request costs a few atomic stores and no
//! timer.
//!
//! A new connection beyond the cap makes room ([`admit`]): the idle
//! connection that gives way first is closed (gracefully: a request that
//! has just begun on it is answered first), so that sockets left open
//! never keep a client out while a connection is idle.

use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::activity::{Activity, Busy, Tracked};
use super::sessions::Shared;

/// How often a new connection waiting for room asks again for an idle
/// connection to close (one may have become idle meanwhile).
const RETRY_ROOM: Duration = Duration::from_millis(50);

/// A place under the connection cap for a new connection: at once when
/// there is one, else once an idle connection closed to make room (or any
/// connection ended); `None` when the server shuts down first.
pub(super) async fn admit(room: &Arc<Semaphore>, shared: &Shared) -> Option<OwnedSemaphorePermit> {
    if let Ok(permit) = Arc::clone(room).try_acquire_owned() {
        return Some(permit);
    }
    loop {
        shared.connections.evict_idle();
        tokio::select! {
            permit = Arc::clone(room).acquire_owned() => {
                return Some(permit.expect("the semaphore is never closed"));
            }
            () = tokio::time::sleep(RETRY_ROOM) => {}
            () = shared.shutdown.cancelled() => return None,
        }
    }
}

/// Serves one connection, from `peer`, until it ends, times out or the
/// server shuts down; `permit` is its place under the connection cap.
pub(super) async fn serve(
    stream: TcpStream,
    peer: IpAddr,
    shared: Arc<Shared>,
    permit: OwnedSemaphorePermit,
) {
    let activity = Activity::new();
    shared.connections.add(&activity);
    let io = TokioIo::new(Tracked::new(stream, &activity));
    let service = {
        let shared = Arc::clone(&shared);
        let activity = Arc::clone(&activity);
        hyper::service::service_fn(move |request| {
            let busy = Busy::begin(&activity);
            let shared = Arc::clone(&shared);
            async move {
                let mut reply = super::post::handle(&shared, request, peer).await;
                reply.body_mut().hold(busy);
                Ok::<_, Infallible>(reply)
            }
        })
    };
    let connection = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    let mut connection = std::pin::pin!(connection);
    let mut evicted = false;
    loop {
        tokio::select! {
            outcome = connection.as_mut() => {
                if let Err(error) = outcome {
                    tracing::debug!(%error, "an HTTP connection ended with an error");
                }
                break;
            }
            () = shared.shutdown.cancelled() => break,
            () = activity.expired() => {
                tracing::debug!("closing an HTTP connection past its header or idle timeout");
                break;
            }
            () = activity.evicted(), if !evicted => {
                tracing::debug!("closing an idle HTTP connection to make room for a new one");
                evicted = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
    drop(permit);
}

/// Closes every connection past its header or idle timeout, looking a few
/// times a second (or a quarter of the shorter timeout, when that is less),
/// until the task is aborted.
pub(super) async fn watch(shared: Arc<Shared>) {
    let (header, idle) = (shared.options.header_timeout, shared.options.idle_timeout);
    let every = (header.min(idle) / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
    loop {
        tokio::time::sleep(every).await;
        shared.connections.expire(header, idle);
    }
}
