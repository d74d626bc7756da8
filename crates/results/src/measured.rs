//! What a run measured: per job (or per job copy), per direction, histograms in clock ticks
//! plus counters, CPU and notes. The runner fills these; fio's JSON and normal output, the
//! review steps and the store read them; a multi-host run sends them between hosts (every
//! type is serde, histograms travel whole so merging stays exact).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::{
    Direction, DiskCounters, IoLog, JobSetup, LatencyHistogram, TargetFacts, Timebase,
    SAMPLE_INTERVAL_NS,
};

/// One direction's counters and latencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirResult {
    pub ios: u64,
    pub bytes: u64,
    /// Submission latency; `None` for synchronous engines, where submitting is completing.
    pub slat: Option<LatencyHistogram>,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
    /// Bytes and I/Os done in each sampling interval of the measured window (fio's
    /// bandwidth and IOPS samples, every [`SAMPLE_INTERVAL_NS`]); empty when disabled.
    pub samples: Vec<Sample>,
    /// Latency summaries of consecutive windows of the measured time (`latency_window`);
    /// empty unless the job asks for them.
    pub windows: Vec<LatencyWindow>,
    /// Completion latencies per I/O priority (fio's `clat_prio`: clat, or total latency
    /// with `lat_percentiles`), the thread's priority first; empty unless the job set
    /// priorities per I/O (`cmdprio*`).
    #[serde(default)]
    pub prios: Vec<PrioLatency>,
    /// How the samples were taken and are averaged (fio's `bwavgtime`, `iopsavgtime`).
    #[serde(default)]
    pub sampling: Sampling,
    /// iolab's open loop (`rate_open_loop`): response times and how the schedule kept up;
    /// `None` for fio's closed loop.
    #[serde(default)]
    pub open_loop: Option<OpenLoop>,
    /// iolab's latency split (`lat_split`): each I/O's `lat` cut at the kernel's request
    /// events; `None` when the job did not ask or the kernel could not say.
    #[serde(default)]
    pub lat_split: Option<crate::LatSplit>,
    /// fio's bandwidth and IOPS figures of merged copies (`group_reporting`), summed over
    /// the copies as fio sums them; `None` for one copy, whose figures come from `samples`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pooled: Option<PooledRates>,
}

/// One rate's figures as fio 3.33's `sum_stat(.., pure_sum)` keeps them for merged copies:
/// the copies' minimums, maximums and means added (so `min` is the sum of each copy's
/// slowest interval, `mean` the group's rate), their squared deviations and sample counts
/// added (so 2 copies of 5 intervals are 10 samples).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PooledStat {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// The sum of squared deviations from the mean (fio's `S`).
    pub squares: f64,
    pub samples: usize,
}

impl PooledStat {
    fn of(r: RateStats) -> PooledStat {
        PooledStat {
            min: r.min,
            max: r.max,
            mean: r.mean,
            squares: r.stddev.powi(2) * r.samples.saturating_sub(1) as f64,
            samples: r.samples,
        }
    }

    /// Another copy's figures added, as fio's pure sum (a copy without samples adds none).
    fn add(self, o: PooledStat) -> PooledStat {
        match (self.samples, o.samples) {
            (_, 0) => self,
            (0, _) => o,
            _ => PooledStat {
                min: self.min + o.min,
                max: self.max + o.max,
                mean: self.mean + o.mean,
                squares: self.squares + o.squares,
                samples: self.samples + o.samples,
            },
        }
    }

    /// A later repeat's figures after these (the same group's rate, more intervals): the
    /// standard merge of two sets' mean and squared deviations.
    fn then(self, o: PooledStat) -> PooledStat {
        match (self.samples, o.samples) {
            (_, 0) => self,
            (0, _) => o,
            (a, b) => {
                let (na, nb) = (a as f64, b as f64);
                let delta = o.mean - self.mean;
                PooledStat {
                    min: self.min.min(o.min),
                    max: self.max.max(o.max),
                    mean: self.mean + delta * nb / (na + nb),
                    squares: self.squares + o.squares + delta * delta * na * nb / (na + nb),
                    samples: a + b,
                }
            }
        }
    }

    /// As fio's `calc_lat()` reports it.
    fn stats(&self) -> RateStats {
        RateStats {
            min: self.min,
            max: self.max,
            mean: self.mean,
            stddev: match self.samples {
                0 | 1 => 0.0,
                n => (self.squares / (n - 1) as f64).sqrt(),
            },
            samples: self.samples,
        }
    }
}

/// Bandwidth (KiB/s) and IOPS, pooled over copies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PooledRates {
    pub bw: PooledStat,
    pub iops: PooledStat,
}

impl PooledRates {
    fn of((bw, iops): (RateStats, RateStats)) -> PooledRates {
        PooledRates {
            bw: PooledStat::of(bw),
            iops: PooledStat::of(iops),
        }
    }
}

/// The share of the offered load an open loop must achieve to have carried it.
pub const SUSTAINED_SHARE: f64 = 0.98;

