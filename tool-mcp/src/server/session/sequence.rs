//! The order of a session's calls: a call of a sequential tool
//! ([`Registry::is_sequential`](tool_runtime::Registry::is_sequential))
//! waits until the session's calls already running have finished, runs
//! alone, and the calls that arrive after it wait until it has finished.
//! Calls of other sessions are not held.
//!
//! It is a read-write lock of the session's: an ordinary call holds a read
//! guard while it runs, a sequential one the write guard. Tokio's lock
//! serves those who wait first come, first served, and a call takes its
//! place in line when it arrives, before the transport runs its work
//! anywhere, so the order is that of the requests, whatever order their
//! work is scheduled in.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use tokio::sync::{OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};
use tool_runtime::context::CancellationToken;

/// A session's line of calls.
#[derive(Default)]
pub(in crate::server) struct Order {
    lock: Arc<RwLock<()>>,
}

/// A call's turn: held while the call runs.
pub(in crate::server) enum Turn {
    /// An ordinary call's, shared with the others running.
    #[expect(dead_code, reason = "held for its drop")]
    Shared(OwnedRwLockReadGuard<()>),
    /// A sequential call's, held alone.
    #[expect(dead_code, reason = "held for its drop")]
    Alone(OwnedRwLockWriteGuard<()>),
}

type Waiting = Pin<Box<dyn Future<Output = Turn> + Send>>;

/// A call's place in line, taken when it arrives.
pub(in crate::server) enum Place {
    /// Its turn has come already.
    Ready(Turn),
    /// It waits for its turn.
    Waiting(Waiting),
}

impl Order {
    /// The place in line of a call that arrives now; `sequential` for a
    /// call of a sequential tool.
    pub(in crate::server) fn enter(&self, sequential: bool) -> Place {
        if !sequential {
            // Free permits mean no call waits before this one (the lock
            // hands those released to the first in line).
            if let Ok(guard) = Arc::clone(&self.lock).try_read_owned() {
                return Place::Ready(Turn::Shared(guard));
            }
        }
        let lock = Arc::clone(&self.lock);
        let mut waiting: Waiting = if sequential {
            Box::pin(async move { Turn::Alone(lock.write_owned().await) })
        } else {
            Box::pin(async move { Turn::Shared(lock.read_owned().await) })
        };
        // The first poll takes the call's place in the lock's queue; the
        // one that awaits it later brings the real waker.
        match waiting
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(turn) => Place::Ready(turn),
            Poll::Pending => Place::Waiting(waiting),
        }
    }
}

impl Place {
    /// The call's turn, once it has come; `None` when the call is
    /// cancelled first.
    pub(in crate::server) async fn turn(self, cancelled: &CancellationToken) -> Option<Turn> {
        match self {
            Place::Ready(turn) => Some(turn),
            Place::Waiting(waiting) => tokio::select! {
                turn = waiting => Some(turn),
                () = cancelled.cancelled() => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sequential_call_waits_for_those_before_and_holds_those_after() {
        let order = Order::default();
        let first = order.enter(false);
        assert!(matches!(first, Place::Ready(_)));
        let alone = order.enter(true);
        assert!(matches!(alone, Place::Waiting(_)));
        let after = order.enter(false);
        assert!(matches!(after, Place::Waiting(_)));
        let never = CancellationToken::new();
        let after = tokio::spawn(async move { after.turn(&never).await.is_some() });
        drop(first);
        let turn = alone.turn(&CancellationToken::new()).await;
        assert!(turn.is_some());
        tokio::task::yield_now().await;
        assert!(!after.is_finished());
        drop(turn);
        assert!(after.await.unwrap());
    }

    #[tokio::test]
    async fn a_call_cancelled_while_it_waits_gives_up_its_place() {
        let order = Order::default();
        let first = order.enter(true);
        let waiting = order.enter(false);
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        assert!(waiting.turn(&cancelled).await.is_none());
        drop(first);
        assert!(matches!(order.enter(true), Place::Ready(_)));
    }
}
