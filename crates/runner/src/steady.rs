//! fio's steady-state check (`ss`, `ss_dur`, `ss_ramp`), as its helper thread runs it
//! (`steadystate_check()`): once a second, each job's I/Os and bytes since the last look,
//! summed over its reporting group when it reports as a group, go into a window of `ss_dur`
//! samples; once the window is full and its criterion holds, the job (or the group) is
//! stopped. It runs on the runner's own thread; workers only publish their totals, every
//! millisecond of measured time, into a [`Tally`] of their own.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use iolab_job::{Judgement, SteadyState};
use iolab_results::SteadyResult;

/// A worker's running totals, written by it alone and read once a second.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    ios: AtomicU64,
    bytes: AtomicU64,
}

impl Tally {
    pub fn publish(&self, ios: u64, bytes: u64) {
        self.ios.store(ios, Ordering::Relaxed);
        self.bytes.store(bytes, Ordering::Relaxed);
    }

    fn read(&self) -> (u64, u64) {
        (
            self.ios.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }
}

/// One window: a job copy, or the copies of a reporting group.
struct Unit {
    ss: SteadyState,
    /// Indices of the phase's workers it sums.
    workers: Vec<usize>,
    /// Per worker: totals at the last look.
    prev: Vec<(u64, u64)>,
    ramp_over: bool,
    /// (IOPS, bytes/s) per second, oldest first, at most `duration_s`.
    window: VecDeque<(u64, u64)>,
    last: Judgement,
    attained: bool,
}

impl Unit {
    /// Takes one second's sample; true when the criterion now holds.
    fn look(&mut self, tallies: &[Tally], ms: u64, since_start: Duration) -> bool {
        if !self.ramp_over && since_start >= self.ss.ramp + Duration::from_secs(1) {
            self.ramp_over = true;
        }
        let (mut iops, mut bw) = (0, 0);
        for (k, &w) in self.workers.iter().enumerate() {
            let (ios, bytes) = tallies[w].read();
            let (p_ios, p_bytes) = std::mem::replace(&mut self.prev[k], (ios, bytes));
            // Per copy, in whole milliseconds, as fio sums its threads.
            iops += 1000 * ios.saturating_sub(p_ios) / ms.max(1);
            bw += 1000 * bytes.saturating_sub(p_bytes) / ms.max(1);
        }
        if !self.ramp_over {
            return false;
        }
        let dur = self.ss.duration_s as usize;
        if self.window.len() == dur {
            self.window.pop_front();
        }
        self.window.push_back((iops, bw));
        if self.window.len() < dur {
            return false;
        }
        let metric: Vec<u64> = match self.ss.metric {
            iolab_job::SteadyMetric::Iops => self.window.iter().map(|s| s.0).collect(),
            iolab_job::SteadyMetric::Bw => self.window.iter().map(|s| s.1).collect(),
        };
        self.last = self.ss.judge(&metric);
        self.attained = self.last.attained;
        self.attained
    }

    fn result(&self) -> SteadyResult {
        let pad = self.ss.duration_s as usize - self.window.len();
        let padded = |f: fn(&(u64, u64)) -> u64| {
            let mut v: Vec<u64> = self.window.iter().map(f).collect();
            v.extend(std::iter::repeat_n(0, pad));
            v
        };
        SteadyResult {
            criterion_spec: self.ss.describe(),
            metric: self.ss.metric_name().into(),
            slope: self.ss.slope,
            percent: self.ss.percent,
            duration_s: self.ss.duration_s,
            attained: self.attained,
            criterion: self.last.criterion,
            max_deviation: self.last.deviation,
            slope_value: self.last.slope,
            iops: padded(|s| s.0),
            bw_bytes_per_sec: padded(|s| s.1),
        }
    }
}

/// The phase's steady-state windows, looked at once a second from the runner's thread.
pub(crate) struct SteadyMonitor<'a> {
    units: Vec<Unit>,
    tallies: &'a [Tally],
    /// The workers' own stop flags.
    flags: &'a [AtomicBool],
    start: Instant,
    last: Instant,
    next: Instant,
}

