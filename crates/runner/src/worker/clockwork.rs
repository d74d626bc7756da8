//! The worker's timeline: the ramp, the measured window and its deadline, the sampling
//! intervals and latency windows that fall due in it, and the CPU it used. All in ticks;
//! the loop asks one inlined question per I/O ([`Timeline::over`]) and the rest runs a few
//! times a second.

use std::time::Duration;

use iolab_stats::Clock;

use crate::cpu::CpuSnapshot;

/// How often a running job looks at the stop flag (a signal, `exitall`, another job's
/// error): well under what a person or `exitall` notices.
const STOP_CHECK: Duration = Duration::from_millis(1);

pub(super) struct Timeline {
    pub measuring: bool,
    /// Length of the measured window (`u64::MAX`: until the bytes are done).
    run_ticks: u64,
    /// When the measured window was due to begin for every job of a shared timeline (a
    /// flow's members): a copy that began late ends with the others, not `run_ticks` after
    /// its own start. `u64::MAX`: the window runs from the copy's own start, as fio's.
    origin: u64,
    /// End of the ramp, then of the measured window.
    pub deadline: u64,
    pub measure_start: u64,
    pub measure_end: u64,
    /// Ticks per bandwidth/IOPS sample and when the next is due (`u64::MAX`: never).
    sample_ticks: u64,
    pub sample_due: u64,
    /// fio's `LOG_MSEC_SLACK` (1 ms), in ticks: a sample due this close to the end of a
    /// timed window is not taken.
    slack_ticks: u64,
    /// Ticks per latency window (0: none) and when the next ends.
    window_ticks: u64,
    pub window_due: u64,
    /// When the rate floor is next checked (`u64::MAX`: never).
    pub floor_due: u64,
    /// Ticks between publishing totals for the steady-state check (0: not published), and
    /// when next.
    tally_ticks: u64,
    pub tally_due: u64,
    /// The next sample, window or floor check due, whichever comes first.
    pub next_sample: u64,
    /// Ticks between looks at the stop flag, and when the next is due.
    stop_ticks: u64,
    stop_due: u64,
    pub cpu_start: CpuSnapshot,
    pub cpu_used: CpuSnapshot,
}

