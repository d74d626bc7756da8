//! What a worker records while it runs: per-direction counters and histograms, the depth
//! distributions and the I/O log. Recording is O(1) and allocates nothing: every vector is
//! sized before the loop starts.

use iolab_engine::{Direction, IoUnit};
use iolab_results::{DepthCounts, LatencyWindow, OpenLoop, Recorded, Sample};
use iolab_stats::LatencyHistogram;

use crate::iolog::IoLogger;

/// Counters and histograms of one direction, while running.
#[derive(Clone)]
pub(super) struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    pub slat: LatencyHistogram,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
    pub samples: Vec<Sample>,
    /// Counters at the last sample.
    pub sampled: Sample,
    /// Latencies of the current latency window, when the job asks for windows.
    pub window: Option<LatencyHistogram>,
    pub windows: Vec<LatencyWindow>,
    /// Completion latencies per priority (fio's `clat_prio`), one per value of the job's
    /// priority table; empty unless the job sets priorities per I/O.
    pub prios: Vec<(u16, LatencyHistogram)>,
    /// Response times and the schedule's lateness under an open loop (`rate_open_loop`).
    pub open: Option<OpenLoop>,
}

impl DirStats {
    pub fn new(expected_samples: usize, expected_windows: Option<usize>) -> DirStats {
        DirStats {
            ios: 0,
            bytes: 0,
            slat: LatencyHistogram::new(),
            clat: LatencyHistogram::new(),
            lat: LatencyHistogram::new(),
            samples: Vec::with_capacity(expected_samples),
            sampled: Sample::default(),
            window: expected_windows.map(|_| LatencyHistogram::new()),
            windows: Vec::with_capacity(expected_windows.unwrap_or(0)),
            prios: Vec::new(),
            open: None,
        }
    }

    /// Records one I/O's total latency.
    #[inline(always)]
    pub fn record_lat(&mut self, ticks: u64) {
        self.lat.record(ticks);
        if let Some(w) = &mut self.window {
            w.record(ticks);
        }
    }

    pub fn reset(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.samples.clear();
        self.sampled = Sample::default();
        self.windows.clear();
        if let Some(w) = &mut self.window {
            w.reset();
        }
        self.slat.reset();
        self.clat.reset();
        self.lat.reset();
        for (_, h) in &mut self.prios {
            h.reset();
        }
        if let Some(o) = &mut self.open {
            // In place: fresh histograms would fault their pages in during the window.
            o.response.reset();
            o.lateness.reset();
            o.late_for_slot = 0;
        }
    }

    /// Closes the current sampling interval: its I/Os and bytes as one sample.
    pub fn sample(&mut self) -> Sample {
        let d = Sample {
            bytes: self.bytes - self.sampled.bytes,
            ios: self.ios - self.sampled.ios,
        };
        self.samples.push(d);
        self.sampled = Sample {
            bytes: self.bytes,
            ios: self.ios,
        };
        d
    }

    /// Closes the current latency window.
    pub fn close_window(&mut self) {
        if let Some(w) = &mut self.window {
            self.windows.push(LatencyWindow::of(w));
            w.reset();
        }
    }
}

/// Everything recorded per I/O.
pub(super) struct Recorder {
    pub stats: [DirStats; Direction::COUNT],
    pub depth: DepthCounts,
    pub logger: Option<IoLogger>,
    /// Which latencies the job reports (fio's `disable_*lat`, `gtod_reduce`): one that is
    /// off is not recorded at all, so it costs nothing (a histogram bucket is a cache miss
    /// per I/O when the loop has been away in the kernel).
    pub keep: Recorded,
    /// Per-priority latencies are total latencies (fio's `lat_percentiles`), not clat.
    pub prio_total_lat: bool,
    /// The thread's own `ioprio` value, which I/Os without one of their own carry in logs.
    pub thread_prio: u16,
    /// Each I/O's stamps for the latency split (`lat_split`), if the job splits.
    pub split: Option<crate::split::SplitTap>,
}

impl Recorder {
    /// One I/O completed at `now`: submission, completion and total latency in ticks.
    #[inline(always)]
    pub fn completed(&mut self, now: u64, io: &IoUnit, slat: u64, clat: u64, lat: u64) {
        let s = &mut self.stats[io.dir.index()];
        s.ios += 1;
        s.bytes += io.len as u64;
        if self.keep.clat {
            s.clat.record(clat);
        }
        if self.keep.lat {
            s.record_lat(lat);
        }
        if let Some((_, h)) = s.prios.get_mut(io.prio_index as usize) {
            h.record(if self.prio_total_lat { lat } else { clat });
        }
        if let Some(t) = &mut self.split {
            t.io(now - lat, now, io);
        }
        if let Some(l) = &mut self.logger {
            let prio = if io.ioprio == 0 {
                self.thread_prio
            } else {
                io.ioprio
            };
            l.record(now, io, prio, [slat, clat, lat]);
        }
    }

    /// One I/O's submission latency, when the job reports it.
    #[inline(always)]
    pub fn submitted(&mut self, dir: Direction, slat: u64) {
        if self.keep.slat {
            self.stats[dir.index()].slat.record(slat);
        }
    }

    /// One I/O of a synchronous engine completed at `now`: submitting was completing, so
    /// only `lat` is recorded (its clat is the same histogram, copied at the end).
    #[inline(always)]
    pub fn completed_sync(&mut self, now: u64, io: &IoUnit, lat: u64) {
        let s = &mut self.stats[io.dir.index()];
        s.ios += 1;
        s.bytes += io.len as u64;
        s.record_lat(lat);
        if let Some(t) = &mut self.split {
            t.io(now - lat, now, io);
        }
        if let Some(l) = &mut self.logger {
            l.record(now, io, self.thread_prio, [0, lat, lat]);
        }
    }

    /// An I/O that did nothing but count (a file-operation engine's between its
    /// operations, fio's `FIO_FAKEIO`): its bytes and count, no latency, no log line.
    #[inline(always)]
    pub fn counted(&mut self, io: &IoUnit) {
        let s = &mut self.stats[io.dir.index()];
        s.ios += 1;
        s.bytes += io.len as u64;
    }

    /// Under an open loop, one I/O in direction `dir` was due at `due`, issued at `start`
    /// and completed at `done` (ticks): its response time and how late it went.
    #[inline(always)]
    pub fn responded(&mut self, dir: Direction, due: u64, start: u64, done: u64) {
        if let Some(o) = &mut self.stats[dir.index()].open {
            o.response.record(done.saturating_sub(due));
            o.lateness.record(start.saturating_sub(due));
        }
    }

    /// Under an open loop, an I/O of direction `dir` fell due with every slot busy.
    #[cold]
    pub fn late_for_slot(&mut self, dir: Direction) {
        if let Some(o) = &mut self.stats[dir.index()].open {
            o.late_for_slot += 1;
        }
    }

    /// Forgets the ramp.
    pub fn reset(&mut self, now: u64) {
        for s in &mut self.stats {
            s.reset();
        }
        self.depth = DepthCounts::default();
        if let Some(l) = &mut self.logger {
            l.start(now);
        }
        if let Some(t) = &mut self.split {
            t.reset(now);
        }
    }
}