/// The schedule held when its lateness p99 is within this, or two of its intervals if
/// those are longer: past it, the response time's tail is the generator's as much as the
/// device's (a device's p99 of tens of µs is the scale iolab is built to measure).
pub const LATENESS_BOUND_NS: f64 = 50_000.0;

/// The share of the measured window the worker may spend waiting for a CPU (runnable, not
/// running: the scheduler's `run_delay`) before a point that fell behind is put down to
/// the generator: 0.1 % (2 ms of a 2 s point) already delays about 1 % of the I/Os at
/// several hundred thousand per second, which is the p99 the curve reads.
pub const CPU_WAIT_SHARE: f64 = 0.001;

/// One direction under an open-loop schedule: each I/O was due at a time the schedule set,
/// whether or not the ones before it had completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLoop {
    /// Due → completion (iolab's response time): a stall of the device or of the tool shows
    /// here for every I/O it delayed, where fio's `lat` (issue → completion) hides it.
    pub response: LatencyHistogram,
    /// Due → issue: how late the schedule put each I/O in flight.
    pub lateness: LatencyHistogram,
    /// I/Os that fell due while every slot (`iodepth`) was busy.
    pub late_for_slot: u64,
    /// I/Os per second the schedule asked for (summed over a group's copies).
    pub offered_iops: f64,
    /// How long the worker thread waited for a CPU while it measured (the scheduler's
    /// `run_delay`, from `/proc/thread-self/schedstat`); the longest of a group's copies;
    /// `None` where the kernel does not say.
    #[serde(default)]
    pub cpu_wait_ns: Option<u64>,
    /// The measured window the wait is a share of (the longest of a group's copies).
    #[serde(default)]
    pub window_ns: u64,
}

/// Who an open-loop point's shortfall belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Behind {
    /// Slots were busy or I/Os were short with the generator on its CPU: the device (with
    /// its kernel path) did not keep up.
    Device,
    /// The schedule fell behind with the device keeping up (a late tail with the load
    /// done), or the generator's thread waited for a CPU long enough to explain the
    /// shortfall: the point measured the machine, not the device.
    Generator,
}

impl Behind {
    pub fn label(self) -> &'static str {
        match self {
            Behind::Device => "device",
            Behind::Generator => "generator",
        }
    }
}

/// An open-loop point's judgement: carried, or who fell behind and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// `None`: carried.
    pub behind: Option<Behind>,
    /// Why, when not carried: the failed test with its figures.
    pub why: String,
}

impl Carried {
    pub fn carried(&self) -> bool {
        self.behind.is_none()
    }

    /// "yes", "no: device" or "no: generator".
    pub fn cell(&self) -> String {
        carried_cell(self.behind)
    }
}

/// A point's `carried` cell from who fell behind, if anyone: "yes", "no: device" or
/// "no: generator".
pub fn carried_cell(behind: Option<Behind>) -> String {
    match behind {
        None => "yes".to_string(),
        Some(b) => format!("no: {}", b.label()),
    }
}

impl OpenLoop {
    pub fn new(offered_iops: f64) -> OpenLoop {
        OpenLoop {
            response: LatencyHistogram::new(),
            lateness: LatencyHistogram::new(),
            late_for_slot: 0,
            offered_iops,
            cpu_wait_ns: None,
            window_ns: 0,
        }
    }

    /// Whether the load was carried: at least 98 % of the offered I/Os per second done,
    /// most I/Os issued on time (the median lateness under one interval of the schedule)
    /// and the schedule's p99 lateness within [`LATENESS_BOUND_NS`] (or two intervals).
    ///
    /// When not, whose the shortfall is. Short of I/Os or late at the median, it is the
    /// device's (slots busy, I/Os outstanding), unless the generator's thread waited for a
    /// CPU for at least [`CPU_WAIT_SHARE`] of the window and at least the share of I/Os
    /// missing. With the load done and on time at the median, a late tail is the
    /// generator's: the device kept up, the schedule did not (its thread waited for a CPU,
    /// or was held up inside the kernel, which the figures name where they can).
    pub fn judge(&self, achieved_iops: f64, tb: &impl crate::TickRate) -> Carried {
        let interval_ns = 1e9 / self.offered_iops.max(f64::MIN_POSITIVE);
        let median_ns = tb.ticks_to_ns(self.lateness.percentile_ticks(50.0));
        let p99_ns = tb.ticks_to_ns(self.lateness.percentile_ticks(99.0));
        let bound_ns = LATENESS_BOUND_NS.max(2.0 * interval_ns);
        let share = achieved_iops / self.offered_iops.max(f64::MIN_POSITIVE);
        let wait_share = match (self.cpu_wait_ns, self.window_ns) {
            (Some(w), n) if n > 0 => w as f64 / n as f64,
            _ => 0.0,
        };
        // Said only where the point was not carried.
        let waited = || match self.cpu_wait_ns {
            Some(w) => format!(
                "; the generator waited {:.1} ms for a CPU ({:.2} % of the window)",
                w as f64 / 1e6,
                wait_share * 100.0
            ),
            None => String::new(),
        };
        let (behind, why) = if share < SUSTAINED_SHARE || median_ns >= interval_ns {
            let why = match share < SUSTAINED_SHARE {
                true => format!("{:.1} % of the offered I/Os done", share * 100.0),
                false => format!(
                    "median lateness {:.1} us, past the interval",
                    median_ns / 1e3
                ),
            };
            match wait_share >= CPU_WAIT_SHARE.max(1.0 - share) {
                true => (Behind::Generator, format!("{why}{}", waited())),
                false => (Behind::Device, why),
            }
        } else if p99_ns > bound_ns {
            let why = format!(
                "the load was done, but the schedule's lateness p99 {:.1} us passed {:.0} us{}",
                p99_ns / 1e3,
                bound_ns / 1e3,
                waited()
            );
            (Behind::Generator, why)
        } else {
            return Carried {
                behind: None,
                why: String::new(),
            };
        };
        Carried {
            behind: Some(behind),
            why,
        }
    }

