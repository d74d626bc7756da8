//! fio's steady-state detection (`ss`, `ss_dur`, `ss_ramp`, fio 3.42's `ss_interval`): a job,
//! or a reporting group, ends once its IOPS, bandwidth or mean completion latency, sampled
//! once an interval (a second by default), has stayed flat for `ss_dur` seconds.
//! Reviewers precondition a drive until it reaches steady state (SNIA's PTS); this is how a
//! job says when it has.

use std::time::Duration;

/// What is watched: I/Os per second, bytes per second, or (fio 3.42) the mean completion
/// latency of the interval's I/Os in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SteadyMetric {
    #[default]
    Iops,
    Bw,
    Lat,
}

/// fio's steady-state criterion and window. `duration_s` zero means none (fio's default:
/// `ss` alone does nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyState {
    pub metric: SteadyMetric,
    /// Judge by the least-squares slope of the window (`*_slope`), else by the largest
    /// deviation from its mean.
    pub slope: bool,
    /// The criterion must fall below this (IOPS, bytes/s, ns, or a percentage of the mean).
    pub limit: f64,
    /// `limit` is a percentage of the window's mean.
    pub percent: bool,
    /// Seconds of samples the criterion looks at (`ss_dur`, whole seconds as fio keeps it).
    pub duration_s: u32,
    /// Time from the job's start before samples are kept (`ss_ramp`).
    pub ramp: Duration,
    /// Seconds between samples (fio 3.42's `ss_interval`, default 1): the window holds
    /// `duration_s / interval_s` of them.
    pub interval_s: u32,
}

impl Default for SteadyState {
    /// fio's default criterion, `iops_slope:0.01%`, with no window (off).
    fn default() -> Self {
        SteadyState {
            metric: SteadyMetric::Iops,
            slope: true,
            limit: 0.01,
            percent: true,
            duration_s: 0,
            ramp: Duration::ZERO,
            interval_s: 1,
        }
    }
}

impl SteadyState {
    pub fn on(&self) -> bool {
        self.duration_s > 0
    }

    /// Samples in a full window: `ss_dur / ss_interval`, as fio counts its intervals.
    pub fn samples(&self) -> usize {
        (self.duration_s / self.interval_s.max(1)) as usize
    }

    /// Why the window cannot be kept as given, as fio 3.42 refuses it: an interval under a
    /// second, or a duration that is not a larger multiple of it.
    pub fn unfit(&self) -> Option<String> {
        if !self.on() {
            return None;
        }
        if self.interval_s < 1 {
            return Some("ss_interval must be at least 1s".into());
        }
        if !self.duration_s.is_multiple_of(self.interval_s) || self.duration_s <= self.interval_s {
            return Some(format!(
                "ss_dur {}s must be a multiple of ss_interval {}s, and larger",
                self.duration_s, self.interval_s
            ));
        }
        None
    }

    /// The criterion as fio's JSON writes it: `iops_slope:0.010000%`.
    pub fn describe(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            self.metric_name(),
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.percent { "%" } else { "" }
        )
    }

    pub fn metric_name(&self) -> &'static str {
        match self.metric {
            SteadyMetric::Iops => "iops",
            SteadyMetric::Bw => "bw",
            SteadyMetric::Lat => "lat",
        }
    }

    /// Judges a full window of samples, oldest first: (criterion, slope, largest deviation
    /// from the mean, attained). As fio's `steadystate_slope()` and
    /// `steadystate_deviation()`: the slope is per sample (per interval, not per second); a
    /// percentage is of the window's mean; a slope counts by its magnitude.
    pub fn judge(&self, window: &[u64]) -> Judgement {
        let n = window.len() as f64;
        let sum_y: u64 = window.iter().sum();
        let mean = sum_y as f64 / n;
        let mut j = Judgement::default();
        if self.slope {
            let sum_x = n * (n - 1.0) / 2.0;
            let sum_x_sq = (n - 1.0) * n * (2.0 * n - 1.0) / 6.0;
            let sum_xy: u64 = window.iter().enumerate().map(|(x, y)| x as u64 * y).sum();
            j.slope = (sum_xy as f64 - sum_x * sum_y as f64 / n) / (sum_x_sq - sum_x * sum_x / n);
            j.criterion = if self.percent {
                100.0 * j.slope / mean
            } else {
                j.slope
            };
            j.attained = j.criterion.abs() < self.limit;
        } else {
            j.deviation = window
                .iter()
                .map(|&y| (y as f64 - mean).abs())
                .fold(0.0, f64::max);
            j.criterion = if self.percent {
                100.0 * j.deviation / mean
            } else {
                j.deviation
            };
            j.attained = j.criterion < self.limit;
        }
        j
    }
}

/// What one look at a full window found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Judgement {
    pub criterion: f64,
    pub slope: f64,
    pub deviation: f64,
    pub attained: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(slope: bool, limit: f64, percent: bool) -> SteadyState {
        SteadyState {
            slope,
            limit,
            percent,
            duration_s: 4,
            ..SteadyState::default()
        }
    }

    #[test]
    fn slope_is_least_squares_over_seconds() {
        // y = 100 + 10x: slope 10 per second, 10/115 of the mean.
        let j = ss(true, 1.0, false).judge(&[100, 110, 120, 130]);
        assert!((j.slope - 10.0).abs() < 1e-9);
        assert!(!j.attained);
        let j = ss(true, 9.0, true).judge(&[100, 110, 120, 130]);
        assert!((j.criterion - 100.0 * 10.0 / 115.0).abs() < 1e-9);
        assert!(j.attained);
        // A falling slope counts by its size.
        let j = ss(true, 9.0, true).judge(&[130, 120, 110, 100]);
        assert!(j.criterion < 0.0 && j.attained);
    }

    #[test]
    fn deviation_is_the_largest_distance_from_the_mean() {
        let j = ss(false, 10.0, true).judge(&[100, 100, 100, 120]);
        assert!((j.deviation - 15.0).abs() < 1e-9);
        assert!((j.criterion - 15.0 / 105.0 * 100.0).abs() < 1e-9);
        assert!(!j.attained);
        assert!(ss(false, 16.0, false).judge(&[100, 100, 100, 120]).attained);
    }

    #[test]
    fn described_as_fio_writes_it() {
        assert_eq!(SteadyState::default().describe(), "iops_slope:0.010000%");
        let bw = SteadyState {
            metric: SteadyMetric::Bw,
            slope: false,
            limit: 1048576.0,
            percent: false,
            ..SteadyState::default()
        };
        assert_eq!(bw.describe(), "bw:1048576.000000");
    }
}
