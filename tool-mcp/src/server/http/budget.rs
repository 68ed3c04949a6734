//! The budgets that keep one kind of use from taking the whole server: a
//! count under a cap ([`Budget`]: the event streams of the server, and of
//! each session) and a count under a cap for each of whoever uses it
//! ([`PeerBudget`]: the calls of anonymous requests without a session, by
//! peer address; the calls of each caller an access token shows, by its
//! owner key). What is taken is held by a guard ([`Slot`], [`PeerSlot`])
//! and given back when the guard is dropped, however the request ends.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tool_runtime::context::Owner;

use crate::server::session::lock;

/// Things open at once, at most `max`.
pub(super) struct Budget {
    open: AtomicUsize,
    max: usize,
}

impl Budget {
    /// A budget of `max`, none taken.
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            max,
        })
    }

    /// The cap.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    /// One more, held until the slot is dropped; `None` at the cap.
    pub(super) fn take(self: &Arc<Self>) -> Option<Slot> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(self)))
    }
}

/// One place in a [`Budget`], given back when dropped.
pub(super) struct Slot(Arc<Budget>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whom a request's use of the server counts against: the caller an
/// access token showed (its owner key), or, for an anonymous request, the
/// address it came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Principal {
    Caller(Owner),
    Peer(IpAddr),
}

impl Principal {
    /// The caller `owner` when a token showed one, else the peer `peer`.
    pub(super) fn of(owner: Option<&Owner>, peer: IpAddr) -> Self {
        match owner {
            Some(owner) => Principal::Caller(owner.clone()),
            None => Principal::Peer(peer),
        }
    }
}

/// Things open at once for each of whoever uses them (a peer address, a
/// caller), at most `max` each.
pub(super) struct PeerBudget<K = IpAddr> {
    open: Mutex<HashMap<K, usize>>,
    max: usize,
}

impl<K: Clone + Eq + Hash> PeerBudget<K> {
    /// A budget of `max` for each peer, none taken.
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            open: Mutex::new(HashMap::new()),
            max,
        })
    }

    /// The cap for each peer.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    /// One more for `peer`, held until the slot is dropped; `None` when
    /// `peer` is at the cap.
    pub(super) fn take(self: &Arc<Self>, peer: K) -> Option<PeerSlot<K>> {
        let mut open = lock(&self.open);
        let count = open.entry(peer.clone()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(PeerSlot {
            budget: Arc::clone(self),
            peer,
        })
    }
}

/// One place in a [`PeerBudget`], given back when dropped.
pub(super) struct PeerSlot<K: Clone + Eq + Hash = IpAddr> {
    budget: Arc<PeerBudget<K>>,
    peer: K,
}

impl<K: Clone + Eq + Hash> Drop for PeerSlot<K> {
    fn drop(&mut self) {
        let mut open = lock(&self.budget.open);
        if let Some(count) = open.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

/// What a request holds of the server's budgets while it is served: a
/// call's place under its peer's cap, or its caller's, an event stream's
/// places under the server's cap and its session's.
#[derive(Default)]
pub(super) struct Held {
    /// A call of an anonymous request without a session.
    pub(super) _call: Option<PeerSlot>,
    /// A call of a caller an access token showed.
    pub(super) _caller_call: Option<PeerSlot<Owner>>,
    /// An event stream: the server's place and, in a session, the
    /// session's.
    pub(super) stream: Option<(Slot, Option<Slot>)>,
}