    pub fn merge(&mut self, other: &OpenLoop) {
        self.response.merge(&other.response);
        self.lateness.merge(&other.lateness);
        self.late_for_slot += other.late_for_slot;
        self.offered_iops += other.offered_iops;
        self.cpu_wait_ns = match (self.cpu_wait_ns, other.cpu_wait_ns) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.window_ns = self.window_ns.max(other.window_ns);
    }
}

/// The sampling of bandwidth and IOPS: one sample every `every_ms`, averaged over
/// `bw_ms` for bandwidth and `iops_ms` for IOPS (both multiples of `every_ms`; fio's
/// `bwavgtime` and `iopsavgtime`, 500 ms by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sampling {
    pub every_ms: u32,
    pub bw_ms: u32,
    pub iops_ms: u32,
}

impl Default for Sampling {
    fn default() -> Sampling {
        let ms = (SAMPLE_INTERVAL_NS / 1_000_000) as u32;
        Sampling {
            every_ms: ms,
            bw_ms: ms,
            iops_ms: ms,
        }
    }
}

impl Sampling {
    /// Sampling for `bw_ms` and `iops_ms`: a sample at their greatest common divisor.
    pub fn for_averages(bw_ms: u32, iops_ms: u32) -> Sampling {
        fn gcd(a: u32, b: u32) -> u32 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let (bw_ms, iops_ms) = (bw_ms.max(1), iops_ms.max(1));
        Sampling {
            every_ms: gcd(bw_ms, iops_ms),
            bw_ms,
            iops_ms,
        }
    }
}

/// The latencies of the I/Os of one priority.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrioLatency {
    /// The `ioprio` value: class << 13 | level.
    pub ioprio: u16,
    pub lat: LatencyHistogram,
}

impl PrioLatency {
    pub fn class(&self) -> u16 {
        self.ioprio >> 13
    }

    pub fn level(&self) -> u16 {
        self.ioprio & 7
    }
}

/// What the latencies of one window looked like, in clock ticks: enough to draw latency over
/// time (the reviews' "stayed at 10 µs for hours") without keeping a histogram per window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyWindow {
    pub ios: u64,
    pub p50: u64,
    pub p99: u64,
    pub p9999: u64,
    pub max: u64,
}

impl LatencyWindow {
    pub fn of(h: &LatencyHistogram) -> LatencyWindow {
        if h.count() == 0 {
            return LatencyWindow::default();
        }
        LatencyWindow {
            ios: h.count(),
            p50: h.percentile_ticks(50.0),
            p99: h.percentile_ticks(99.0),
            p9999: h.percentile_ticks(99.99),
            max: h.percentile_ticks(100.0),
        }
    }
}

/// What one direction did in one sampling interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub bytes: u64,
    pub ios: u64,
}

/// min, max, mean, sample standard deviation and count of a rate over the sampling
/// intervals (all zero when there are none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RateStats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
    pub samples: usize,
}

impl RateStats {
    fn of(v: impl Iterator<Item = f64> + Clone) -> RateStats {
        let n = v.clone().count();
        if n == 0 {
            return RateStats::default();
        }
        let mean = v.clone().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.clone().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        RateStats {
            min: v.clone().fold(f64::INFINITY, f64::min),
            max: v.fold(0.0, f64::max),
            mean,
            stddev: var.sqrt(),
            samples: n,
        }
    }
}

impl DirResult {
    /// Bandwidth (KiB/s) and IOPS over the sampling intervals: fio's bw_* and iops_*.
    /// Samples are summed over each whole `bwavgtime` (`iopsavgtime`) first; a part at the
    /// end is left out, as fio takes a sample only when its time is up.
    pub fn sample_rates(&self) -> (RateStats, RateStats) {
        match &self.pooled {
            Some(p) => (p.bw.stats(), p.iops.stats()),
            None => self.series_rates(),
        }
    }

    /// The rates over this result's own interval series (one copy's, or a merged series).
    fn series_rates(&self) -> (RateStats, RateStats) {
        let s = self.sampling;
        let per = |ms: u32| (ms / s.every_ms.max(1)).max(1) as usize;
        let (bw_n, iops_n) = (per(s.bw_ms), per(s.iops_ms));
        let bw_secs = (bw_n as u32 * s.every_ms) as f64 / 1e3;
        let iops_secs = (iops_n as u32 * s.every_ms) as f64 / 1e3;
        let sums = |n: usize, f: fn(&Sample) -> u64| {
            self.samples
                .chunks_exact(n)
                .map(move |c| c.iter().map(f).sum::<u64>() as f64)
        };
        (
            RateStats::of(sums(bw_n, |s| s.bytes).map(|b| b / 1024.0 / bw_secs)),
            RateStats::of(sums(iops_n, |s| s.ios).map(|n| n / iops_secs)),
        )
    }

