//! A session's tasks: how many it runs, and whom what its calls leave
//! behind belongs to when no caller owns it: the session itself, under an
//! owner key new for each session.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use tool_runtime::ToolContext;
use tool_runtime::context::Owner;

/// A session's tasks: how many its calls run now, and the owner of what
/// its anonymous calls leave behind (their tasks, the full results kept
/// for them): the session's own, or none for a session that is a
/// request's own and ends with it.
pub(in crate::server) struct SessionTasks {
    /// How many tasks the session's calls run now.
    pub(in crate::server) running: Arc<AtomicUsize>,
    /// The owner of what the session's calls without a caller of their
    /// own leave behind.
    pub(in crate::server) owner: Option<Owner>,
}

impl SessionTasks {
    /// No task running, and, when `owned`, an owner of the session's own,
    /// which `context` (the session's calls' context) then names.
    pub(in crate::server) fn new(owned: bool, context: &mut ToolContext) -> Self {
        let owner = owned.then(new_owner);
        if let Some(owner) = &owner {
            *context = std::mem::take(context).with_owner(owner.clone());
        }
        SessionTasks {
            running: Arc::default(),
            owner,
        }
    }

    /// How many tasks the session's calls run now.
    #[cfg(feature = "http")]
    pub(in crate::server) fn running(&self) -> usize {
        self.running.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// An owner of 128 random bits (`session:` and 32 hex digits), unique
/// across the processes that share a task store.
fn new_owner() -> Owner {
    let mut bits = [0u8; 16];
    if getrandom::fill(&mut bits).is_err() {
        // No random source: the clock and a count tell sessions apart.
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let count = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        bits[..8].copy_from_slice(&(nanos as u64).to_be_bytes());
        bits[8..].copy_from_slice(&count.to_be_bytes());
    }
    let mut id = String::with_capacity(32);
    for byte in bits {
        let _ = write!(id, "{byte:02x}");
    }
    Owner::session(&id)
}
