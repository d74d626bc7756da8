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
    /// The window's largest slat, clat and lat, in ticks (kept for `log_window_value=both`).
    #[serde(default)]
    pub max_ticks: [f64; 3],
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
    /// A second value column after the first: the window's largest (fio 3.42's
    /// `log_window_value=both`; 0 on per-I/O lines, as fio writes).
    #[serde(default)]
    pub with_max: bool,
    /// A last column with each I/O's issue time in ns (fio 3.42's `log_issue_time`): on
    /// completion and submission latency lines; 0 on the others, as fio writes.
    #[serde(default)]
    pub with_issue_time: bool,
    pub per_io: Vec<IoEntry>,
    pub windows: Vec<WindowEntry>,
    /// Per-I/O entries not kept because the log reached its memory cap.
    pub dropped: u64,
    /// Added to every line's time: the ms of the clock the logs' times are given in
    /// (fio's `log_unix_epoch`, `log_alternate_epoch`) when the log's time 0 was; 0 for
    /// times since the job's start.
    #[serde(default)]
    pub epoch_ms: u64,
    /// Completion-latency histograms, one per window and direction (`write_hist_log`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hist: Vec<HistEntry>,
}

/// fio's latency bins (`FIO_IO_U_PLAT_NR`): 29 groups of 64, each group twice as wide as the
/// one before, so a value lands in a bin within 1/128 of it.
pub const FIO_PLAT_BINS: usize = 29 * 64;

/// The bin fio's `plat_val_to_idx()` puts a latency of `ns` nanoseconds in.
pub fn fio_plat_index(ns: u64) -> usize {
    const BITS: u32 = 6;
    let msb = if ns == 0 { 0 } else { 63 - ns.leading_zeros() };
    if msb <= BITS {
        return ns as usize;
    }
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) << BITS) as usize;
    let offset = ((ns >> error_bits) & ((1 << BITS) - 1)) as usize;
    (base + offset).min(FIO_PLAT_BINS - 1)
}

/// One window of a completion-latency histogram log: when it closed (ms since the job's
/// start), the direction, the block size of the I/O that closed it, and the window's
/// counts in fio's bins (only those that are not zero, as (bin, count)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistEntry {
    pub at_ms: u64,
    pub dir: crate::Direction,
    pub bs: u32,
    pub bins: Vec<(u16, u64)>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_bins_are_exact_below_128_then_64_per_doubling() {
        assert_eq!(fio_plat_index(0), 0);
        assert_eq!(fio_plat_index(127), 127);
        assert_eq!(fio_plat_index(128), 128);
        assert_eq!(fio_plat_index(129), 128, "two values per bin from 128");
        // 1000 ns: msb 9, 3 error bits, base 4 << 6, offset (1000 >> 3) & 63.
        assert_eq!(fio_plat_index(1000), 256 + 61);
        assert_eq!(fio_plat_index(u64::MAX), FIO_PLAT_BINS - 1);
        // Every bin is reached, in order, as the value grows.
        let mut last = 0;
        for v in 0..4_000_000u64 {
            let i = fio_plat_index(v);
            assert!(i == last || i == last + 1, "{v}: bin {i} after {last}");
            last = i;
        }
        assert_eq!(last, fio_plat_index(4_000_000));
    }
}
