//! Per-job I/O logs (fio's `write_lat_log`, `write_iops_log`, `write_bw_log`): either one
//! entry per I/O, or, with `log_avg_msec`, one averaged entry per window and direction.
//!
//! Entries are kept in memory in clock ticks and written out after the run (by the fio front
//! end, in fio's format), so the I/O loop only appends to a vector it sized up front. Per-I/O
//! logging of a long, fast run is large (about 40 bytes an I/O), so each logger has a cap the
//! runner derives from the memory available: past it, I/Os are counted as dropped, not kept,
//! and the run says so (fio would grow until the OOM killer came). `log_avg_msec` keeps a log
//! to a few entries a second.

use iolab_engine::{Direction, IoUnit};
pub use iolab_results::{HistEntry, IoEntry, IoLog, WindowEntry};

#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    ios: u64,
    bytes: u64,
    slat: u64,
    clat: u64,
    lat: u64,
    /// The window's largest latencies (fio's `log_max_value`).
    max: [u64; 3],
}

/// Collects a worker's log while it runs.
#[derive(Debug)]
pub(crate) struct IoLogger {
    log: IoLog,
    window_ticks: u64,
    /// Tick the current window ends at, and the window's accumulators per direction.
    window_end: u64,
    windows_done: u64,
    acc: [Acc; Direction::COUNT],
    start: u64,
    /// Most per-I/O entries kept.
    cap: usize,
    /// The clock the log's times are given in, if not the job's own (`log_unix_epoch`).
    epoch_clock: Option<i32>,
    /// A window's latency is its largest, not its mean (`log_max_value`).
    max: bool,
    /// Per-I/O entries or windows are kept (a latency, IOPS or bandwidth log is asked).
    entries: bool,
    /// Completion-latency histograms per window (`write_hist_log`).
    hist: Option<Box<HistWindows>>,
}

/// fio's histogram log as `add_clat_sample()` keeps it: per direction, the bins counted
/// since its last line, and when that was; a completion at least `msec` later writes the
/// next line (at the completion's time, with its block size) and starts the next window
/// where the last should have ended.
#[derive(Debug)]
struct HistWindows {
    msec: u64,
    ns_per_tick: f64,
    ms_per_tick: f64,
    bins: [Box<[u64]>; Direction::COUNT],
    last_ms: [u64; Direction::COUNT],
}

impl HistWindows {
    #[inline]
    fn record(
        &mut self,
        since_start: u64,
        dir: Direction,
        bs: u32,
        clat: u64,
    ) -> Option<HistEntry> {
        let d = dir.index();
        let ns = (clat as f64 * self.ns_per_tick) as u64;
        self.bins[d][iolab_results::fio_plat_index(ns)] += 1;
        let elapsed = (since_start as f64 * self.ms_per_tick) as u64;
        if self.last_ms[d] == 0 {
            self.last_ms[d] = elapsed;
        }
        let window = elapsed - self.last_ms[d];
        if window < self.msec {
            return None;
        }
        self.last_ms[d] = elapsed - (window - self.msec);
        Some(self.take(elapsed, dir, bs))
    }

    #[cold]
    fn take(&mut self, at_ms: u64, dir: Direction, bs: u32) -> HistEntry {
        let bins = self.bins[dir.index()]
            .iter_mut()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (i as u16, std::mem::take(c)))
            .collect();
        HistEntry {
            at_ms,
            dir,
            bs,
            bins,
        }
    }
}

impl IoLogger {
    /// `avg_ms` 0 logs every I/O, at most `cap` of them; room for `expected` entries is
    /// reserved up front.
    pub fn new(
        job_number: u32,
        (avg_ms, with_offset, with_prio): (u32, bool, bool),
        window_ticks: u64,
        expected: usize,
        cap: usize,
    ) -> IoLogger {
        IoLogger {
            log: IoLog {
                job_number,
                avg_ms,
                with_offset,
                with_prio,
                with_max: false,
                with_issue_time: false,
                per_io: if avg_ms == 0 {
                    Vec::with_capacity(expected.min(cap))
                } else {
                    Vec::new()
                },
                windows: Vec::new(),
                dropped: 0,
                epoch_ms: 0,
                hist: Vec::new(),
            },
            window_ticks: window_ticks.max(1),
            window_end: u64::MAX,
            windows_done: 0,
            acc: [Acc::default(); Direction::COUNT],
            start: 0,
            cap,
            epoch_clock: None,
            max: false,
            entries: true,
            hist: None,
        }
    }

    /// Keeps no per-I/O entries or windows: only the histogram log is asked for.
    pub fn without_entries(mut self) -> IoLogger {
        self.entries = false;
        self
    }

