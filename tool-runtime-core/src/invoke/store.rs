//! [`ResultStore`]: the full results a registry kept from the model (see
//! `limit.rs`), under their handles, bounded in number and in bytes, each
//! its call's owner's.

use std::collections::VecDeque;
use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::context::Owner;
use crate::spec::limit::{MissingResult, ResultHandle, ResultLimit};
use crate::spec::result::ToolResult;

/// How many full results a registry keeps by default.
pub(crate) const DEFAULT_KEPT_RESULTS: usize = 64;

/// How many bytes of full results a registry keeps by default (64 MiB).
pub(crate) const DEFAULT_KEPT_BYTES: usize = 64 << 20;

/// A registry's full results that reached the model cut or refused, kept
/// under their handles with the limit they were held to: at most a number
/// of them and of bytes, the oldest dropped first.
pub(crate) struct ResultStore {
    kept: Mutex<Kept>,
    max_results: usize,
    max_bytes: usize,
}

#[derive(Default)]
struct Kept {
    entries: VecDeque<Entry>,
    bytes: usize,
}

/// One full result kept.
struct Entry {
    handle: ResultHandle,
    result: Arc<ToolResult>,
    /// Its size, in bytes of text.
    size: usize,
    /// The limit it was held to, which its pages keep to.
    limit: ResultLimit,
    /// Whose it is: the owner of the call that made it.
    owner: Option<Owner>,
}

impl Default for ResultStore {
    fn default() -> Self {
        ResultStore::new(DEFAULT_KEPT_RESULTS, DEFAULT_KEPT_BYTES)
    }
}

impl ResultStore {
    /// A store of at most `max_results` results and `max_bytes` bytes.
    pub(crate) fn new(max_results: usize, max_bytes: usize) -> Self {
        ResultStore {
            kept: Mutex::default(),
            max_results,
            max_bytes,
        }
    }

    /// Keeps `result`, of `size` bytes, held to `limit`, `owner`'s,
    /// dropping the oldest results while there are too many or they are
    /// too large; `None` when it is larger than the whole store (or the
    /// store keeps nothing).
    pub(crate) fn keep(
        &self,
        result: ToolResult,
        size: usize,
        limit: ResultLimit,
        owner: Option<&Owner>,
    ) -> Option<ResultHandle> {
        if self.max_results == 0 || size > self.max_bytes {
            return None;
        }
        let handle = new_handle();
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while kept.entries.len() >= self.max_results || kept.bytes + size > self.max_bytes {
            match kept.entries.pop_front() {
                Some(dropped) => kept.bytes -= dropped.size,
                None => break,
            }
        }
        kept.bytes += size;
        kept.entries.push_back(Entry {
            handle: handle.clone(),
            result: Arc::new(result),
            size,
            limit,
            owner: owner.cloned(),
        });
        Some(handle)
    }

    /// The full result kept under `handle`, whoever's it is (the program
    /// reads them all).
    pub(crate) fn get(&self, handle: &ResultHandle) -> Result<Arc<ToolResult>, MissingResult> {
        self.find(handle, |_| true).map(|(result, _)| result)
    }

    /// The full result kept under `handle` when it is `owner`'s, and the
    /// limit it was held to. Another owner's is missing, as one never kept.
    pub(crate) fn get_held(
        &self,
        handle: &ResultHandle,
        owner: Option<&Owner>,
    ) -> Result<(Arc<ToolResult>, ResultLimit), MissingResult> {
        self.find(handle, |entry| entry.owner.as_ref() == owner)
    }

    fn find(
        &self,
        handle: &ResultHandle,
        readable: impl Fn(&Entry) -> bool,
    ) -> Result<(Arc<ToolResult>, ResultLimit), MissingResult> {
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        kept.entries
            .iter()
            .find(|entry| entry.handle == *handle && readable(entry))
            .map(|entry| (Arc::clone(&entry.result), entry.limit))
            .ok_or_else(|| MissingResult {
                handle: handle.clone(),
                max_results: self.max_results,
                max_bytes: self.max_bytes,
            })
    }
}

/// A new handle: `r-` and 32 hex digits, SipHash of a counter under the
/// standard library's randomly seeded keys, so a handle is hard to guess
/// (it is what lets a caller read a full result).
fn new_handle() -> ResultHandle {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut text = String::with_capacity(34);
    text.push_str("r-");
    for half in 0..2u8 {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(n);
        hasher.write_u8(half);
        let _ = write!(text, "{:016x}", hasher.finish());
    }
    ResultHandle::new(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_drops_the_oldest_first() {
        let store = ResultStore::new(2, 100);
        let limit = ResultLimit::Bytes(10);
        let first = store
            .keep(ToolResult::text("1", "a".repeat(40)), 40, limit, None)
            .unwrap();
        let second = store
            .keep(ToolResult::text("2", "b".repeat(40)), 40, limit, None)
            .unwrap();
        let third = store
            .keep(ToolResult::text("3", "c".repeat(40)), 40, limit, None)
            .unwrap();
        let missing = store.get(&first).unwrap_err();
        assert!(missing.to_string().contains("dropped"), "{missing}");
        assert_eq!(store.get(&second).unwrap().text_content(), "b".repeat(40));
        assert_eq!(store.get(&third).unwrap().text_content(), "c".repeat(40));
        // Over the byte budget: both older ones make room.
        let big = store
            .keep(ToolResult::text("4", "d".repeat(90)), 90, limit, None)
            .unwrap();
        assert!(store.get(&second).is_err() && store.get(&third).is_err());
        assert!(store.get(&big).is_ok());
        assert!(
            store
                .keep(ToolResult::text("5", "e".repeat(101)), 101, limit, None)
                .is_none()
        );
        assert_ne!(first, second);
    }
}
