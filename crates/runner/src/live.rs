//! What a run has measured so far, for a live progress line: shared between the workers
//! (writers) and whoever draws the line (reader).

use std::sync::atomic::{AtomicU64, Ordering};

/// Running totals of the measured I/O of a run, readable while it runs. Workers add to them
/// once per sample interval (not per I/O), so the hot path never touches shared memory.
#[derive(Debug, Default)]
pub struct LiveCounters {
    ios: AtomicU64,
    bytes: AtomicU64,
}

impl LiveCounters {
    pub(crate) fn add(&self, ios: u64, bytes: u64) {
        self.ios.fetch_add(ios, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// (I/Os, bytes) measured so far.
    pub fn totals(&self) -> (u64, u64) {
        (
            self.ios.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}
