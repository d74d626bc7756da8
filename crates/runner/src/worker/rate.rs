//! `rate_iops`: each direction's I/Os are due at a fixed interval from the start of the
//! measured window. A job that fell behind is not made to wait until it has caught up (fio
//! does the same).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use iolab_engine::Direction;
use iolab_stats::Clock;

pub(super) struct RateLimit {
    /// Any direction limited.
    pub on: bool,
    /// Ticks per I/O per direction (0: none).
    ticks: [u64; 2],
    /// I/Os counted since `base`.
    count: [u64; 2],
    base: u64,
}

impl RateLimit {
    pub fn new(clock: &Clock, rate_iops: [Option<u32>; 2], now: u64) -> RateLimit {
        let per_sec = clock.duration_to_ticks(Duration::from_secs(1));
        RateLimit {
            on: rate_iops.iter().any(Option::is_some),
            ticks: rate_iops.map(|r| r.map_or(0, |iops| per_sec / iops as u64)),
            count: [0, 0],
            base: now,
        }
    }

    /// Counting starts again at `now` (the measured window began).
    pub fn restart(&mut self, now: u64) {
        self.base = now;
        self.count = [0, 0];
    }

    /// Waits until direction `d` may issue its next I/O, or a stop is asked for.
    #[cold]
    pub fn wait(&mut self, d: Direction, clock: &Clock, stop: &AtomicBool) {
        let per = self.ticks[d.index()];
        if per == 0 {
            return;
        }
        let due = self.base + self.count[d.index()] * per;
        self.count[d.index()] += 1;
        loop {
            let now = clock.now();
            if now >= due || stop.load(Ordering::Relaxed) {
                return;
            }
            let left_ns = clock.ticks_to_ns(due - now);
            if left_ns > 200_000.0 {
                std::thread::sleep(Duration::from_nanos(left_ns as u64 - 100_000));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}