    pub fn empty() -> DirResult {
        DirResult {
            ios: 0,
            bytes: 0,
            slat: None,
            clat: LatencyHistogram::new(),
            lat: LatencyHistogram::new(),
            samples: Vec::new(),
            windows: Vec::new(),
            prios: Vec::new(),
            sampling: Sampling::default(),
            open_loop: None,
            lat_split: None,
            pooled: None,
        }
    }

    /// How many priorities have latencies: fio reports them apart from two on.
    pub fn prios_with_samples(&self) -> usize {
        self.prios.iter().filter(|p| p.lat.count() > 0).count()
    }

    pub fn merge(&mut self, other: &DirResult) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        // By priority value, as fio's clat_prio_stats_add (a new value is added at the end).
        for p in &other.prios {
            match self.prios.iter_mut().find(|q| q.ioprio == p.ioprio) {
                Some(q) => q.lat.merge(&p.lat),
                None => self.prios.push(p.clone()),
            }
        }
        match (&mut self.open_loop, &other.open_loop) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.open_loop = Some(b.clone()),
            _ => {}
        }
        match (&mut self.lat_split, &other.lat_split) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.lat_split = Some(b.clone()),
            _ => {}
        }
        // fio's figures of the copies add up (before the samples do: each copy's own).
        let mine = self
            .pooled
            .unwrap_or_else(|| PooledRates::of(self.series_rates()));
        let theirs = other
            .pooled
            .unwrap_or_else(|| PooledRates::of(other.series_rates()));
        self.pooled = Some(PooledRates {
            bw: mine.bw.add(theirs.bw),
            iops: mine.iops.add(theirs.iops),
        });
        // Copies run over the same windows: their samples add up to the group's rate.
        if self.samples.len() < other.samples.len() {
            self.samples.resize(other.samples.len(), Sample::default());
        }
        for (a, b) in self.samples.iter_mut().zip(&other.samples) {
            a.bytes += b.bytes;
            a.ios += b.ios;
        }
        match (&mut self.slat, &other.slat) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.slat = Some(b.clone()),
            _ => {}
        }
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        // Window percentiles do not add up; a merged report keeps the worst of each window.
        if self.windows.len() < other.windows.len() {
            self.windows
                .resize(other.windows.len(), LatencyWindow::default());
        }
        for (a, b) in self.windows.iter_mut().zip(&other.windows) {
            a.ios += b.ios;
            a.p50 = a.p50.max(b.p50);
            a.p99 = a.p99.max(b.p99);
            a.p9999 = a.p9999.max(b.p9999);
            a.max = a.max.max(b.max);
        }
    }
}

/// How deep the queue was, fio's `IO depths` block: `level` counts I/Os by the number in
/// flight once each was queued (buckets 1, 2, 4, 8, 16, 32, ≥64); `submit` and `complete`
/// count submit and reap calls by how many I/Os each carried (buckets 0, 1–4, 5–8, 9–16,
/// 17–32, 33–64, >64).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthCounts {
    pub level: [u64; 7],
    pub submit: [u64; 7],
    pub complete: [u64; 7],
}

impl DepthCounts {
    /// Bucket of `level` for `n` I/Os in flight.
    #[inline(always)]
    pub fn level_bucket(n: usize) -> usize {
        match n {
            0..=1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        }
    }

    /// Bucket of `submit`/`complete` for a call carrying `n` I/Os.
    #[inline(always)]
    pub fn batch_bucket(n: usize) -> usize {
        match n {
            0 => 0,
            1..=4 => 1,
            5..=8 => 2,
            9..=16 => 3,
            17..=32 => 4,
            33..=64 => 5,
            _ => 6,
        }
    }

    pub fn add(&mut self, o: &DepthCounts) {
        for i in 0..7 {
            self.level[i] += o.level[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
    }
}

/// CPU spent while measuring, in ns: the job's own threads (user, system) and the kernel
/// helper threads working for them (io-wq workers, SQPOLL threads; all system time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuUsage {
    pub user_ns: u64,
    pub sys_ns: u64,
    pub iowq_ns: u64,
    pub sqpoll_ns: u64,
    /// Context switches of the job's own threads.
    pub ctx: u64,
    /// Page faults of the job's own threads (fio's majf, minf).
    pub majflt: u64,
    pub minflt: u64,
}

impl CpuUsage {
    pub fn helper_ns(&self) -> u64 {
        self.iowq_ns + self.sqpoll_ns
    }

    /// Everything: own user + own system + helpers.
    pub fn total_ns(&self) -> u64 {
        self.user_ns + self.sys_ns + self.helper_ns()
    }

