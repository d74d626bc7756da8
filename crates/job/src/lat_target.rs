//! fio's latency target (`latency_target`, `latency_window`, `latency_percentile`,
//! `latency_run`): the job searches for the deepest queue whose I/Os still meet a latency
//! target, then measures at that depth: "how many IOPS can this drive give within 500 µs?".

use std::time::Duration;

/// `target` zero means no target (fio's default).
#[derive(Debug, Clone, PartialEq)]
pub struct LatTarget {
    /// The latency (submit to completion) an I/O must stay within.
    pub target: Duration,
    /// How long each queue depth is tried before it is judged.
    pub window: Duration,
    /// The share of a window's I/Os (0-100) that must meet the target; 100 reacts to
    /// every late I/O at once.
    pub percentile: f64,
    /// Keep adjusting for the whole run instead of settling on a depth (`latency_run`).
    pub keep_adjusting: bool,
}

impl Default for LatTarget {
    fn default() -> Self {
        LatTarget {
            target: Duration::ZERO,
            window: Duration::ZERO,
            percentile: 100.0,
            keep_adjusting: false,
        }
    }
}

impl LatTarget {
    pub fn on(&self) -> bool {
        !self.target.is_zero()
    }
}