impl Timeline {
    /// `anchor`: the phase's common start, for a copy whose window ends with its peers'.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        clock: &Clock,
        now: u64,
        anchor: Option<u64>,
        ramp: Duration,
        runtime: Option<Duration>,
        window: Option<Duration>,
        tally: Option<Duration>,
        sample_every: Duration,
    ) -> Timeline {
        let ramp = clock.duration_to_ticks(ramp);
        let origin = anchor.map_or(u64::MAX, |a| a.saturating_add(ramp));
        Timeline {
            measuring: false,
            run_ticks: runtime.map_or(u64::MAX, |d| clock.duration_to_ticks(d)),
            origin,
            deadline: now.min(origin.saturating_sub(ramp)).saturating_add(ramp),
            measure_start: now,
            measure_end: now,
            sample_ticks: clock.duration_to_ticks(sample_every).max(1),
            sample_due: u64::MAX,
            slack_ticks: clock.duration_to_ticks(Duration::from_millis(1)),
            window_ticks: window.map_or(0, |d| clock.duration_to_ticks(d).max(1)),
            window_due: u64::MAX,
            floor_due: u64::MAX,
            tally_ticks: tally.map_or(0, |d| clock.duration_to_ticks(d).max(1)),
            tally_due: u64::MAX,
            next_sample: u64::MAX,
            stop_ticks: clock.duration_to_ticks(STOP_CHECK).max(1),
            stop_due: now,
            cpu_start: CpuSnapshot::default(),
            cpu_used: CpuSnapshot::default(),
        }
    }

    /// Starts the measured window at `now`; `sampled` says whether bandwidth samples are
    /// taken.
    pub fn begin(&mut self, now: u64, sampled: bool) {
        self.measuring = true;
        self.measure_start = now;
        // At least a tick past now: a copy that began after its peers' window ended still
        // has a (near-empty) window of its own.
        // Once: a window begun afresh later (a depth search's last) runs its full length.
        let origin = std::mem::replace(&mut self.origin, u64::MAX);
        let end = now.min(origin).saturating_add(self.run_ticks);
        self.deadline = end.max(now.saturating_add(1));
        self.sample_due = if sampled {
            self.inside_window(now.saturating_add(self.sample_ticks))
        } else {
            u64::MAX
        };
        self.window_due = if self.window_ticks > 0 {
            now.saturating_add(self.window_ticks)
        } else {
            u64::MAX
        };
        if self.tally_ticks > 0 {
            self.tally_due = now.saturating_add(self.tally_ticks);
        }
        self.renext();
        self.cpu_start = CpuSnapshot::of_current_thread();
    }

    /// A sample due at `due`, or never (`u64::MAX`) when that is at (within fio's 1 ms
    /// slack) or past the end of a timed window: fio samples from its helper thread only
    /// while the job runs, so a run of 3 s at 500 ms has 5 samples, not one more at its
    /// very end.
    fn inside_window(&self, due: u64) -> u64 {
        let end = self.deadline.saturating_sub(self.slack_ticks);
        match self.run_ticks != u64::MAX && due >= end {
            true => u64::MAX,
            false => due,
        }
    }

    /// When the job's time runs out: the measured window's end, or, during the ramp, the
    /// ramp's end plus the runtime (`u64::MAX` without a runtime). A pause (rate, thinktime)
    /// ends there, as fio's do, instead of outliving the job.
    pub fn final_end(&self) -> u64 {
        match self.measuring {
            true => self.deadline,
            false => self.deadline.saturating_add(self.run_ticks),
        }
    }

    /// Whether to look at the stop flag at `now`: once per [`STOP_CHECK`], not per I/O. The
    /// flag is written by another thread, so its cache line is cold after every context
    /// switch: a look per I/O cost ~25 ns at QD1 on zram, where the io-wq worker shares the
    /// core (bench/peak.py).
    #[inline(always)]
    pub fn stop_check_due(&mut self, now: u64) -> bool {
        if now < self.stop_due {
            return false;
        }
        self.stop_due = now.saturating_add(self.stop_ticks);
        true
    }

    /// A sampling interval ended at or before `now`: move to the next.
    pub fn sample_taken(&mut self) {
        self.sample_due = self.inside_window(self.sample_due.saturating_add(self.sample_ticks));
        self.renext();
    }

    /// The rate floor was checked; the next check is at `next`.
    pub fn floor_checked(&mut self, next: u64) {
        self.floor_due = next;
        self.renext();
    }

    /// A latency window ended at or before `now`: move to the next.
    pub fn window_taken(&mut self) {
        self.window_due = self.window_due.saturating_add(self.window_ticks);
        self.renext();
    }

    /// Totals were published at `now`: the next time is a millisecond on.
    pub fn tally_taken(&mut self, now: u64) {
        self.tally_due = now.saturating_add(self.tally_ticks);
        self.renext();
    }

    fn renext(&mut self) {
        self.next_sample = self
            .sample_due
            .min(self.window_due)
            .min(self.floor_due)
            .min(self.tally_due);
    }

    pub fn end(&mut self, now: u64) {
        self.measure_end = now;
        self.cpu_used = CpuSnapshot::of_current_thread().since(&self.cpu_start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(now: u64, anchor: Option<u64>, ramp_ms: u64) -> Timeline {
        let clock = Clock::monotonic();
        Timeline::new(
            &clock,
            now,
            anchor,
            Duration::from_millis(ramp_ms),
            Some(Duration::from_millis(1000)),
            None,
            None,
            Duration::from_millis(500),
        )
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn a_copy_that_began_late_ends_with_its_peers() {
        // Began 8 ms after the phase's common start: its window ends 1 s after that start.
        let mut t = timeline(8 * MS, Some(0), 0);
        t.begin(8 * MS, false);
        assert_eq!(t.deadline, 1000 * MS);
        assert_eq!(t.measure_start, 8 * MS);
        // With a ramp, the ramp ends at the common start's ramp end, and so does the window.
        let mut t = timeline(8 * MS, Some(0), 100);
        assert_eq!(t.deadline, 100 * MS);
        t.begin(103 * MS, false);
        assert_eq!(t.deadline, 1100 * MS);
        // Without a shared start, as fio: the copy's own start.
        let mut t = timeline(8 * MS, None, 0);
        t.begin(8 * MS, false);
        assert_eq!(t.deadline, 1008 * MS);
    }

    #[test]
    fn the_shared_start_holds_once() {
        let mut t = timeline(8 * MS, Some(0), 0);
        t.begin(8 * MS, false);
        // A window begun afresh (a depth search's last) runs its whole length.
        t.begin(2000 * MS, false);
        assert_eq!(t.deadline, 3000 * MS);
        // A copy that began after the others' window ended still has a window of its own.
        let mut t = timeline(1500 * MS, Some(0), 0);
        t.begin(1500 * MS, false);
        assert_eq!(t.deadline, 1500 * MS + 1);
    }
}