    pub fn add(&mut self, o: &CpuUsage) {
        self.user_ns += o.user_ns;
        self.sys_ns += o.sys_ns;
        self.iowq_ns += o.iowq_ns;
        self.sqpoll_ns += o.sqpoll_ns;
        self.ctx += o.ctx;
        self.majflt += o.majflt;
        self.minflt += o.minflt;
    }
}

/// One reported job: a single job copy, or all copies merged (`group_reporting`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    /// Which of the run's jobs this reports on (its position in the list given to run_jobs);
    /// for a merged group, the last job merged in (whose options fio's JSON shows).
    pub job_index: usize,
    /// fio's reporting group (jobs share one until `new_group` or `stonewall` starts the next).
    pub group_id: u32,
    /// The job as its results describe it.
    pub setup: JobSetup,
    /// How many job copies this report covers.
    pub clones: u32,
    /// Indexed by [`Direction::index`]; `None` for directions the job does not issue.
    #[serde(deserialize_with = "crate::direction::per_direction")]
    pub dirs: [Option<DirResult>; Direction::COUNT],
    /// Length of the measured window (after the ramp), in ns; the longest copy's.
    pub runtime_ns: u64,
    /// The copies' measured windows summed (fio's `total_run_time`, summed over a reporting
    /// group): what fio's `job_runtime` and its usr/sys CPU percentages are relative to.
    pub total_runtime_ns: u64,
    /// Wall time from the job's phase start to its end (start delay and ramp included), in ns.
    pub elapsed_ns: u64,
    pub cpu: CpuUsage,
    pub depth: DepthCounts,
    /// fsyncs (`fsync=N`): count and latency; `None` when the job issues none.
    pub sync: Option<DirResult>,
    /// Each copy's I/O log (`write_lat_log` and friends), in job-number order.
    pub logs: Vec<IoLog>,
    /// Each copy's trace of its I/Os (`write_iolog`), in job-number order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<crate::IoTrace>,
    pub target: TargetFacts,
    /// Ways the kernel served the job differently from what was asked.
    pub notes: Vec<String>,
    /// Why the job's I/O did not take the path asked for at all (hipri served by interrupts),
    /// when it did not: its figures are not that path's, and no table marks them best.
    #[serde(default)]
    pub fallback: Option<String>,
    /// Interrupts the disk under the target raised while the job's phase ran (its PCI
    /// function's lines in /proc/interrupts), where the disk has such lines: the evidence
    /// that polled I/O polled (a poll queue raises none).
    #[serde(default)]
    pub device_interrupts: Option<u64>,
    /// How the engine was set up where it chose for itself (the io_uring setup flags the
    /// kernel accepted): a figure compares only with one measured the same way.
    #[serde(default)]
    pub engine_setup: Option<String>,
    pub interrupted: bool,
    /// Stopped early on purpose because another host finished first (`--stonewall-hosts`):
    /// its window is short, but it was not interrupted.
    #[serde(default)]
    pub stonewalled: bool,
    /// What the steady-state check found (fio's `ss`), for a job that asked for one; with
    /// group reporting, the group's.
    #[serde(default)]
    pub steady: Option<crate::SteadyResult>,
    /// What fio's latency-target search found, for a job that had a target.
    #[serde(default)]
    pub lat_target: Option<LatTargetResult>,
    /// The error that ended the job early (fio's `err=`), with the figures it measured until
    /// then kept above; `None` for a job that ran to its end.
    #[serde(default)]
    pub error: Option<JobError>,
    /// Errors the job went past (`continue_on_error`); `None` when it goes past none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<ErrorCounts>,
    /// Zone resets done before writes (`zonemode=zbd`; fio's `nr_zone_resets`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zone_resets: u64,
    /// Unix time in ms when the job's phase began (0 in reports made before iolab kept it).
    #[serde(default)]
    pub started_unix_ms: u64,
    /// When the job's phase began in ms by the clock the job named for it (fio 3.42's
    /// `job_start_clock_id`), where that is not `CLOCK_REALTIME`: the JSON's `job_start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_start_ms: Option<u64>,
    /// Each repeat's figures, for a job run `--repeat N` times (this report pools them);
    /// empty for a job run once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<crate::RepeatFigures>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The errors a job went past with `continue_on_error` (fio's `total_err`, `first_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ErrorCounts {
    /// Errors gone past (fio's `total_err`).
    pub total: u64,
    /// The first one's errno (fio's `first_error`; 0: none).
    pub first: i32,
}

/// Why a job ended early: the errno fio reports as `err=`, and the whole message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobError {
    pub errno: i32,
    pub message: String,
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The queue depth a job's latency-target search settled on (fio's `latency_depth`), and
/// the target it searched for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatTargetResult {
    pub depth: u32,
    pub target_ns: u64,
    pub window_us: u64,
    pub percentile: f64,
}

/// fio's latency distribution (`io_u_lat_n/u/m`): the share of I/Os, in percent, whose
/// completion latency (issue to completion, fio's `io_u_mark_latency()`) fell in each bucket.
/// Bucket `i` of a unit covers `[STEPS[i-1], STEPS[i])` of it, the first from one unit
/// (from zero for ns); ms has a last, open bucket `>=2000`. A share below 0.01 % of a bucket
/// that has I/Os is 0.01, as fio's `stat_calc_lat()` rounds it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LatencyBuckets {
    pub ns: [f64; 10],
    pub us: [f64; 10],
    pub ms: [f64; 12],
}