impl<'a> SteadyMonitor<'a> {
    /// Windows for the workers whose job asks for steady state: one per copy, or one per
    /// reporting group for jobs that report as a group. `None` when no job asks.
    pub fn new(
        workers: &[(SteadyState, u32, bool)],
        tallies: &'a [Tally],
        flags: &'a [AtomicBool],
    ) -> Option<Self> {
        let mut units: Vec<Unit> = Vec::new();
        for (n, (ss, group, grouped)) in workers.iter().enumerate() {
            if !ss.on() {
                continue;
            }
            let joins = n > 0 && *grouped && workers[n - 1].2 && workers[n - 1].1 == *group;
            match units.last_mut() {
                Some(u) if joins && u.workers.last() == Some(&(n - 1)) => {
                    u.workers.push(n);
                    u.prev.push((0, 0));
                }
                _ => units.push(Unit {
                    ss: ss.clone(),
                    workers: vec![n],
                    prev: vec![(0, 0)],
                    // Without ss_ramp, fio keeps every second's sample.
                    ramp_over: ss.ramp.is_zero(),
                    window: VecDeque::with_capacity(ss.duration_s as usize),
                    last: Judgement::default(),
                    attained: false,
                }),
            }
        }
        let now = Instant::now();
        (!units.is_empty()).then(|| SteadyMonitor {
            units,
            tallies,
            flags,
            start: now,
            last: now,
            next: now + Duration::from_secs(1),
        })
    }

    /// How long until the next look is due.
    pub fn due_in(&self) -> Duration {
        self.next.saturating_duration_since(Instant::now())
    }

    /// Looks once a second (the caller may call more often); stops the workers of each
    /// window whose criterion holds.
    pub fn tick(&mut self, finished: impl Fn(usize) -> bool) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        let ms = now.duration_since(self.last).as_millis() as u64;
        self.last = now;
        self.next += Duration::from_secs(1);
        let since_start = now.duration_since(self.start);
        for u in self.units.iter_mut().filter(|u| !u.attained) {
            // fio stops looking at a job once all its threads have exited.
            if u.workers.iter().all(|&w| finished(w)) {
                continue;
            }
            if u.look(self.tallies, ms, since_start) {
                for &w in &u.workers {
                    self.flags[w].store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// Each window's result, given to the last worker it covers (fio keeps a group's window
    /// on its last thread); and the workers stopped because their window held.
    pub fn results(self) -> (Vec<(usize, SteadyResult)>, Vec<usize>) {
        let stopped = self
            .units
            .iter()
            .filter(|u| u.attained)
            .flat_map(|u| u.workers.iter().copied())
            .collect();
        let results = self
            .units
            .iter()
            .map(|u| (*u.workers.last().expect("a unit has a worker"), u.result()))
            .collect();
        (results, stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(dur: u32) -> SteadyState {
        SteadyState {
            slope: false,
            limit: 5.0,
            duration_s: dur,
            ..SteadyState::default()
        }
    }

    #[test]
    fn a_group_is_one_window_and_copies_alone_are_one_each() {
        let tallies: Vec<Tally> = (0..4).map(|_| Tally::default()).collect();
        let flags: Vec<AtomicBool> = (0..4).map(|_| AtomicBool::new(false)).collect();
        let off = SteadyState::default();
        let w = [
            (ss(3), 0, true),
            (ss(3), 0, true),
            (ss(3), 1, false),
            (off, 1, false),
        ];
        let m = SteadyMonitor::new(&w, &tallies, &flags).unwrap();
        let units: Vec<Vec<usize>> = m.units.iter().map(|u| u.workers.clone()).collect();
        assert_eq!(units, vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn a_flat_window_attains_and_stops_its_workers() {
        let tallies: Vec<Tally> = (0..2).map(|_| Tally::default()).collect();
        let flags: Vec<AtomicBool> = (0..2).map(|_| AtomicBool::new(false)).collect();
        let w = [(ss(3), 0, true), (ss(3), 0, true)];
        let mut m = SteadyMonitor::new(&w, &tallies, &flags).unwrap();
        let u = &mut m.units[0];
        let mut seconds = 0;
        for step in 1..=5u64 {
            // 1000 IOPS and 4 MB/s per copy, with a ramp of one second.
            tallies[0].publish(step * 1000, step * 4_000_000);
            tallies[1].publish(step * 1000, step * 4_000_000);
            seconds += 1;
            if u.look(&tallies, 1000, Duration::from_secs(seconds)) {
                break;
            }
        }
        assert_eq!(seconds, 3, "full window of 3 after the first second");
        let r = u.result();
        assert!(r.attained);
        assert_eq!(r.iops, vec![2000, 2000, 2000]);
        assert_eq!(r.bw_mean(), 8_000_000);
    }

    #[test]
    fn an_unfilled_window_is_padded_with_zeros() {
        let tallies = [Tally::default()];
        let flags = [AtomicBool::new(false)];
        let mut m = SteadyMonitor::new(&[(ss(4), 0, false)], &tallies, &flags).unwrap();
        tallies[0].publish(500, 500);
        assert!(!m.units[0].look(&tallies, 1000, Duration::from_secs(1)));
        let r = m.units[0].result();
        assert_eq!(
            (r.iops.clone(), r.attained, r.iops_mean()),
            (vec![500, 0, 0, 0], false, 125)
        );
    }
}
