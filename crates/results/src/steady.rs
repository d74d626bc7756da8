//! What a job's steady-state check found (fio's `steadystate` block): the criterion, whether it
//! held, and the window of once-a-second samples it judged.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyResult {
    /// The criterion as given, in fio's spelling: `iops:10.000000%`.
    pub criterion_spec: String,
    /// `iops` or `bw`.
    pub metric: String,
    pub slope: bool,
    pub percent: bool,
    /// Seconds in the window (`ss_dur`).
    pub duration_s: u32,
    pub attained: bool,
    /// The last judged value of the criterion (0 before the window first filled).
    pub criterion: f64,
    pub max_deviation: f64,
    pub slope_value: f64,
    /// The window, oldest first, zero-padded to `duration_s` while it was not yet full.
    pub iops: Vec<u64>,
    pub bw_bytes_per_sec: Vec<u64>,
}

impl SteadyResult {
    /// Mean IOPS over the window (fio divides by the window's length, padding included).
    pub fn iops_mean(&self) -> u64 {
        mean(&self.iops, self.duration_s)
    }

    pub fn bw_mean(&self) -> u64 {
        mean(&self.bw_bytes_per_sec, self.duration_s)
    }
}

fn mean(v: &[u64], n: u32) -> u64 {
    v.iter().sum::<u64>().checked_div(n as u64).unwrap_or(0)
}