impl LatencyBuckets {
    /// The bucket bounds of ns and us (ms adds 2000 and `>=2000`).
    pub const STEPS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    pub const MS_STEPS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];
}

impl JobReport {
    /// fio's latency buckets over every direction of the job (empty when the job does not
    /// keep them: fio's `gtod_reduce` or `disable_clat`).
    pub fn latency_buckets(&self, clock: &Timebase) -> LatencyBuckets {
        let hists: Vec<&LatencyHistogram> = self.dirs.iter().flatten().map(|d| &d.clat).collect();
        let total: u64 = match self.setup.recorded.buckets {
            true => hists.iter().map(|h| h.count()).sum(),
            false => 0,
        };
        let mut b = LatencyBuckets::default();
        if total == 0 {
            return b;
        }
        let below = |ns: u64| -> u64 {
            let ticks = clock.ns_to_ticks(ns);
            hists.iter().map(|h| h.count_below(ticks)).sum()
        };
        let pct = |n: u64| match n {
            0 => 0.0,
            n => (n as f64 * 100.0 / total as f64).max(0.01),
        };
        let fill = |out: &mut [f64], scale: u64, steps: &[u64]| {
            let mut prev = if scale == 1 { 0 } else { below(scale) };
            for (o, &s) in out.iter_mut().zip(steps) {
                let hi = below(s * scale);
                *o = pct(hi.saturating_sub(prev));
                prev = hi;
            }
            prev
        };
        fill(&mut b.ns, 1, &LatencyBuckets::STEPS);
        fill(&mut b.us, 1_000, &LatencyBuckets::STEPS);
        let below_2s = fill(&mut b.ms[..11], 1_000_000, &LatencyBuckets::MS_STEPS);
        b.ms[11] = pct(total.saturating_sub(below_2s));
        b
    }

    pub fn dir(&self, d: Direction) -> Option<&DirResult> {
        self.dirs[d.index()].as_ref()
    }

    /// Reads and writes together (fio's "mixed" direction for `unified_rw_reporting`).
    pub fn mixed(&self) -> DirResult {
        let mut m = DirResult::empty();
        for d in self.dirs.iter().flatten() {
            m.merge(d);
        }
        m
    }

    pub fn total_ios(&self) -> u64 {
        self.dirs.iter().flatten().map(|d| d.ios).sum()
    }

    /// I/Os per second over the measured window, for one direction.
    pub fn iops(&self, d: Direction) -> f64 {
        self.dir(d)
            .map_or(0.0, |r| per_second(r.ios, self.runtime_ns))
    }

    pub fn bw_bytes_per_sec(&self, d: Direction) -> f64 {
        self.dir(d)
            .map_or(0.0, |r| per_second(r.bytes, self.runtime_ns))
    }

    /// I/Os completed per second of CPU (own threads plus kernel helpers): what a path costs.
    pub fn iops_per_cpu_sec(&self) -> f64 {
        let cpu = self.cpu.total_ns();
        if cpu == 0 {
            return 0.0;
        }
        self.total_ios() as f64 / (cpu as f64 / 1e9)
    }

