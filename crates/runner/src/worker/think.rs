//! fio's `thinktime` (its `handle_thinktime()`): after every `thinktime_blocks` I/Os
//! (completed, or issued with `thinktime_blocks_type=issue`), or once `thinktime_iotime` has
//! passed, the job lets what is in flight complete, busy-waits `thinktime_spin`, then sleeps
//! the rest of `thinktime`. The loops drain the queue; this decides when and pauses.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use iolab_job::Think;
use iolab_stats::Clock;

/// Sleeps are cut into slices this long so a stop is heard.
const SLICE: Duration = Duration::from_millis(50);

pub(super) struct Pauser {
    /// `thinkcycles`: spin-loop hints after each I/O issued (0: none).
    cycles: u64,
    spin: u64,
    sleep: Duration,
    blocks: u64,
    on_issue: bool,
    /// Only by time: `thinktime_iotime` set and `thinktime_blocks` not (fio skips the count).
    time_only: bool,
    /// Ticks of I/O (plus the pause) between pauses by time (`u64::MAX`: not by time).
    every: u64,
    issued: u64,
    completed: u64,
    /// The count and the tick at the last pause.
    last: u64,
    pub last_t: u64,
    /// An async loop found a pause due while submitting; it drains, then pauses.
    pub pending: bool,
}

impl Pauser {
    /// `None` when the job does not think (fio skips it all when `thinktime` is 0 and there
    /// are no `thinkcycles`); with cycles alone it spins and never pauses.
    pub fn new(think: &Think, clock: &Clock, now: u64) -> Option<Pauser> {
        let pauses = !think.time.is_zero();
        if !pauses && think.cycles == 0 {
            return None;
        }
        let by_time = pauses && !think.iotime.is_zero();
        Some(Pauser {
            cycles: think.cycles.into(),
            spin: clock.duration_to_ticks(think.spin()),
            sleep: think.time - think.spin(),
            blocks: think.blocks(),
            on_issue: think.on_issue,
            // Without a thinktime nothing is counted toward a pause: cycles alone.
            time_only: !pauses || (by_time && think.blocks.is_none()),
            every: if by_time {
                clock.duration_to_ticks(think.iotime + think.time)
            } else {
                u64::MAX
            },
            issued: 0,
            completed: 0,
            last: 0,
            last_t: now,
            pending: false,
        })
    }

    /// The sleep of every pause from now on (an engine that sets its own pauses, as cpuio's
    /// qsort keeps its load after timing its burn).
    #[cold]
    pub fn set_sleep(&mut self, sleep: Duration) {
        self.sleep = sleep;
    }

    /// `n` I/Os went in: counted, and `thinkcycles` spun for each, cut short by a stop or
    /// the job's time running out (`end`, in ticks), so no count makes the job outlive its
    /// runtime or ignore a signal.
    #[inline(always)]
    pub fn issued(&mut self, n: usize, clock: &Clock, stop: &AtomicBool, end: u64) {
        self.issued += n as u64;
        if self.cycles > 0 {
            spin_cycles(self.cycles.saturating_mul(n as u64), clock, stop, end);
        }
    }

    #[inline(always)]
    pub fn completed(&mut self, n: usize) {
        self.completed += n as u64;
    }

    fn count(&self) -> u64 {
        if self.on_issue {
            self.issued
        } else {
            self.completed
        }
    }

    /// Whether the job pauses now, checked after each I/O goes in (as fio does).
    #[inline(always)]
    pub fn due(&self, now: u64) -> bool {
        if now.saturating_sub(self.last_t) >= self.every {
            return true;
        }
        !self.time_only && self.count() >= self.last + self.blocks
    }

