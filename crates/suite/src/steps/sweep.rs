//! Step 4: random read and random write at queue depth 1, 2, 3 … 16, then 24 … 128, one
//! thread on the best async engine, and the saturation point: the smallest depth whose IOPS
//! is within the tolerance of the peak (the SPDK blog's saturation table).

use iolab_job::Pattern;
use iolab_report::format::{compact, micros};
use iolab_results::review::{self, Saturation, SweepStep};

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::plan::{qd_points, saturation_fit, SaturationFit};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// (queue depth, figures when measured, reason when not)
type SweepPoint = (u32, Option<Nums>, Option<String>);

/// The step as the review (and, for QD1, the main job) runs it.
pub struct QdSweep;

impl super::ReviewStep for QdSweep {
    fn step(&self) -> Step {
        Step::QdSweep
    }

    fn points(&self, cfg: &ReviewConfig, _polled: bool) -> usize {
        2 * crate::plan::qd_points(cfg.max_qd).len()
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
    findings: &mut Findings,
) -> Result<StepOutput, SuiteError> {
    let engine = findings.sweep_engine();
    let qds = qd_points(cfg.max_qd);
    let mut curves: Vec<(&str, Vec<SweepPoint>)> = Vec::new();
    for (rw, read) in [("randread", 100), ("randwrite", 0)] {
        curves.push((rw, measure_curve(cfg, ex, &engine, rw, read, &qds)?));
    }
    let t = points_table(&qds, &curves);
    let disagreements: Vec<String> = same_point(findings, &engine.label(), &curves)
        .into_iter()
        .collect();
    let (sat_table, sats, reasons) = saturation(cfg, &curves);
    for (rw, s) in &sats {
        if let Some(peak) = s.peak_iops {
            findings.peaks.push((rw.clone(), peak));
        }
    }
    let points: Vec<review::SweepPoint> = curves
        .iter()
        .flat_map(|(rw, c)| {
            c.iter().map(move |(qd, n, why)| review::SweepPoint {
                rw: rw.to_string(),
                qd: *qd,
                figures: n.map(Nums::figures),
                unavailable: why.clone(),
            })
        })
        .collect();
    let mut text = format!(
        "Engine {}, one thread, 4 KiB random; saturation = smallest QD within {}% of the peak IOPS, read from a rising fit of the points (the range: where it could be, given their scatter around the fit).\n\n{}\n{}",
        engine.label(),
        cfg.tolerance_pct,
        t.render(),
        sat_table.render()
    );
    for r in &reasons {
        match r.contains("saturation undetermined") {
            true => text.push_str(&format!("- {r}\n")),
            false => text.push_str(&format!("- n/a {r}\n")),
        }
    }
    for d in &disagreements {
        text.push_str(&format!("- {d}\n"));
    }
    for (rw, s) in &sats {
        if let Some(peak_qd) = s.peak_qd.filter(|q| Some(q) == qds.last()) {
            text.push_str(&format!(
                "- {rw}: the peak is at the deepest QD measured ({peak_qd}), so the device may \
                 not have saturated; a larger --max-qd would tell\n"
            ));
        }
    }
    Ok(StepOutput::ok(
        serde_json::to_value(SweepStep {
            engine: engine.label(),
            tolerance_pct: cfg.tolerance_pct,
            points,
            saturation: sats,
            caveats: reasons.iter().chain(&disagreements).cloned().collect(),
        })
        .unwrap_or_default(),
        text,
    ))
}

/// One workload at every queue depth of the sweep.
/// The sweep's QD1 read against the QD1 table's cell of the same path: one point measured
/// by two steps. A line when they differ beyond what the table's rounds allow one more
/// measurement to differ by (its 95 % prediction interval: the interval's half-width times
/// √(n + 1)): the device's state or the machine changed between the steps, and a reader
/// should trust neither figure alone.
fn same_point(
    findings: &Findings,
    label: &str,
    curves: &[(&str, Vec<SweepPoint>)],
) -> Option<String> {
    let (_, c) = curves.iter().find(|(rw, _)| *rw == "randread")?;
    let sweep = c.iter().find(|(q, _, _)| *q == 1)?.1?.iops;
    let (_, table, _) = findings.qd1_read.iter().find(|(e, _, _)| e == label)?;
    let (_, half, n) = findings
        .qd1_read_noise
        .iter()
        .find(|(e, _, _)| e == label)?;
    let allowed = half * ((*n + 1) as f64).sqrt();
    ((sweep - table).abs() > allowed).then(|| {
        format!(
            "the sweep's QD1 read ({} IOPS) and the QD1 table's {label} cell ({} ± {} over {n} \
             rounds) disagree beyond the rounds' noise (one more measurement falls within ± {} \
             of it 95 % of the time): the device's state or the machine changed between the \
             steps",
            compact(sweep),
            compact(*table),
            compact(*half),
            compact(allowed)
        )
    })
}

fn measure_curve(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    engine: &iolab_engine::EngineConfig,
    rw: &str,
    read: u32,
    qds: &[u32],
) -> Result<Vec<SweepPoint>, SuiteError> {
    let mut curve = Vec::new();
    for &qd in qds {
        let w = Workload {
            engine: engine.clone(),
            pattern: Pattern::Random,
            read_percent: read,
            bs: 4096,
            iodepth: qd,
        };
        let spec = point_spec(cfg, Step::QdSweep, format!("sweep-{rw}-qd{qd}"), w);
        let label = format!("4k {rw} QD{qd} {}", engine.label());
        match ex.run_point(Step::QdSweep, &label, spec, None)? {
            Point::Done(r) => curve.push((qd, Nums::of(&r, &ex.clock), None)),
            Point::Unavailable(why) => curve.push((qd, None, Some(why))),
        }
    }
    Ok(curve)
}

/// One row per QD: each workload's IOPS, mean and p99.
fn points_table(qds: &[u32], curves: &[(&str, Vec<SweepPoint>)]) -> Table {
    let mut t = Table::new([
        "QD",
        "read IOPS",
        "read mean",
        "read p99",
        "write IOPS",
        "write mean",
        "write p99",
    ]);
    for (i, qd) in qds.iter().enumerate() {
        let mut row = vec![qd.to_string()];
        for (_, c) in curves {
            match &c[i].1 {
                Some(n) => row.extend([compact(n.iops), micros(n.mean_ns), micros(n.p99_ns)]),
                None => row.extend(["n/a".to_string(), "-".into(), "-".into()]),
            }
        }
        t.row(row);
    }
    t
}

/// Each workload's saturation point: the table, the figures by workload, and why points
/// were missing.
fn saturation(
    cfg: &ReviewConfig,
    curves: &[(&str, Vec<SweepPoint>)],
) -> (
    Table,
    std::collections::BTreeMap<String, Saturation>,
    Vec<String>,
) {
    let mut sat_table = Table::new([
        "workload",
        "saturation QD",
        "IOPS there",
        "peak IOPS (QD)",
        "mean latency there",
        "scatter",
    ]);
    let mut sats = std::collections::BTreeMap::new();
    let mut reasons = Vec::new();
    for (rw, c) in curves {
        let pts: Vec<(u32, f64)> = c
            .iter()
            .filter_map(|(q, n, _)| n.map(|n| (*q, n.iops)))
            .collect();
        if let Some(why) = c.iter().find_map(|(_, _, w)| w.clone()) {
            reasons.push(format!("{rw}: {why}"));
        }
        let s = match saturation_fit(&pts, cfg.tolerance_pct) {
            SaturationFit::Found(s) => s,
            SaturationFit::Undetermined(why) => {
                sat_table.row([format!("4k {rw}"), "undetermined".to_string()]);
                reasons.push(format!("{rw}: saturation undetermined: {why}"));
                sats.insert(
                    rw.to_string(),
                    Saturation {
                        undetermined: Some(why.clone()),
                        ..Saturation::default()
                    },
                );
                continue;
            }
        };
        let lat = c
            .iter()
            .find(|(q, _, _)| *q == s.qd)
            .and_then(|(_, n, _)| *n)
            .map_or("-".into(), |n| micros(n.mean_ns));
        let range = match s.qd_range {
            (a, b) if a == b => String::new(),
            (a, b) => format!(" (QD{a}..{b})"),
        };
        sat_table.row([
            format!("4k {rw}"),
            format!("{}{range}", s.qd),
            compact(s.iops),
            format!("{} ({})", compact(s.peak_iops), s.peak_qd),
            lat,
            format!("{:.1}%", s.noise_pct),
        ]);
        sats.insert(
            rw.to_string(),
            Saturation {
                qd: Some(s.qd),
                iops: Some(s.iops),
                peak_qd: Some(s.peak_qd),
                peak_iops: Some(s.peak_iops),
                qd_range: Some([s.qd_range.0, s.qd_range.1]),
                noise_pct: Some(s.noise_pct),
                undetermined: None,
            },
        );
    }
    (sat_table, sats, reasons)
}