    /// Merges another copy of the same job into this report.
    pub fn merge(&mut self, other: &JobReport) {
        for (a, b) in self.dirs.iter_mut().zip(&other.dirs) {
            match (a.as_mut(), b) {
                (Some(a), Some(b)) => a.merge(b),
                (None, Some(b)) => *a = Some(b.clone()),
                _ => {}
            }
        }
        self.clones += other.clones;
        self.job_index = other.job_index;
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        self.total_runtime_ns += other.total_runtime_ns;
        self.elapsed_ns = self.elapsed_ns.max(other.elapsed_ns);
        self.cpu.add(&other.cpu);
        self.depth.add(&other.depth);
        self.logs.extend(other.logs.iter().cloned());
        if let Some(o) = other.errors {
            let e = self.errors.get_or_insert_with(ErrorCounts::default);
            e.total += o.total;
            if e.first == 0 {
                e.first = o.first;
            }
        }
        self.traces.extend(other.traces.iter().cloned());
        self.zone_resets += other.zone_resets;
        match (self.sync.as_mut(), &other.sync) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.sync = Some(b.clone()),
            _ => {}
        }
        for n in &other.notes {
            if !self.notes.contains(n) {
                self.notes.push(n.clone());
            }
        }
        self.interrupted |= other.interrupted;
        if self.error.is_none() {
            self.error = other.error.clone();
        }
        self.stonewalled |= other.stonewalled;
        if self.fallback.is_none() {
            self.fallback = other.fallback.clone();
        }
        // Copies of a phase share its disk's count.
        self.device_interrupts = self.device_interrupts.or(other.device_interrupts);
        if self.engine_setup.is_none() {
            self.engine_setup = other.engine_setup.clone();
        }
        if self.steady.is_none() {
            self.steady = other.steady.clone();
        }
        if self.lat_target.is_none() {
            self.lat_target = other.lat_target.clone();
        }
        self.started_unix_ms = match (self.started_unix_ms, other.started_unix_ms) {
            (0, b) => b,
            (a, 0) => a,
            (a, b) => a.min(b),
        };
        self.job_start_ms = match (self.job_start_ms, other.job_start_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// Adds a later repeat of the same job: its I/Os, histograms, CPU and time measured add
    /// up (so IOPS are all the I/Os over all the time measured), its samples and latency
    /// windows follow this one's, and the copies it covers stay what one repeat covers.
    pub fn append(&mut self, later: &JobReport) {
        let clones = self.clones;
        let mut next = later.clone();
        // Notes that differ only in their figures (a share of CPU) are one note.
        let shape = |n: &str| {
            n.split(|c: char| c.is_ascii_digit())
                .next()
                .map(str::to_owned)
        };
        next.notes
            .retain(|n| !self.notes.iter().any(|m| shape(m) == shape(n)));
        let tails: Vec<_> = next
            .dirs
            .iter_mut()
            .map(|d| {
                d.as_mut().map(|d| {
                    (
                        std::mem::take(&mut d.samples),
                        std::mem::take(&mut d.windows),
                    )
                })
            })
            .collect();
        let (runtime, elapsed) = (self.runtime_ns, self.elapsed_ns);
        // A round that did not take the path asked for makes the pooled figures not that
        // path's either.
        if self.fallback.is_none() {
            self.fallback = next.fallback.clone();
        }
        // A repeat's rates follow this one's, not added to them as a copy's are.
        let rates: Vec<_> = self
            .dirs
            .iter()
            .zip(&later.dirs)
            .map(|(a, b)| {
                let of = |d: &DirResult| {
                    d.pooled
                        .unwrap_or_else(|| PooledRates::of(d.series_rates()))
                };
                let pooled = a.as_ref().is_some_and(|d| d.pooled.is_some())
                    || b.as_ref().is_some_and(|d| d.pooled.is_some());
                match (a, b) {
                    (Some(a), Some(b)) if pooled => {
                        let (x, y) = (of(a), of(b));
                        Some(PooledRates {
                            bw: x.bw.then(y.bw),
                            iops: x.iops.then(y.iops),
                        })
                    }
                    _ => None,
                }
            })
            .collect();
        self.merge(&next);
        for ((d, tail), pooled) in self.dirs.iter_mut().zip(tails).zip(rates) {
            if let (Some(d), Some((samples, windows))) = (d.as_mut(), tail) {
                d.samples.extend(samples);
                d.windows.extend(windows);
                d.pooled = pooled;
            }
        }
        self.clones = clones;
        self.runtime_ns = runtime + later.runtime_ns;
        self.elapsed_ns = elapsed + later.elapsed_ns;
    }
}

fn per_second(n: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        n as f64 * 1e9 / ns as f64
    }
}

/// What a disk under the run's targets did during the run (fio's `disk_util`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskUsage {
    pub name: String,
    pub counters: DiskCounters,
    /// Wall time the counters cover.
    pub elapsed_ms: u64,
}

impl DiskUsage {
    /// Percentage of the time the disk had I/O in flight.
    pub fn util_percent(&self) -> f64 {
        if self.elapsed_ms == 0 {
            return 0.0;
        }
        (self.counters.io_ticks_ms as f64 * 100.0 / self.elapsed_ms as f64).min(100.0)
    }
}

/// Everything one call of `run_jobs` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub jobs: Vec<JobReport>,
    /// The disks behind the targets, in name order.
    pub disks: Vec<DiskUsage>,
    /// What the histograms' ticks are.
    pub clock: Timebase,
    pub started: SystemTime,
    /// Stopped early by SIGINT/SIGTERM.
    pub interrupted: bool,
    /// The drives behind the targets and their health logs around the run (an entry saying
    /// why for a drive without one).
    #[serde(default)]
    pub health: Vec<crate::DriveHealth>,
}

