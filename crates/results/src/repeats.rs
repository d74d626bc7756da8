//! Repeated runs (`--repeat N`): each repeat's figures kept, the repeats pooled into one job
//! whose histograms hold every I/O (so its percentiles are exact over all repeats), and the
//! spread between repeats as a mean with a 95 % confidence interval.
//!
//! A single run's figure says nothing about how far the next run's will be; the repeats'
//! interval does, which is what `compare`'s verdict stands on (hyperfine's mean ± σ, with a
//! Student-t interval because a handful of repeats is the usual case).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::{JobRecord, JobReport, Metrics, RunOutcome};

/// One repeat of one job: when it started and what it measured, with the figure names the
/// pooled job's figures have (`iops`, `bw_bytes`, `lat_mean_ns`, `clat_p99_ns`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RepeatFigures {
    /// 1 for the first repeat.
    pub repeat: u32,
    /// Unix time in ms when the job's phase of this repeat began.
    pub started_unix_ms: u64,
    pub runtime_ns: u64,
    pub metrics: Metrics,
}

/// A figure over repeats: mean, a 95 % confidence interval for the mean, the sample standard
/// deviation and the extremes.
///
/// The interval is Student's t with n − 1 degrees of freedom on the log scale (the delta
/// method: log(mean) has standard error sem / mean), taken back: `mean ÷ f` to `mean × f`
/// with `f = exp(t · sem / mean)`. IOPS, bandwidth and latencies are positive, and a
/// symmetric interval of three noisy repeats reached below zero (`27.1k ± 61.1k`); this one
/// never does, and is as wide above as a halving is below. A figure that is not positive
/// keeps the symmetric interval.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Interval {
    pub n: usize,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub mean: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub stddev: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub ci95_low: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub ci95_high: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub min: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub max: f64,
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom: the half-width of a
/// two-sided 95 % interval in standard errors (12.71 for df 1, 2.78 for 4, → 1.96).
pub fn t95(df: f64) -> f64 {
    if df.is_nan() || df < 1.0 || df.is_infinite() {
        return 1.959_963_984_540_054;
    }
    StudentsT::new(0.0, 1.0, df).map_or(1.959_963_984_540_054, |t| t.inverse_cdf(0.975))
}

