//! What a result needs to know about the job that produced it: its name and shape (engine,
//! depth, pattern, block size, files) and the reporting choices that decide how its figures
//! are printed (percentiles, which latencies, reads and writes apart or mixed). The job model
//! (`iolab_job::JobSpec`) makes one with `JobSpec::setup`; nothing here knows fio's syntax.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Which latencies are measured and reported (fio's `disable_slat`, `disable_clat`,
/// `disable_lat`, `disable_bw`; `gtod_reduce` turns all four off). A latency that is off
/// reports as zeros, as in fio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub bw: bool,
    /// fio's latency_ns/us/ms shares (its `io_u_mark_latency()`). Off for fio's
    /// file-operation engines, which time each operation into clat themselves and leave the
    /// shares at zero.
    #[serde(default = "yes")]
    pub buckets: bool,
}

impl Default for Recorded {
    fn default() -> Self {
        Recorded {
            slat: true,
            clat: true,
            lat: true,
            bw: true,
            buckets: true,
        }
    }
}

/// How reads and writes are reported (fio's `unified_rw_reporting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwReporting {
    /// Reads and writes apart (fio's default).
    #[default]
    Separate,
    /// One "mixed" direction summing both.
    Mixed,
    /// Both: apart, and mixed.
    Both,
}

/// Which per-I/O logs to keep, and their file-name prefixes (fio's `write_lat_log`,
/// `write_iops_log`, `write_bw_log`, `log_avg_msec`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSpec {
    pub lat: Option<String>,
    pub iops: Option<String>,
    pub bw: Option<String>,
    /// Average over windows of this many ms; 0 logs every I/O.
    pub avg_msec: u32,
    /// Each line also says where its I/O began (fio's `log_offset`).
    #[serde(default)]
    pub offset: bool,
    /// The last column is the I/O's whole priority value, not whether it was realtime
    /// (fio's `log_prio`).
    #[serde(default)]
    pub prio: bool,
    /// Each latency line also says when its I/O was issued, in ns (fio 3.42's
    /// `log_issue_time`, with `log_offset`).
    #[serde(default)]
    pub issue_time: bool,
    /// Each job copy logs to its own file, `PREFIX_KIND.N.log` (fio's `per_job_logs`,
    /// default true); false: the copies share `PREFIX_KIND.log`, one after another.
    #[serde(default = "yes")]
    pub per_job: bool,
    /// The clock whose time the lines carry (fio's `log_unix_epoch`: `CLOCK_REALTIME`;
    /// `log_alternate_epoch` with its `log_alternate_epoch_clock_id`); None: ms since the
    /// job's start.
    #[serde(default)]
    pub epoch_clock: Option<i32>,
    /// An averaged window's latency line gives its largest latency, not its mean (fio's
    /// `log_max_value`).
    #[serde(default)]
    pub max_value: bool,
    /// Each line gives the window's mean and then its largest (fio 3.42's
    /// `log_window_value=both`).
    #[serde(default)]
    pub window_both: bool,
    /// Where to trace every issued I/O in fio's iolog format (fio's `write_iolog`).
    #[serde(default)]
    pub iolog: Option<String>,
    /// Completion-latency histograms per window, to `PREFIX_clat_hist.N.log` (fio's
    /// `write_hist_log`).
    #[serde(default)]
    pub hist: Option<String>,
    /// The histogram window in ms (fio's `log_hist_msec`; 0, fio's default, logs none).
    #[serde(default)]
    pub hist_msec: u32,
    /// Each histogram line sums 2^N of fio's bins (fio's `log_hist_coarseness`, 0..=6).
    #[serde(default)]
    pub hist_coarseness: u8,
    /// Store the logs as fio's compressed `.log.fz` files (fio's `log_store_compressed`),
    /// which `fio --inflate-log` prints as text.
    #[serde(default)]
    pub store_compressed: bool,
}

fn yes() -> bool {
    true
}