impl RunOutcome {
    /// The first job error, when a job ended on one.
    pub fn first_error(&self) -> Option<&JobError> {
        self.jobs.iter().find_map(|j| j.error.as_ref())
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn sample_rates_are_per_second_with_sample_stddev() {
        let mut r = DirResult::empty();
        assert_eq!(
            r.sample_rates(),
            (RateStats::default(), RateStats::default())
        );
        // Two 500 ms intervals: 100 and 300 I/Os of 4 KiB.
        r.samples = vec![
            Sample {
                bytes: 100 * 4096,
                ios: 100,
            },
            Sample {
                bytes: 300 * 4096,
                ios: 300,
            },
        ];
        let (bw, iops) = r.sample_rates();
        assert_eq!(
            (iops.min, iops.max, iops.mean, iops.samples),
            (200.0, 600.0, 400.0, 2)
        );
        assert!((iops.stddev - 282.842712).abs() < 1e-3, "{}", iops.stddev);
        assert_eq!((bw.min, bw.max), (800.0, 2400.0));
    }

    fn copy(ios: &[u64]) -> DirResult {
        let mut r = DirResult::empty();
        r.samples = ios
            .iter()
            .map(|&n| Sample {
                bytes: n * 4096,
                ios: n,
            })
            .collect();
        r
    }

    #[test]
    fn merged_copies_report_fios_pure_sums() {
        // Copy A: 200 and 600 IOPS; copy B: 400, 400 and 1000 IOPS (500 ms intervals).
        let mut g = copy(&[100, 300]);
        g.merge(&copy(&[200, 200, 500]));
        let (_, iops) = g.sample_rates();
        // fio 3.33's sum_stat(pure_sum): mins, maxes and means add; so do the squared
        // deviations (80000 + 240000) and the samples (2 + 3).
        assert_eq!(
            (iops.min, iops.max, iops.mean, iops.samples),
            (600.0, 1600.0, 1000.0, 5)
        );
        assert!((iops.stddev - (320_000f64 / 4.0).sqrt()).abs() < 1e-6);
        // A third copy adds to the pooled figures, not to the summed series'.
        g.merge(&copy(&[50]));
        let (_, iops) = g.sample_rates();
        assert_eq!((iops.min, iops.mean, iops.samples), (700.0, 1100.0, 6));
        // A repeat of the group follows it (JobReport::append): the same rate, more
        // intervals, the spread of the two sets about their common mean.
        let p = g.pooled.unwrap().iops;
        let both = p.then(PooledStat { mean: 1300.0, ..p });
        assert_eq!((both.min, both.mean, both.samples), (700.0, 1200.0, 12));
        assert!((both.squares - (2.0 * p.squares + 200.0 * 200.0 * 3.0)).abs() < 1e-6);
    }
}

#[cfg(test)]
mod open_loop_tests {
    use super::*;
    use crate::Timebase;

    /// A 2 s point at 100k IOPS offered: lateness `late_ns` for 98.5 % of the I/Os and
    /// `tail_ns` for the rest; the generator waited `wait_ns` for a CPU.
    fn point(late_ns: u64, tail_ns: u64, wait_ns: Option<u64>) -> OpenLoop {
        let mut o = OpenLoop::new(100_000.0);
        for i in 0..200_000u64 {
            o.lateness
                .record(if i % 1000 < 985 { late_ns } else { tail_ns });
        }
        o.cpu_wait_ns = wait_ns;
        o.window_ns = 2_000_000_000;
        o
    }

    #[test]
    fn a_point_on_time_is_carried() {
        let j = point(1_000, 20_000, Some(0)).judge(100_000.0, &Timebase::NANOSECONDS);
        assert!(j.carried(), "{j:?}");
        assert_eq!(j.cell(), "yes");
    }

    #[test]
    fn a_late_tail_with_the_generator_waiting_for_a_cpu_is_the_generators() {
        // 1.5 % of the I/Os 2 ms late; the thread waited 10 ms (0.5 % of the window).
        let j = point(1_000, 2_000_000, Some(10_000_000)).judge(100_000.0, &Timebase::NANOSECONDS);
        assert_eq!(j.behind, Some(Behind::Generator), "{j:?}");
        assert!(j.why.contains("waited 10.0 ms"), "{}", j.why);
        assert_eq!(j.cell(), "no: generator");
    }

    #[test]
    fn a_late_tail_with_the_load_done_is_the_generators_whatever_the_wait() {
        for wait in [Some(0), Some(1_000_000), None] {
            let j = point(1_000, 2_000_000, wait).judge(100_000.0, &Timebase::NANOSECONDS);
            assert_eq!(j.behind, Some(Behind::Generator), "{wait:?}: {j:?}");
            assert!(j.why.contains("lateness p99 2000.0 us"), "{}", j.why);
        }
    }

    #[test]
    fn late_at_the_median_is_the_devices() {
        let j = point(20_000, 20_000, Some(0)).judge(100_000.0, &Timebase::NANOSECONDS);
        assert_eq!(j.behind, Some(Behind::Device), "{j:?}");
        assert!(j.why.contains("median lateness"), "{}", j.why);
    }

    #[test]
    fn a_shortfall_larger_than_the_wait_is_the_devices() {
        // Half the load done: 10 ms of waiting cannot explain 1 s of missing I/Os.
        let j = point(1_000, 2_000, Some(10_000_000)).judge(50_000.0, &Timebase::NANOSECONDS);
        assert_eq!(j.behind, Some(Behind::Device), "{j:?}");
        // 97 % done and the thread waited 4 % of the window: the generator's.
        let j = point(1_000, 2_000, Some(80_000_000)).judge(97_000.0, &Timebase::NANOSECONDS);
        assert_eq!(j.behind, Some(Behind::Generator), "{j:?}");
    }

    #[test]
    fn merged_copies_keep_the_longest_wait() {
        let mut a = point(1_000, 2_000, Some(5));
        a.merge(&point(1_000, 2_000, Some(9)));
        assert_eq!((a.cpu_wait_ns, a.offered_iops), (Some(9), 200_000.0));
        let mut b = point(1_000, 2_000, None);
        b.merge(&point(1_000, 2_000, Some(3)));
        assert_eq!(b.cpu_wait_ns, Some(3));
    }
}