impl Interval {
    /// The interval of `values` (two or more; one value has no spread to speak of).
    pub fn of(values: &[f64]) -> Option<Interval> {
        let n = values.len();
        if n < 2 || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let stddev = var.sqrt();
        let half = t95((n - 1) as f64) * stddev / (n as f64).sqrt();
        let positive = mean > 0.0 && values.iter().all(|v| *v >= 0.0);
        let (ci95_low, ci95_high) = match positive {
            true => {
                let f = (half / mean).exp();
                (mean / f, mean * f)
            }
            false => (mean - half, mean + half),
        };
        Some(Interval {
            n,
            mean,
            stddev,
            ci95_low,
            ci95_high,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// The interval as "60.4 µs [41.2 µs, 88.7 µs]", each figure shown by `show`.
    pub fn text(&self, show: impl Fn(f64) -> String) -> String {
        format!(
            "{} [{}, {}]",
            show(self.mean),
            show(self.ci95_low),
            show(self.ci95_high)
        )
    }

    /// The standard error of the mean.
    pub fn sem(&self) -> f64 {
        self.stddev / (self.n as f64).sqrt()
    }
}

/// The values of figure `name` in direction `dir` over `repeats`, in repeat order (repeats
/// without it are left out).
pub fn values_of(repeats: &[RepeatFigures], dir: &str, name: &str) -> Vec<f64> {
    repeats
        .iter()
        .filter_map(|r| r.metrics.get(dir, name))
        .collect()
}

/// Whether a figure is worth an interval: rates and latencies, not counts, extremes or
/// spreads (a max over 5 repeats is not a mean of anything).
pub fn has_interval(name: &str) -> bool {
    name == "iops"
        || name == "bw_bytes"
        || (name.ends_with("_ns")
            && !name.ends_with("_min_ns")
            && !name.ends_with("_max_ns")
            && !name.ends_with("_stddev_ns"))
}

/// The intervals of every figure the repeats share, by direction and name, in the first
/// repeat's order.
pub fn intervals(repeats: &[RepeatFigures]) -> Vec<(String, String, Interval)> {
    let Some(first) = repeats.first() else {
        return Vec::new();
    };
    first
        .metrics
        .iter()
        .filter(|(_, name, _)| has_interval(name))
        .filter_map(|(dir, name, _)| {
            let v = values_of(repeats, dir, name);
            (v.len() == repeats.len())
                .then(|| Interval::of(&v))
                .flatten()
                .map(|i| (dir.clone(), name.clone(), i))
        })
        .collect()
}

/// A repeat's figures of one job, as the store names them.
fn figures_of(job: &JobReport, clock: &crate::Timebase, repeat: u32) -> RepeatFigures {
    let rec = JobRecord::from_report(job, clock, "", Vec::new());
    let mut metrics = Metrics::default();
    for (dir, name, v) in rec.metrics.iter() {
        if has_interval(name) {
            metrics.push(dir, name, *v);
        }
    }
    RepeatFigures {
        repeat,
        started_unix_ms: job.started_unix_ms,
        runtime_ns: job.runtime_ns,
        metrics,
    }
}

/// Repeats of one job (in order) pooled into one report, every repeat's figures kept in
/// its `repeats`; `None` for none.
pub fn pool_jobs(reports: Vec<JobReport>, clock: &crate::Timebase) -> Option<JobReport> {
    let mut it = reports.into_iter();
    let mut pooled = it.next()?;
    pooled.repeats = vec![figures_of(&pooled, clock, 1)];
    for (k, next) in it.enumerate() {
        pooled.repeats.push(figures_of(&next, clock, k as u32 + 2));
        pooled.append(&next);
    }
    Some(pooled)
}

/// The repeats of one run pooled into one outcome: each job's repeats pooled by
/// [`pool_jobs`] (jobs matched by their place; a repeat cut short, interrupted or failed,
/// adds the jobs it has), the disks' counters summed. The passes share one clock (`iolab run`
/// calibrates it once), so their histograms' ticks add up.
pub fn pool(mut outcomes: Vec<RunOutcome>) -> Option<RunOutcome> {
    if outcomes.is_empty() {
        return None;
    }
    let rest = outcomes.split_off(1);
    let mut pooled = outcomes.pop()?;
    let clock = pooled.clock;
    let firsts = std::mem::take(&mut pooled.jobs);
    for (place, first) in firsts.into_iter().enumerate() {
        let index = first.job_index;
        let later = rest
            .iter()
            .filter_map(|o| o.jobs.get(place).filter(|j| j.job_index == index).cloned());
        let reports: Vec<JobReport> = std::iter::once(first).chain(later).collect();
        pooled.jobs.extend(pool_jobs(reports, &clock));
    }
    for o in rest {
        pooled.interrupted |= o.interrupted;
        let offset_ms = o
            .started
            .duration_since(pooled.started)
            .map_or(0, |d| d.as_millis() as u64);
        for h in &o.health {
            match pooled.health.iter_mut().find(|p| p.drive == h.drive) {
                Some(p) => p.append(h, offset_ms),
                None => pooled.health.push(h.clone()),
            }
        }
        for d in o.disks {
            match pooled.disks.iter_mut().find(|p| p.name == d.name) {
                Some(p) => {
                    p.counters.add(&d.counters);
                    p.elapsed_ms += d.elapsed_ms;
                }
                None => pooled.disks.push(d),
            }
        }
    }
    Some(pooled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_are_students() {
        assert!((t95(1.0) - 12.706).abs() < 1e-3);
        assert!((t95(4.0) - 2.776).abs() < 1e-3);
        assert!((t95(1e6) - 1.960).abs() < 1e-3);
    }

    #[test]
    fn interval_of_five_values() {
        let i = Interval::of(&[10.0, 12.0, 11.0, 9.0, 13.0]).unwrap();
        assert_eq!(i.mean, 11.0);
        // s = sqrt(10/4) = 1.5811; t·sem = 2.776 * 1.5811 / sqrt(5) = 1.963; on the log
        // scale f = exp(1.963 / 11) = 1.1953: 11 / f to 11 × f.
        assert!((i.stddev - 1.5811).abs() < 1e-4);
        assert!((i.ci95_high - 13.149).abs() < 1e-3, "{i:?}");
        assert!((i.ci95_low - 9.202).abs() < 1e-3);
        assert!((i.ci95_high / i.mean - i.mean / i.ci95_low).abs() < 1e-9);
        assert_eq!((i.min, i.max), (9.0, 13.0));
        assert!(Interval::of(&[1.0]).is_none());
    }

    #[test]
    fn a_positive_figures_interval_never_reaches_below_zero() {
        // Three noisy repeats: the symmetric interval read 27.1k ± 61.1k.
        let i = Interval::of(&[5_000.0, 10_000.0, 66_300.0]).unwrap();
        assert!(
            i.ci95_low > 0.0 && i.ci95_low < i.mean && i.mean < i.ci95_high,
            "{i:?}"
        );
        // A figure that is not positive keeps the symmetric interval.
        let i = Interval::of(&[-1.0, 1.0, 0.5]).unwrap();
        assert!((i.ci95_high - i.mean - (i.mean - i.ci95_low)).abs() < 1e-12);
    }

    #[test]
    fn only_rates_and_latencies_get_intervals() {
        assert!(has_interval("iops"));
        assert!(has_interval("clat_p99_ns"));
        assert!(has_interval("lat_mean_ns"));
        assert!(!has_interval("lat_max_ns"));
        assert!(!has_interval("ios"));
    }
}