    /// Keeps fio's completion-latency histogram log with `msec` windows (none for 0, as
    /// fio); `ns_per_tick` and `ms_per_tick` convert the worker's clock.
    pub fn with_hist(mut self, msec: u32, ns_per_tick: f64, ms_per_tick: f64) -> IoLogger {
        self.hist = (msec > 0).then(|| {
            Box::new(HistWindows {
                msec: msec as u64,
                ns_per_tick,
                ms_per_tick,
                bins: std::array::from_fn(|_| vec![0; iolab_results::FIO_PLAT_BINS].into()),
                last_ms: [0; Direction::COUNT],
            })
        });
        self
    }

    /// Gives each window's largest latency instead of its mean (fio's `log_max_value`).
    pub fn with_max(mut self, max: bool) -> IoLogger {
        self.max = max;
        self
    }

    /// Adds each I/O's issue time to its latency lines (fio 3.42's `log_issue_time`).
    pub fn with_issue_time(mut self, on: bool) -> IoLogger {
        self.log.with_issue_time = on;
        self
    }

    /// Gives each window's mean and then its largest, two columns (fio 3.42's
    /// `log_window_value=both`).
    pub fn with_both(mut self, both: bool) -> IoLogger {
        self.log.with_max = both;
        self
    }

    /// Gives the log's times in `clock`'s ms (fio's `log_unix_epoch`: `CLOCK_REALTIME`).
    pub fn with_epoch(mut self, clock: Option<i32>) -> IoLogger {
        self.epoch_clock = clock;
        self
    }

    /// The measured window starts (after the ramp): forget everything before.
    pub fn start(&mut self, now: u64) {
        self.log.per_io.clear();
        self.log.windows.clear();
        self.log.dropped = 0;
        self.acc = [Acc::default(); Direction::COUNT];
        self.start = now;
        self.windows_done = 0;
        self.log.hist.clear();
        if let Some(h) = &mut self.hist {
            h.bins.iter_mut().for_each(|b| b.fill(0));
            h.last_ms = [0; Direction::COUNT];
        }
        self.log.epoch_ms = self.epoch_clock.map_or(0, clock_ms);
        if self.log.avg_ms > 0 {
            self.window_end = now.saturating_add(self.window_ticks);
        }
    }

    /// One I/O of `len` bytes at `offset` completed at `now`, with its submission,
    /// completion and total latencies in ticks.
    #[inline]
    pub fn record(&mut self, now: u64, io: &IoUnit, prio: u16, lats: [u64; 3]) {
        let [slat, clat, lat] = lats;
        let (dir, len, offset) = (io.dir, io.len, io.offset);
        if let Some(h) = &mut self.hist {
            let since = now.saturating_sub(self.start);
            if let Some(e) = h.record(since, dir, len, clat) {
                self.log.hist.push(e);
            }
        }
        if !self.entries {
            return;
        }
        if self.log.avg_ms == 0 {
            if self.log.per_io.len() >= self.cap {
                self.log.dropped += 1;
                return;
            }
            self.log.per_io.push(IoEntry {
                at_ticks: now.saturating_sub(self.start),
                dir,
                len,
                slat_ticks: slat,
                clat_ticks: clat,
                lat_ticks: lat,
                offset,
                prio,
            });
            return;
        }
        if now >= self.window_end {
            self.close_windows(now);
        }
        let a = &mut self.acc[dir.index()];
        a.ios += 1;
        a.bytes += len as u64;
        a.slat += slat;
        a.clat += clat;
        a.lat += lat;
        for (m, v) in a.max.iter_mut().zip([slat, clat, lat]) {
            *m = (*m).max(v);
        }
    }

    /// Emits an entry per direction for every window that has ended by `now`.
    #[cold]
    fn close_windows(&mut self, now: u64) {
        while now >= self.window_end {
            self.windows_done += 1;
            let at_ms = self.windows_done * self.log.avg_ms as u64;
            self.emit(at_ms, self.log.avg_ms as f64);
            self.window_end = self.window_end.saturating_add(self.window_ticks);
        }
    }

    /// One entry per direction with I/O in the window, from its accumulators.
    fn emit(&mut self, at_ms: u64, span_ms: f64) {
        for dir in Direction::ALL {
            let a = std::mem::take(&mut self.acc[dir.index()]);
            if a.ios == 0 {
                continue;
            }
            let n = a.ios as f64;
            let [slat, clat, lat] = match self.max {
                true => a.max.map(|m| m as f64),
                false => [a.slat, a.clat, a.lat].map(|t| t as f64 / n),
            };
            self.log.windows.push(WindowEntry {
                at_ms,
                dir,
                ios: a.ios,
                bytes: a.bytes,
                span_ms,
                slat_ticks: slat,
                clat_ticks: clat,
                lat_ticks: lat,
                max_ticks: a.max.map(|m| m as f64),
            });
        }
    }

