//! fio's latency target, as its `lat_target_*()` functions in io_u.c run it: start at depth
//! 1, double while a window's I/Os meet the target, bisect between the last good and the
//! first bad depth once one fails, and when a window leaves the depth where it was, quiesce,
//! forget what was measured and run one more window at that depth: the figures reported.
//! With `latency_percentile=100` a single late I/O fails the depth at once; at depth 1 that
//! ends the job with fio's "latency exceeds" error.

use iolab_job::LatTarget;
use iolab_stats::Clock;

/// What the loop must do after a look at the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Go,
    /// Let what is in flight complete before going on at the new depth.
    Quiesce,
    /// Quiesce, then start measuring afresh: the final window at the depth found.
    FinalRun,
    /// The final window is over: the job is done.
    Done,
}

pub(super) struct DepthSearch {
    target_ticks: u64,
    window_ticks: u64,
    percentile: f64,
    keep_adjusting: bool,
    max_depth: u32,
    /// The depth in use, and the search's bounds (fio's latency_qd, _low, _high).
    pub qd: u32,
    low: u32,
    high: u32,
    stable: u32,
    end_run: bool,
    cycle_start: u64,
    cycle_ios: u64,
    failed: u64,
    /// Set by a failed depth: nothing more is issued until the queue drains.
    pub quiescing: bool,
}

impl DepthSearch {
    pub fn new(t: &LatTarget, max_depth: u32, clock: &Clock, now: u64) -> Option<DepthSearch> {
        t.on().then(|| DepthSearch {
            target_ticks: clock.duration_to_ticks(t.target),
            window_ticks: clock.duration_to_ticks(t.window),
            percentile: t.percentile,
            keep_adjusting: t.keep_adjusting,
            max_depth: max_depth.max(1),
            qd: 1,
            low: 1,
            high: max_depth.max(1),
            stable: 0,
            end_run: false,
            cycle_start: now,
            cycle_ios: 0,
            failed: 0,
            quiescing: false,
        })
    }

    /// Whether another I/O may go in flight with `inflight` already there.
    #[inline(always)]
    pub fn room(&self, inflight: usize) -> bool {
        !self.quiescing && inflight < self.qd as usize
    }

    /// An I/O completed after `lat_ticks` (submit to completion); `Err` when the target
    /// cannot be met even at depth 1 (every I/O must meet it).
    #[inline(always)]
    pub fn completed(&mut self, lat_ticks: u64, now: u64, ios: u64) -> Result<(), ()> {
        if lat_ticks <= self.target_ticks {
            return Ok(());
        }
        if self.percentile < 100.0 {
            self.failed += 1;
            return Ok(());
        }
        if self.qd == 1 {
            return Err(());
        }
        self.ramp_down(now, ios);
        Ok(())
    }

    /// fio's `__lat_target_failed()`.
    fn ramp_down(&mut self, now: u64, ios: u64) {
        self.high = self.qd;
        if self.qd == self.low {
            self.low = self.low.saturating_sub(1).max(1);
        }
        self.qd = ((self.qd + self.low) / 2).max(1);
        self.stable = 0;
        self.quiescing = true;
        self.new_cycle(now, ios);
    }

    fn new_cycle(&mut self, now: u64, ios: u64) {
        self.cycle_start = now;
        self.cycle_ios = ios;
        self.failed = 0;
    }

    /// Judges the window once it is over (fio's `lat_target_check()`), `ios` being the
    /// job's I/Os completed so far.
    pub fn check(&mut self, now: u64, ios: u64) -> Step {
        if now.saturating_sub(self.cycle_start) < self.window_ticks {
            return Step::Go;
        }
        let n = ios.saturating_sub(self.cycle_ios);
        let success = match n {
            0 => 0.0,
            n => (n.saturating_sub(self.failed)) as f64 * 100.0 / n as f64,
        };
        if success >= self.percentile {
            self.ramp_up(now, ios)
        } else if self.qd == 1 {
            self.new_cycle(now, ios);
            Step::Go
        } else {
            self.ramp_down(now, ios);
            Step::Quiesce
        }
    }

    /// fio's `lat_target_success()`.
    fn ramp_up(&mut self, now: u64, ios: u64) -> Step {
        let was = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.qd = match self.high != self.max_depth {
            true => (self.qd + self.high) / 2,
            false => self.qd * 2,
        }
        .min(self.max_depth);
        let step = if self.keep_adjusting || self.qd != was {
            Step::Go
        } else if self.end_run {
            Step::Done
        } else {
            self.end_run = true;
            self.quiescing = true;
            Step::FinalRun
        };
        self.new_cycle(now, ios);
        step
    }

    /// The stats were reset for the final window, at `now`.
    pub fn restarted(&mut self, now: u64) {
        self.new_cycle(now, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn search(max: u32, percentile: f64) -> DepthSearch {
        let t = LatTarget {
            target: Duration::from_nanos(100),
            window: Duration::from_nanos(1000),
            percentile,
            keep_adjusting: false,
        };
        DepthSearch::new(&t, max, &Clock::monotonic(), 0).unwrap()
    }

    /// Runs windows in which depths above `good` miss the target; the depths tried.
    fn run(s: &mut DepthSearch, good: u32) -> (Vec<u32>, Step) {
        let (mut now, mut ios, mut seen) = (0, 0, vec![]);
        for _ in 0..40 {
            seen.push(s.qd);
            s.quiescing = false;
            for _ in 0..10 {
                ios += 1;
                let lat = if s.qd > good { 500 } else { 50 };
                if s.completed(lat, now, ios).is_err() {
                    return (seen, Step::Done);
                }
            }
            now += 1000;
            match s.check(now, ios) {
                Step::Done => return (seen, Step::Done),
                Step::FinalRun => s.restarted(now),
                _ => {}
            }
        }
        (seen, Step::Go)
    }

    #[test]
    fn doubles_then_bisects_to_the_deepest_good_depth() {
        let (seen, end) = run(&mut search(128, 99.0), 12);
        assert_eq!(end, Step::Done);
        assert_eq!(&seen[..6], &[1, 2, 4, 8, 16, 12]);
        assert_eq!(*seen.last().unwrap(), 12, "{seen:?}");
    }

    #[test]
    fn every_io_must_meet_the_target_at_percentile_100() {
        let mut s = search(8, 100.0);
        assert!(s.completed(500, 0, 1).is_err(), "late at depth 1: fatal");
        let mut s = search(8, 100.0);
        s.qd = 4;
        assert!(s.completed(500, 0, 1).is_ok());
        assert_eq!((s.qd, s.quiescing), (2, true));
    }
}
