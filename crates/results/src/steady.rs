//! What a job's steady-state check found (fio's `steadystate` block): the criterion, whether it
//! held, and the window of samples it judged (one an `ss_interval`, a second by default).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyResult {
    /// The criterion as given, in fio's spelling: `iops:10.000000%`.
    pub criterion_spec: String,
    /// `iops`, `bw` or `lat`.
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
    /// The mean completion latency per sample in ns, for a `lat` criterion (fio 3.42's
    /// `lat_ns`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lat_ns: Vec<u64>,
    /// Seconds between samples (fio 3.42's `ss_interval`).
    #[serde(default = "one_second")]
    pub interval_s: u32,
}

fn one_second() -> u32 {
    1
}

impl SteadyResult {
    /// Mean IOPS over the window (fio divides by the window's length, padding included).
    pub fn iops_mean(&self) -> u64 {
        mean(&self.iops, self.samples())
    }

    pub fn bw_mean(&self) -> u64 {
        mean(&self.bw_bytes_per_sec, self.samples())
    }

    /// Mean of the samples' mean completion latencies, in ns (fio 3.42's `lat_mean`).
    pub fn lat_mean(&self) -> u64 {
        mean(&self.lat_ns, self.samples())
    }

    /// Samples in a full window (`ss_dur / ss_interval`).
    pub fn samples(&self) -> u32 {
        self.duration_s / self.interval_s.max(1)
    }
}

fn mean(v: &[u64], n: u32) -> u64 {
    v.iter().sum::<u64>().checked_div(n as u64).unwrap_or(0)
}