    /// The pause itself, once nothing is in flight; returns the clock after it. A stop, or
    /// the job's time running out (`end`, in ticks), cuts it short: a pause is never what
    /// keeps a job past its runtime.
    #[cold]
    pub fn pause(&mut self, clock: &Clock, stop: &AtomicBool, end: u64) -> u64 {
        let start = clock.now();
        while clock.now() - start < self.spin && clock.now() < end && !stop.load(Ordering::Relaxed)
        {
            std::hint::spin_loop();
        }
        let mut left = self.sleep;
        while !left.is_zero() && !stop.load(Ordering::Relaxed) {
            let now = clock.now();
            if now >= end {
                break;
            }
            let to_end = Duration::from_nanos(clock.ticks_to_ns(end - now) as u64);
            let step = left.min(SLICE).min(to_end.max(Duration::from_micros(1)));
            std::thread::sleep(step);
            left = left.saturating_sub(step);
        }
        self.last = self.count();
        self.last_t = start;
        clock.now()
    }
}

/// Spin-loop hints between looks at the stop flag and the clock: a few microseconds.
const SPIN_CHUNK: u64 = 1 << 12;

/// fio's `cycles_spin()`: `n` spin-loop hints (`pause` on x86, as fio's `rep;nop`), with a
/// look at the stop flag and the clock every [`SPIN_CHUNK`] of them.
#[inline(never)]
fn spin_cycles(n: u64, clock: &Clock, stop: &AtomicBool, end: u64) {
    let mut left = n;
    while left > 0 {
        let chunk = left.min(SPIN_CHUNK);
        for _ in 0..chunk {
            std::hint::spin_loop();
        }
        left -= chunk;
        if left > 0 && (stop.load(Ordering::Relaxed) || clock.now() >= end) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinkcycles_alone_spin_and_never_pause() {
        let clock = Clock::monotonic();
        let think = Think {
            cycles: 1000,
            ..Think::default()
        };
        let mut p = Pauser::new(&think, &clock, 0).expect("a spinner");
        p.issued(3, &clock, &AtomicBool::new(false), u64::MAX);
        p.completed(3);
        assert!(!p.due(u64::MAX / 2), "no pause without thinktime");
        assert!(Pauser::new(&Think::default(), &clock, 0).is_none());
    }

    fn pauser(think: Think) -> (Pauser, Clock) {
        let clock = Clock::monotonic();
        (Pauser::new(&think, &clock, 0).unwrap(), clock)
    }

    #[test]
    fn pauses_every_thinktime_blocks_completions_by_default() {
        let (mut p, _) = pauser(Think {
            time: Duration::from_micros(1),
            blocks: Some(3),
            ..Think::default()
        });
        p.issued(5, &Clock::monotonic(), &AtomicBool::new(false), u64::MAX);
        p.completed(2);
        assert!(!p.due(0), "issued I/Os do not count by default");
        p.completed(1);
        assert!(p.due(0));
        p.last = p.count();
        assert!(!p.due(0));
    }

    #[test]
    fn issue_counting_and_time_only() {
        let (mut p, _) = pauser(Think {
            time: Duration::from_micros(1),
            blocks: Some(2),
            on_issue: true,
            ..Think::default()
        });
        p.issued(2, &Clock::monotonic(), &AtomicBool::new(false), u64::MAX);
        assert!(p.due(0));
        let (mut p, clock) = pauser(Think {
            time: Duration::from_millis(1),
            iotime: Duration::from_millis(10),
            ..Think::default()
        });
        p.completed(1000);
        assert!(
            !p.due(0),
            "with thinktime_iotime alone the count does not matter"
        );
        assert!(p.due(clock.duration_to_ticks(Duration::from_millis(11))));
    }

    /// thinkcycles=4294967295 is minutes of spinning per I/O: a stop or the job's end cuts it.
    #[test]
    fn a_huge_thinkcycles_ends_at_a_stop_or_the_jobs_end() {
        let clock = Clock::monotonic();
        let think = Think {
            cycles: u32::MAX,
            ..Think::default()
        };
        let mut p = Pauser::new(&think, &clock, 0).unwrap();
        let t = std::time::Instant::now();
        p.issued(1, &clock, &AtomicBool::new(true), u64::MAX);
        let end = clock.now() + clock.duration_to_ticks(Duration::from_millis(50));
        p.issued(1, &clock, &AtomicBool::new(false), end);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    }

    #[test]
    fn no_thinktime_no_pauser() {
        assert!(Pauser::new(&Think::default(), &Clock::monotonic(), 0).is_none());
    }
}
