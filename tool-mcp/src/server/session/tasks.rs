//! A session's tasks: how many it runs, and the owner key its tasks are
//! kept under in the task store, new for each session.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// A session's tasks: how many its calls run now, and the key the task
/// store counts them against ([`Tasks::with_owner`](tool_tasks::Tasks::with_owner)), new for each
/// session.
pub(in crate::server) struct SessionTasks {
    /// How many tasks the session's calls run now.
    pub(in crate::server) running: Arc<AtomicUsize>,
    /// The key the task store counts the session's tasks against.
    pub(in crate::server) owner: Arc<str>,
}

impl Default for SessionTasks {
    /// No task running, and an owner key of 128 random bits
    /// (`session:` and 32 hex digits), unique across the processes that
    /// share a store.
    fn default() -> Self {
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
        let mut owner = String::from("session:");
        for byte in bits {
            let _ = write!(owner, "{byte:02x}");
        }
        SessionTasks {
            running: Arc::default(),
            owner: owner.into(),
        }
    }
}

impl SessionTasks {
    /// How many tasks the session's calls run now.
    #[cfg(feature = "http")]
    pub(in crate::server) fn running(&self) -> usize {
        self.running.load(std::sync::atomic::Ordering::Acquire)
    }
}
