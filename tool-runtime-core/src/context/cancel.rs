//! The cancellation token: a flag that can be set once, a way to wait for
//! it, and children that are cancelled with their parent.
//!
//! A token is one `Arc`: cloning and dropping it only count, and reading it
//! is one atomic load. Waiting rides on Tokio's [`Notify`], which the
//! runtime compiles anyway. A parent keeps weak handles to its children, so
//! a child nobody holds any more is freed at once and its slot reused by the
//! next child; the list never holds more than twice the live children.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};

use tokio::sync::{Notify, futures::Notified};

/// The cancellation signal of a [`ToolContext`](super::ToolContext): cancel
/// it, and everything waiting on it (or on a [child](Self::child_token)) is
/// woken.
///
/// Clones share one signal. Cancelling is permanent and idempotent.
///
/// ```
/// use tool_runtime::context::CancellationToken;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let parent = CancellationToken::new();
/// let child = parent.child_token();
/// child.cancel();
/// assert!(!parent.is_cancelled(), "a child does not cancel its parent");
///
/// let other = parent.child_token();
/// parent.cancel();
/// other.cancelled().await; // completes: the parent cancels its children
/// # });
/// ```
#[derive(Clone, Default)]
pub struct CancellationToken {
    node: Arc<Node>,
}

#[derive(Default)]
struct Node {
    cancelled: AtomicBool,
    notify: Notify,
    /// Set to `None` when the node is cancelled: no child is added after.
    children: Mutex<Option<Vec<Weak<Node>>>>,
}

impl Node {
    /// Cancels this node and, depth first, every live descendant.
    fn cancel(self: &Arc<Self>) {
        let mut pending = vec![Arc::clone(self)];
        while let Some(node) = pending.pop() {
            if node.cancelled.swap(true, Ordering::AcqRel) {
                continue;
            }
            node.notify.notify_waiters();
            let children = node
                .children
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            pending.extend(children.into_iter().flatten().filter_map(|c| c.upgrade()));
        }
    }
}

impl CancellationToken {
    /// A token not yet cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token cancelled when this one is, which can also be cancelled on
    /// its own without cancelling this one.
    pub fn child_token(&self) -> Self {
        let child = Self::new();
        let mut children = self
            .node
            .children
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_cancelled() {
            // Cancelled before (or while) the child was made.
            drop(children);
            child.node.cancelled.store(true, Ordering::Release);
            return child;
        }
        let list = children.get_or_insert_with(Vec::new);
        if list.len() == list.capacity() {
            // Before the list grows, drop the children nobody holds.
            list.retain(|c| c.strong_count() > 0);
        }
        list.push(Arc::downgrade(&child.node));
        child
    }

    /// Cancels this token and its children, waking everything waiting on
    /// them. Cancelling again does nothing.
    pub fn cancel(&self) {
        self.node.cancel();
    }

    /// Whether the token has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.node.cancelled.load(Ordering::Acquire)
    }

    /// Completes when the token is cancelled (at once if it already is).
    pub fn cancelled(&self) -> Cancelled<'_> {
        Cancelled {
            // Made before the flag is read: a cancel after this point wakes it.
            notified: self.node.notify.notified(),
            node: &self.node,
        }
    }

    /// [`cancelled`](Self::cancelled), holding the token: a future that
    /// can outlive the borrow, for a spawned task.
    pub async fn cancelled_owned(self) {
        self.cancelled().await;
    }
}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken")
            .field("is_cancelled", &self.is_cancelled())
            .finish()
    }
}

pin_project_lite::pin_project! {
    /// The future [`CancellationToken::cancelled`] returns.
    #[must_use = "futures do nothing unless polled"]
    pub struct Cancelled<'a> {
        #[pin]
        notified: Notified<'a>,
        node: &'a Node,
    }
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        if this.node.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        // Only `cancel` notifies, after setting the flag.
        this.notified.poll(cx)
    }
}

impl fmt::Debug for Cancelled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn cancelling_a_parent_cancels_every_descendant_but_not_the_reverse() {
        let root = CancellationToken::new();
        let child = root.child_token();
        let grandchild = child.child_token();
        let sibling = root.child_token();
        sibling.cancel();
        assert!(!root.is_cancelled() && !child.is_cancelled());
        root.cancel();
        assert!(child.is_cancelled() && grandchild.is_cancelled());
        // A child made after the cancel is born cancelled.
        assert!(root.child_token().is_cancelled());
    }

    #[test]
    fn a_waiter_made_before_the_cancel_is_woken() {
        block_on(async {
            let token = CancellationToken::new();
            let child = token.child_token();
            let waiter = tokio::spawn(child.clone().cancelled_owned());
            tokio::task::yield_now().await;
            assert!(!waiter.is_finished());
            token.cancel();
            tokio::time::timeout(std::time::Duration::from_secs(10), waiter)
                .await
                .expect("woken")
                .unwrap();
        });
    }

    #[test]
    fn dropped_children_do_not_accumulate() {
        let parent = CancellationToken::new();
        let kept = parent.child_token();
        for _ in 0..10_000 {
            drop(parent.child_token());
        }
        let len = parent
            .node
            .children
            .lock()
            .unwrap()
            .as_ref()
            .map_or(0, Vec::len);
        assert!(len <= 4, "{len} slots for one live child");
        parent.cancel();
        assert!(kept.is_cancelled());
    }

    #[test]
    fn cancelling_from_many_threads_while_children_are_made_loses_none() {
        for _ in 0..50 {
            let parent = CancellationToken::new();
            let children = std::thread::scope(|scope| {
                let maker =
                    scope.spawn(|| (0..200).map(|_| parent.child_token()).collect::<Vec<_>>());
                scope.spawn(|| parent.cancel());
                maker.join().unwrap()
            });
            assert!(children.iter().all(CancellationToken::is_cancelled));
        }
    }
}
