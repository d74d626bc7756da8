//! Step 7: a longer QD1 4 KiB random read run, then a random write run, recording p50, p99,
//! p99.99 and max latency for every second (stored as series), summarised as the spread of
//! the per-second p99 and the outlier seconds — the review's "latency stayed at 10 µs for
//! hours", made checkable.

use std::time::Duration;

use iolab_engine::Direction;
use iolab_job::Pattern;
use iolab_report::format::micros;
use serde_json::json;

use super::{point_spec, Findings, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::plan::spread;
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// A second whose p99 exceeds this many times the median second's p99 is an outlier.
pub const OUTLIER_FACTOR: f64 = 2.0;

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Consistency;

impl super::ReviewStep for Consistency {
    fn step(&self) -> Step {
        Step::Consistency
    }

    fn points(&self, _cfg: &ReviewConfig, _polled: bool) -> usize {
        2
    }

    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError> {
        run(cfg, ex, findings)
    }
}

pub fn run(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &Findings,
) -> Result<StepOutput, SuiteError> {
    let engine = findings.sweep_engine();
    let mut t = Table::new([
        "workload",
        "seconds",
        "p50 (median s)",
        "p99 median s",
        "p99 min–max",
        "p99 CV",
        "p99.99 worst s",
        "max",
        "outlier seconds",
    ]);
    let mut out = Vec::new();
    for (rw, read, dir) in [
        ("randread", 100, Direction::Read),
        ("randwrite", 0, Direction::Write),
    ] {
        let w = Workload {
            engine: engine.clone(),
            pattern: Pattern::Random,
            read_percent: read,
            bs: 4096,
            iodepth: 1,
        };
        let mut spec = point_spec(cfg, Step::Consistency, format!("consistency-{rw}"), w);
        spec.latency_window = Some(Duration::from_secs(1));
        let label = format!("4k {rw} QD1 per second");
        match ex.run_point(Step::Consistency, &label, spec, None)? {
            Point::Done(r) => {
                let windows = r.dir(dir).map(|d| d.windows.clone()).unwrap_or_default();
                out.push(summarize(&mut t, rw, &windows, &ex.clock));
            }
            Point::Unavailable(why) => {
                t.row([format!("4k {rw} QD1"), format!("n/a: {why}")]);
                out.push(json!({"rw": rw, "unavailable": why}));
            }
        }
    }
    let text = format!(
        "{} s per workload, {}, one latency summary per second (series lat_p50_ns … lat_max_ns \
         in the store); outlier = a second whose p99 is over {OUTLIER_FACTOR}× the median \
         second's.\n\n{}",
        cfg.timing(Step::Consistency).runtime.as_secs_f64(),
        engine.label(),
        t.render()
    );
    Ok(StepOutput::ok(
        json!({"engine": engine.label(), "workloads": out}),
        text,
    ))
}

/// One workload's seconds as a table row and the step's figures.
fn summarize(
    t: &mut Table,
    rw: &str,
    w: &[iolab_results::LatencyWindow],
    clock: &iolab_stats::Clock,
) -> serde_json::Value {
    let ns = |t: u64| clock.ticks_to_ns(t);
    let p99: Vec<f64> = w.iter().map(|x| ns(x.p99)).collect();
    let p50: Vec<f64> = w.iter().map(|x| ns(x.p50)).collect();
    let worst9999 = w.iter().map(|x| ns(x.p9999)).fold(0.0, f64::max);
    let max = w.iter().map(|x| ns(x.max)).fold(0.0, f64::max);
    let (Some(s), Some(m)) = (spread(&p99, OUTLIER_FACTOR), spread(&p50, OUTLIER_FACTOR)) else {
        t.row([format!("4k {rw} QD1"), "0".to_string()]);
        return json!({"rw": rw, "seconds": 0});
    };
    let outliers = match s.outliers.is_empty() {
        true => "none".to_string(),
        false => {
            let first: Vec<String> = s
                .outliers
                .iter()
                .take(10)
                .map(|i| (i + 1).to_string())
                .collect();
            // Which seconds, all of them counted: the first ten named, the rest in the JSON.
            match s.outliers.len() {
                n if n > 10 => format!("{} (+{} more: {n} in all)", first.join(", "), n - 10),
                _ => first.join(", "),
            }
        }
    };
    t.row([
        format!("4k {rw} QD1"),
        w.len().to_string(),
        micros(m.median),
        micros(s.median),
        format!("{} – {}", micros(s.min), micros(s.max)),
        format!("{:.1}%", s.cv_pct),
        micros(worst9999),
        micros(max),
        outliers,
    ]);
    json!({
        "rw": rw,
        "seconds": w.len(),
        "p50_median_ns": m.median,
        "p99_median_ns": s.median,
        "p99_min_ns": s.min,
        "p99_max_ns": s.max,
        "p99_cv_pct": s.cv_pct,
        "p99_99_worst_ns": worst9999,
        "max_ns": max,
        "outlier_seconds": s.outliers.iter().map(|i| i + 1).collect::<Vec<_>>(),
    })
}
