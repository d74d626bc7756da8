//! What a job's I/O log holds (fio's `write_lat_log`, `write_iops_log`, `write_bw_log`):
//! one entry per I/O, or with `log_avg_msec` one averaged entry per window and direction.
//! The runner's logger fills it; the fio front end writes it out in fio's format.

use serde::{Deserialize, Serialize};

use crate::Direction;

/// One completed I/O (per-I/O mode). Times in ticks since the measured window began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoEntry {
    pub at_ticks: u64,
    pub dir: Direction,
    pub len: u32,
    /// Submission latency; 0 for synchronous engines.
    pub slat_ticks: u64,
    pub clat_ticks: u64,
    pub lat_ticks: u64,
    /// Where the I/O began, in bytes (fio's `log_offset` column).
    #[serde(default)]
    pub offset: u64,
    /// The I/O's priority value (`ioprio`: class << 13 | level; the thread's unless it had
    /// one of its own), fio's last column.
    #[serde(default)]
    pub prio: u16,
}

/// One window of one direction (averaged mode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowEntry {
    /// End of the window, in ms since the measured window began.
    pub at_ms: u64,
    pub dir: Direction,
    pub ios: u64,
    pub bytes: u64,
    /// How long the window was, in ms: `avg_ms`, but shorter for the last one, cut by the
    /// job's end (rates are over this).
    pub span_ms: f64,
    /// Mean latencies over the window, in ticks (the largest, with fio's
    /// `log_max_value`).
    pub slat_ticks: f64,
    pub clat_ticks: f64,
    pub lat_ticks: f64,
}

/// What one job copy logged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoLog {
    /// fio's job number (1-based, in run order over all copies): names the log files.
    pub job_number: u32,
    /// Window length in ms; 0 for per-I/O entries.
    pub avg_ms: u32,
    /// Lines carry the offset column (fio's `log_offset`).
    #[serde(default)]
    pub with_offset: bool,
    /// The last column is the priority value, not whether it was realtime (`log_prio`).
    #[serde(default)]
    pub with_prio: bool,
    pub per_io: Vec<IoEntry>,
    pub windows: Vec<WindowEntry>,
    /// Per-I/O entries not kept because the log reached its memory cap.
    pub dropped: u64,
    /// Added to every line's time: the ms of the clock the logs' times are given in
    /// (fio's `log_unix_epoch`, `log_alternate_epoch`) when the log's time 0 was; 0 for
    /// times since the job's start.
    #[serde(default)]
    pub epoch_ms: u64,
}

/// The I/Os one job copy issued, for fio's `write_iolog`: its files and, per I/O, when it
/// was issued (µs since the copy started), where and how much.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoTrace {
    /// Where the trace goes (fio's `write_iolog` value).
    pub path: String,
    pub files: Vec<String>,
    pub ios: Vec<TraceEntry>,
    /// When the copy closed its files, µs since it started.
    pub end_us: u64,
    /// I/Os not kept because the trace reached its memory cap.
    pub dropped: u64,
}

/// One traced I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEntry {
    pub at_us: u64,
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
    pub len: u32,
}
