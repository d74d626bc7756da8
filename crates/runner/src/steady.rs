//! fio's steady-state check (`ss`, `ss_dur`, `ss_ramp`, `ss_interval`), as fio 3.42's helper
//! thread runs it (`steadystate_check()`): once an interval (a second by default), each job's
//! I/Os and bytes per second since the last look, and the mean completion latency of the I/Os
//! completed since, summed over its reporting group when it reports as a group, go into a
//! window of `ss_dur / ss_interval` samples; once the window is full and its criterion holds,
//! the job (or the group) is stopped. It runs on the runner's own thread; workers only publish
//! their totals, every millisecond of measured time, into a [`Tally`] of their own.

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
    /// Completion latencies summed, in ns, and how many I/Os they are.
    clat_ns: AtomicU64,
    clat_ios: AtomicU64,
}

/// A worker's totals at one look: I/Os, bytes, completion latency summed (ns) and its I/Os.
type Totals = (u64, u64, u64, u64);

impl Tally {
    pub fn publish(&self, ios: u64, bytes: u64, clat_ns: u64, clat_ios: u64) {
        self.ios.store(ios, Ordering::Relaxed);
        self.bytes.store(bytes, Ordering::Relaxed);
        self.clat_ns.store(clat_ns, Ordering::Relaxed);
        self.clat_ios.store(clat_ios, Ordering::Relaxed);
    }

    fn read(&self) -> Totals {
        (
            self.ios.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
            self.clat_ns.load(Ordering::Relaxed),
            self.clat_ios.load(Ordering::Relaxed),
        )
    }
}

/// One sample: IOPS, bytes/s, and the mean completion latency in ns.
type Sample = (u64, u64, u64);

/// One window: a job copy, or the copies of a reporting group.
struct Unit {
    ss: SteadyState,
    /// Indices of the phase's workers it sums.
    workers: Vec<usize>,
    /// Per worker: totals at the last look.
    prev: Vec<Totals>,
    ramp_over: bool,
    /// Seconds since the last look, and when it was.
    seconds: u32,
    looked: Instant,
    /// One sample per interval, oldest first, at most [`SteadyState::samples`].
    window: VecDeque<Sample>,
    last: Judgement,
    attained: bool,
}

impl Unit {
    /// Counts a second; at the end of an interval, looks (see [`Self::look`]).
    fn second(&mut self, tallies: &[Tally], now: Instant, since_start: Duration) -> bool {
        self.seconds += 1;
        if self.seconds < self.ss.interval_s.max(1) {
            return false;
        }
        self.seconds = 0;
        let ms = now.duration_since(self.looked).as_millis() as u64;
        self.looked = now;
        self.look(tallies, ms, since_start)
    }

    /// Takes one interval's sample, `ms` after the last; true when the criterion now holds.
    fn look(&mut self, tallies: &[Tally], ms: u64, since_start: Duration) -> bool {
        // fio 3.42 keeps samples from one check interval after ss_ramp.
        let interval = Duration::from_secs(self.ss.interval_s.max(1) as u64);
        if !self.ramp_over && since_start >= self.ss.ramp + interval {
            self.ramp_over = true;
        }
        let (mut iops, mut bw, mut clat_ns, mut clat_ios) = (0, 0, 0, 0);
        for (k, &w) in self.workers.iter().enumerate() {
            let now = tallies[w].read();
            let p = std::mem::replace(&mut self.prev[k], now);
            // Per copy, in whole milliseconds, as fio sums its threads.
            iops += 1000 * now.0.saturating_sub(p.0) / ms.max(1);
            bw += 1000 * now.1.saturating_sub(p.1) / ms.max(1);
            clat_ns += now.2.saturating_sub(p.2);
            clat_ios += now.3.saturating_sub(p.3);
        }
        if !self.ramp_over {
            return false;
        }
        let lat = clat_ns.checked_div(clat_ios).unwrap_or(0);
        let full = self.ss.samples();
        if self.window.len() == full {
            self.window.pop_front();
        }
        self.window.push_back((iops, bw, lat));
        if self.window.len() < full {
            return false;
        }
        let metric: Vec<u64> = match self.ss.metric {
            iolab_job::SteadyMetric::Iops => self.window.iter().map(|s| s.0).collect(),
            iolab_job::SteadyMetric::Bw => self.window.iter().map(|s| s.1).collect(),
            iolab_job::SteadyMetric::Lat => self.window.iter().map(|s| s.2).collect(),
        };
        self.last = self.ss.judge(&metric);
        self.attained = self.last.attained;
        self.attained
    }

    fn result(&self) -> SteadyResult {
        let pad = self.ss.samples() - self.window.len();
        let padded = |f: fn(&Sample) -> u64| {
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
            lat_ns: match self.ss.metric {
                iolab_job::SteadyMetric::Lat => padded(|s| s.2),
                _ => Vec::new(),
            },
            interval_s: self.ss.interval_s,
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
                    u.prev.push((0, 0, 0, 0));
                }
                _ => units.push(Unit {
                    ss: ss.clone(),
                    workers: vec![n],
                    prev: vec![(0, 0, 0, 0)],
                    // Without ss_ramp, fio keeps every interval's sample.
                    ramp_over: ss.ramp.is_zero(),
                    seconds: 0,
                    looked: Instant::now(),
                    window: VecDeque::with_capacity(ss.samples()),
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
            next: now + Duration::from_secs(1),
        })
    }

    /// How long until the next look is due.
    pub fn due_in(&self) -> Duration {
        self.next.saturating_duration_since(Instant::now())
    }

    /// Counts each second (the caller may call more often), looking at each window once its
    /// interval has passed; stops the workers of each window whose criterion holds.
    pub fn tick(&mut self, finished: impl Fn(usize) -> bool) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next += Duration::from_secs(1);
        let since_start = now.duration_since(self.start);
        for u in self.units.iter_mut().filter(|u| !u.attained) {
            // fio stops looking at a job once all its threads have exited.
            if u.workers.iter().all(|&w| finished(w)) {
                continue;
            }
            if u.second(self.tallies, now, since_start) {
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
            tallies[0].publish(step * 1000, step * 4_000_000, 0, 0);
            tallies[1].publish(step * 1000, step * 4_000_000, 0, 0);
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
        tallies[0].publish(500, 500, 0, 0);
        assert!(!m.units[0].look(&tallies, 1000, Duration::from_secs(1)));
        let r = m.units[0].result();
        assert_eq!(
            (r.iops.clone(), r.attained, r.iops_mean()),
            (vec![500, 0, 0, 0], false, 125)
        );
    }
}