impl Default for LogSpec {
    fn default() -> LogSpec {
        LogSpec {
            lat: None,
            iops: None,
            bw: None,
            avg_msec: 0,
            offset: false,
            prio: false,
            issue_time: false,
            per_job: true,
            epoch_clock: None,
            max_value: false,
            window_both: false,
            iolog: None,
            hist: None,
            hist_msec: 0,
            hist_coarseness: 0,
            store_compressed: false,
        }
    }
}

impl LogSpec {
    /// Whether any log is kept while the job runs (the iolog trace is kept apart).
    pub fn any(&self) -> bool {
        self.per_io_kinds() || self.hist.is_some()
    }

    /// Whether a latency, IOPS or bandwidth log is asked for (they share their entries).
    pub fn per_io_kinds(&self) -> bool {
        self.lat.is_some() || self.iops.is_some() || self.bw.is_some()
    }
}

/// How the normal report prints sizes, rates and counts (fio's `significant_figures`,
/// `kb_base` and `unit_base`). JSON is never affected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberStyle {
    /// Digits a figure keeps, the decimal point counted (fio's default 4: "27.7k").
    pub sig_figs: u8,
    /// Decimal (kB, MB) prefixes first and binary ones in brackets (`kb_base=1000`); binary
    /// first otherwise.
    pub si_first: bool,
    /// Bandwidth in bits per second (`unit_base=1`), else bytes.
    pub bits: bool,
}

impl Default for NumberStyle {
    fn default() -> Self {
        NumberStyle {
            sig_figs: 4,
            si_first: false,
            bits: false,
        }
    }
}

/// The job as its results describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSetup {
    pub name: String,
    pub description: String,
    /// The engine with the options that change its path (`io_uring hipri fixedbufs`).
    pub engine: String,
    /// True for engines whose every call blocks until the I/O is done (no submission latency).
    pub synchronous: bool,
    /// The queue depth the job really ran at (1 for synchronous engines).
    pub iodepth: u32,
    /// fio's `rw` name: read, write, rw, randread, randwrite, randrw.
    pub rw: String,
    /// The largest block size the job issues, in bytes.
    pub block_size: u32,
    /// Every file the job used (`filename`, then any more).
    pub files: Vec<PathBuf>,
    /// Percentiles to print, in percent.
    pub percentiles: Vec<f64>,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    /// Submission latency percentiles are reported too (fio's `slat_percentiles`).
    #[serde(default)]
    pub slat_percentiles: bool,
    pub recorded: Recorded,
    pub rw_reporting: RwReporting,
    /// `latency_window`, in ms, when the job keeps latency summaries per window.
    pub latency_window_ms: Option<u64>,
    pub stonewall: bool,
    /// What written data held (fio's buffer options in words); `None` for jobs that only read.
    pub write_buffers: Option<String>,
    /// The I/O logs it kept, and their file-name prefixes.
    pub logs: LogSpec,
    /// How its figures are printed.
    #[serde(default)]
    pub numbers: NumberStyle,
}

impl JobSetup {
    /// A setup for a job named `name` with fio's defaults, for results made outside a run
    /// (imports, tests).
    pub fn named(name: &str) -> JobSetup {
        JobSetup {
            name: name.to_string(),
            description: String::new(),
            engine: String::new(),
            synchronous: true,
            iodepth: 1,
            rw: "read".into(),
            block_size: 4096,
            files: Vec::new(),
            percentiles: DEFAULT_PERCENTILES.to_vec(),
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            recorded: Recorded::default(),
            rw_reporting: RwReporting::Separate,
            latency_window_ms: None,
            stonewall: false,
            write_buffers: None,
            logs: LogSpec::default(),
            numbers: NumberStyle::default(),
        }
    }

    /// The job's files joined with ':' as fio writes `filename`.
    pub fn files_joined(&self) -> String {
        self.files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// fio's default percentile list (`percentile_list`'s default), as fio reports it.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// The tail percentile iolab reports beside fio's default list, under its own name (the
/// reviews' p99.999): fio's percentile keys stay fio's.
pub const IOLAB_TAIL_PERCENTILE: f64 = 99.999;