    /// The log, with every window that ended by `now` closed, and the last, partial one
    /// written at the job's end as fio's `finalize_logs()` does (`tick_ms`: ms per tick).
    pub fn finish(mut self, now: u64, tick_ms: f64) -> IoLog {
        if self.log.avg_ms > 0 && self.entries {
            if now >= self.window_end {
                self.close_windows(now);
            }
            let end_ms = now.saturating_sub(self.start) as f64 * tick_ms;
            let span = end_ms - (self.windows_done * self.log.avg_ms as u64) as f64;
            if span > 0.0 {
                self.emit(end_ms as u64, span);
            }
        }
        self.log
    }
}

/// `clock`'s time now, in ms (0 when the kernel has no such clock).
pub(crate) fn clock_ms(clock: i32) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer.
    match unsafe { libc::clock_gettime(clock, &mut ts) } {
        0 => ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(dir: Direction, len: u32) -> IoUnit {
        IoUnit {
            slot: 0,
            file: 0,
            dir,
            offset: 0,
            len,
            buf: std::ptr::null_mut(),
            ioprio: 0,
            prio_index: 0,
        }
    }

    #[test]
    fn histogram_windows_close_on_the_first_completion_past_them_as_fios() {
        // 1 tick = 1 ms = 1 ns, to keep the arithmetic visible.
        let mut l = IoLogger::new(1, (0, false, false), 1, 0, 10)
            .without_entries()
            .with_hist(100, 1.0, 1.0);
        l.start(0);
        // The first completion (at 5 ms) starts the read window; 0 would not (fio's quirk).
        l.record(5, &io(Direction::Read, 4096), 0, [0, 50, 50]);
        l.record(60, &io(Direction::Read, 4096), 0, [0, 70, 70]);
        l.record(104, &io(Direction::Read, 4096), 0, [0, 5000, 5000]);
        // 105 ms since the window began: the line covers all three, at 105.
        l.record(110, &io(Direction::Read, 8192), 0, [0, 50, 50]);
        l.record(150, &io(Direction::Write, 4096), 0, [0, 50, 50]);
        let log = l.finish(200, 1.0);
        assert!(log.per_io.is_empty());
        assert_eq!(log.hist.len(), 1);
        let e = &log.hist[0];
        assert_eq!((e.at_ms, e.dir, e.bs), (110, Direction::Read, 8192));
        let idx = |ns| iolab_results::fio_plat_index(ns) as u16;
        assert_eq!(e.bins, vec![(idx(50), 2), (idx(70), 1), (idx(5000), 1)]);
    }

    #[test]
    fn per_io_entries_stop_at_the_cap_and_are_counted() {
        let mut l = IoLogger::new(1, (0, false, false), 1000, 100, 2);
        l.start(0);
        for t in 1..=5 {
            l.record(t, &io(Direction::Read, 4096), 0, [0, 1, 1]);
        }
        let log = l.finish(10, 1.0);
        assert_eq!((log.per_io.len(), log.dropped), (2, 3));
    }

    #[test]
    fn per_io_entries_are_relative_to_the_window_start() {
        let mut l = IoLogger::new(1, (0, false, false), 1000, 4, 1000);
        l.record(50, &io(Direction::Read, 4096), 0, [0, 7, 7]);
        l.start(100);
        l.record(150, &io(Direction::Write, 8192), 0, [1, 2, 3]);
        let log = l.finish(200, 1.0);
        assert_eq!(log.per_io.len(), 1);
        assert_eq!(log.per_io[0].at_ticks, 50);
        assert_eq!(log.per_io[0].dir, Direction::Write);
    }

    #[test]
    fn windows_average_per_direction_and_skip_idle_ones() {
        // 1 tick per ms: 100-tick windows are 100 ms.
        let mut l = IoLogger::new(3, (100, false, false), 100, 0, 1000);
        l.start(0);
        l.record(10, &io(Direction::Read, 4096), 0, [0, 10, 10]);
        l.record(20, &io(Direction::Read, 4096), 0, [0, 30, 30]);
        l.record(30, &io(Direction::Write, 4096), 0, [0, 5, 5]);
        // Nothing in the second window; one read in the third.
        l.record(250, &io(Direction::Read, 4096), 0, [0, 8, 8]);
        // The last window, cut at 320 by the job's end, is written too (as fio's).
        l.record(310, &io(Direction::Write, 4096), 0, [0, 6, 6]);
        let log = l.finish(320, 1.0);
        let w: Vec<(u64, Direction, u64, f64)> = log
            .windows
            .iter()
            .map(|e| (e.at_ms, e.dir, e.ios, e.lat_ticks))
            .collect();
        assert_eq!(
            w,
            vec![
                (100, Direction::Read, 2, 20.0),
                (100, Direction::Write, 1, 5.0),
                (300, Direction::Read, 1, 8.0),
                (320, Direction::Write, 1, 6.0),
            ]
        );
        assert_eq!(log.windows.last().unwrap().span_ms, 20.0);
        assert_eq!(log.job_number, 3);
    }
}
