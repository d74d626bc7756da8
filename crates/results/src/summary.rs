//! What a latency histogram says, in nanoseconds: the numbers reports and fio's JSON print.

/// min/max/mean/stddev and percentiles of one latency kind (slat, clat or lat), in ns.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub mean_ns: f64,
    pub stddev_ns: f64,
    /// (percent, value in ns), in the order requested.
    pub percentiles_ns: Vec<(f64, f64)>,
}

impl LatencySummary {
    /// The value at `pct` if it was requested.
    pub fn percentile(&self, pct: f64) -> Option<f64> {
        self.percentiles_ns
            .iter()
            .find(|(p, _)| (p - pct).abs() < 1e-9)
            .map(|&(_, v)| v)
    }
}
