//! A global allocator wrapper that counts what is allocated, for the memory
//! figures of the scale harness.
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: bench::alloc::Counting = bench::alloc::Counting::new();
//!
//! let before = ALLOC.snapshot();
//! let held = vec![0u8; 1024];
//! assert!(ALLOC.snapshot().live_bytes - before.live_bytes >= 1024);
//! # drop(held);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting bytes and allocations.
#[derive(Debug)]
pub struct Counting {
    allocated: AtomicU64,
    freed: AtomicU64,
    allocations: AtomicU64,
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// Bytes allocated and not yet freed.
    pub live_bytes: u64,
    /// Bytes ever allocated.
    pub total_bytes: u64,
    /// Allocations ever made (a reallocation counts as one).
    pub allocations: u64,
}

impl Counting {
    /// A counter at zero.
    pub const fn new() -> Self {
        Self {
            allocated: AtomicU64::new(0),
            freed: AtomicU64::new(0),
            allocations: AtomicU64::new(0),
        }
    }

    /// The counters now.
    pub fn snapshot(&self) -> Snapshot {
        let allocated = self.allocated.load(Ordering::Relaxed);
        let freed = self.freed.load(Ordering::Relaxed);
        Snapshot {
            live_bytes: allocated.saturating_sub(freed),
            total_bytes: allocated,
            allocations: self.allocations.load(Ordering::Relaxed),
        }
    }

    fn added(&self, bytes: usize) {
        self.allocated.fetch_add(bytes as u64, Ordering::Relaxed);
        self.allocations.fetch_add(1, Ordering::Relaxed);
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters are only read, never used to decide anything about memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            self.added(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.added(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        self.freed
            .fetch_add(layout.size() as u64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            self.freed
                .fetch_add(layout.size() as u64, Ordering::Relaxed);
            self.added(new_size);
        }
        new
    }
}
