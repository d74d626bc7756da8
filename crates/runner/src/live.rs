//! What a run has measured so far, for a live progress line: shared between the workers
//! (writers) and whoever draws the line (reader).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use iolab_engine::Direction;

/// Running totals of the measured I/O of a run, per direction, readable while it runs.
/// Workers add to them once per sample interval (not per I/O), so the hot path never
/// touches shared memory.
#[derive(Debug, Default)]
pub struct LiveCounters {
    ios: [AtomicU64; Direction::COUNT],
    bytes: [AtomicU64; Direction::COUNT],
}

impl LiveCounters {
    pub(crate) fn add(&self, dir: usize, ios: u64, bytes: u64) {
        self.ios[dir].fetch_add(ios, Ordering::Relaxed);
        self.bytes[dir].fetch_add(bytes, Ordering::Relaxed);
    }

    /// (I/Os, bytes) measured so far, all directions.
    pub fn totals(&self) -> (u64, u64) {
        self.by_direction()
            .iter()
            .fold((0, 0), |(i, b), d| (i + d.0, b + d.1))
    }

    /// (I/Os, bytes) measured so far per direction (read, write, trim).
    pub fn by_direction(&self) -> [(u64, u64); Direction::COUNT] {
        std::array::from_fn(|d| {
            (
                self.ios[d].load(Ordering::Relaxed),
                self.bytes[d].load(Ordering::Relaxed),
            )
        })
    }
}

/// The current rates per direction, as fio's ETA line shows them: I/Os and bytes per second
/// over the last second or so, and the totals so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LiveRates {
    pub iops: [f64; Direction::COUNT],
    pub bytes_per_sec: [f64; Direction::COUNT],
    pub totals: [(u64, u64); Direction::COUNT],
    /// Whether a rate has been measured yet (the first second, or a ramp, has none).
    pub measured: bool,
}

/// Turns the counters into rates: each look at least `every` after the one before
/// measures the rate between them; looks in between keep the last rate.
#[derive(Debug)]
pub struct RateMeter {
    every: Duration,
    last: Option<(Instant, [(u64, u64); Direction::COUNT])>,
    rates: LiveRates,
}

impl RateMeter {
    pub fn new(every: Duration) -> RateMeter {
        RateMeter {
            every,
            last: None,
            rates: LiveRates::default(),
        }
    }

    /// The rates now. The first rate is measured between the first two looks that saw the
    /// counters move (workers add every sample interval, 500 ms), so a short point shows one
    /// too; after that, once per `every`.
    pub fn look(&mut self, live: &LiveCounters) -> LiveRates {
        let now = Instant::now();
        let totals = live.by_direction();
        self.rates.totals = totals;
        let moved = |before: &[(u64, u64); Direction::COUNT]| before != &totals;
        match self.last {
            // Nothing counted yet (a ramp): the rate starts at the first count.
            None => self.last = Some((now, totals)),
            Some((_, before)) if before.iter().all(|d| d.0 == 0) => self.last = Some((now, totals)),
            Some((at, before))
                if moved(&before)
                    && (!self.rates.measured || now.duration_since(at) >= self.every) =>
            {
                let dt = now.duration_since(at).as_secs_f64().max(1e-3);
                for d in 0..Direction::COUNT {
                    self.rates.iops[d] = totals[d].0.saturating_sub(before[d].0) as f64 / dt;
                    self.rates.bytes_per_sec[d] =
                        totals[d].1.saturating_sub(before[d].1) as f64 / dt;
                }
                self.rates.measured = true;
                self.last = Some((now, totals));
            }
            Some(_) => {}
        }
        self.rates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_per_direction_between_looks() {
        let live = LiveCounters::default();
        let mut m = RateMeter::new(Duration::from_millis(20));
        assert!(!m.look(&live).measured);
        live.add(0, 1, 4096);
        assert!(!m.look(&live).measured, "the first count starts the clock");
        live.add(0, 99, 405_504);
        live.add(1, 10, 40_960);
        std::thread::sleep(Duration::from_millis(25));
        let r = m.look(&live);
        assert!(r.measured);
        assert!(r.iops[0] > 9.0 * r.iops[1] && r.iops[1] > 0.0, "{r:?}");
        assert_eq!(r.iops[2], 0.0);
        assert_eq!(r.totals[0], (100, 409_600));
        assert_eq!(live.totals(), (110, 450_560));
    }
}
