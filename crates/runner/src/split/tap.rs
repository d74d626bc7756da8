//! The worker's end of the latency split: each completed I/O's own stamps, pushed into a
//! wait-free ring the joiner drains. No allocation, no lock, no system call: a full ring
//! costs the I/O its split (counted), never the worker a wait.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use iolab_engine::{Direction, IoUnit};

/// One I/O as iolab saw it: stamped before its submit call and when it was reaped
/// (`CLOCK_MONOTONIC` ns: a split run's clock), where it went and how much.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub start: u64,
    pub end: u64,
    pub offset: u64,
    pub len: u32,
    /// Which of the job's files.
    pub file: u16,
    pub dir: u8,
    /// [`Stamp::IO`], or [`Stamp::RESET`]: the measured window starts here, forget the ramp.
    pub kind: u8,
}

impl Stamp {
    pub const IO: u8 = 0;
    pub const RESET: u8 = 1;
}

/// Stamps a worker could not push (the ring was full), per direction: issued, never joined.
pub(crate) type Dropped = Arc<[AtomicU64; Direction::COUNT]>;

pub(crate) struct SplitTap {
    tx: rtrb::Producer<Stamp>,
    dropped: Dropped,
}

impl SplitTap {
    pub fn new(tx: rtrb::Producer<Stamp>, dropped: Dropped) -> SplitTap {
        SplitTap { tx, dropped }
    }

    /// One I/O, submitted at `start` and reaped at `end` (ns).
    #[inline(always)]
    pub fn io(&mut self, start: u64, end: u64, io: &IoUnit) {
        let s = Stamp {
            start,
            end,
            offset: io.offset,
            len: io.len,
            file: io.file as u16,
            dir: io.dir.index() as u8,
            kind: Stamp::IO,
        };
        if self.tx.push(s).is_err() {
            self.full(io.dir);
        }
    }

    #[cold]
    fn full(&mut self, dir: Direction) {
        self.dropped[dir.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// The measured window starts at `now` (ns): the joiner forgets what came before and
    /// counts latency windows from here. Waits for room (once per run, before the window's
    /// first I/O), so the mark is never lost.
    #[cold]
    pub fn reset(&mut self, now: u64) {
        for d in self.dropped.iter() {
            d.store(0, Ordering::Relaxed);
        }
        let mark = Stamp {
            kind: Stamp::RESET,
            start: now,
            ..Stamp::default()
        };
        while self.tx.push(mark).is_err() {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }
}
