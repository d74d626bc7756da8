//! Step 5: latency under load, open loop. For random read, random write and the 70/30 mix,
//! the peak (the sweep's, or a short closed-loop run at the deepest queue), then open-loop points at
//! shares of it (10 %, 20 %, … 110 %): each I/O goes at its due time whether or not earlier
//! ones completed, so response time (due → completion) shows what a closed loop hides. Per
//! workload: the knee (the first load whose response p99 passes k times the lightest
//! load's) and, given an objective (`--slo p99:100us`), the highest load meeting it, refined
//! by bisection between the points.

use iolab_job::Pattern;
use iolab_report::format::{compact, micros};
use iolab_results::review::{
    LoadCurve, LoadMark, LoadObjective, LoadPoint as StoredPoint, LoadStep,
};
use iolab_results::{carried_cell, Behind, DirResult, TickRate};
use iolab_runner::JobReport;
use iolab_stats::Clock;

use super::{point_spec, Findings, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::load_plan::{best_meeting, bisect, knee, Slo};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// Extra points the bisection may add per workload, and how close it gets (share of peak).
const REFINE_POINTS: usize = 3;
const RESOLUTION: f64 = 0.02;

/// A point whose generator fell behind (a late schedule with the load done, or its thread
/// waiting for a CPU) is taken again this many times before it is kept, marked.
const RETAKES: usize = 2;

/// The workloads curved: random read, random write, and the reviews' 70/30 mix.
const WORKLOADS: [(&str, u32); 3] = [("randread", 100), ("randwrite", 0), ("randrw", 70)];

/// Percentiles kept per point: the table's, beside the objective's.
const PCTS: [f64; 3] = [99.0, 99.9, 99.99];

pub struct Load;

impl super::ReviewStep for Load {
    fn step(&self) -> Step {
        Step::Load
    }

    fn points(&self, cfg: &ReviewConfig, _polled: bool) -> usize {
        let refine = if cfg.slo.is_some() { REFINE_POINTS } else { 0 };
        WORKLOADS.len() * (1 + cfg.loads.len() + refine)
    }

    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError> {
        let mut curves = Vec::new();
        let mut text = format!(
            "Engine {}, one thread, 4 KiB random, open loop (rate_open_loop) with up to {} \
             in flight; response time runs from each I/O's due time, lat (fio's) from its \
             issue. Knee: the first load whose response p99 passes {}x the lightest load's.\n\n",
            findings.sweep_engine().label(),
            cfg.max_qd,
            cfg.knee_factor
        );
        for (rw, read) in WORKLOADS {
            let c = curve(cfg, ex, findings, rw, read)?;
            text.push_str(&c.render(cfg));
            curves.push(c.stored(cfg));
        }
        let data = LoadStep {
            engine: findings.sweep_engine().label(),
            iodepth: cfg.max_qd,
            knee_factor: cfg.knee_factor,
            slo: cfg.slo.map(|s| LoadObjective {
                label: s.label(),
                percentile: s.percentile,
                max_ns: s.max_ns,
            }),
            curves,
        };
        Ok(StepOutput::ok(
            serde_json::to_value(data).unwrap_or_default(),
            text,
        ))
    }
}

/// The columns of a load point's figures, after whatever names the point (its load).
pub const COLUMNS: [&str; 10] = [
    "offered IOPS",
    "achieved IOPS",
    "lat mean",
    "lat p99",
    "resp mean",
    "resp p99",
    "resp p99.9",
    "resp p99.99",
    "late p99",
    "carried",
];

/// One open-loop point's figures: the review's (a workload's directions together) and
/// `iolab run --load-curve`'s (per direction) alike.
#[derive(Debug, Clone, Copy)]
pub struct LoadPoint {
    share: f64,
    offered: f64,
    achieved: f64,
    lat_mean_ns: f64,
    lat_ns: [f64; 3],
    resp_mean_ns: f64,
    resp_ns: [f64; 3],
    /// Response time at the objective's percentile.
    resp_slo_ns: f64,
    late_p99_ns: f64,
    late_for_slot: u64,
    /// `None`: carried; else who fell behind ([`iolab_results::OpenLoop::judge`]).
    behind: Option<Behind>,
    /// How long the generator waited for a CPU in the point, if the kernel says.
    cpu_wait_ns: Option<u64>,
}

impl LoadPoint {
    fn of(share: f64, r: &JobReport, clock: &Clock, slo: Option<Slo>) -> Option<LoadPoint> {
        // Every direction together (a mixed job's reads and writes share one schedule).
        let achieved = r.total_ios() as f64 * 1e9 / r.runtime_ns.max(1) as f64;
        LoadPoint::of_dir(share, &r.mixed(), achieved, clock, slo)
    }

    /// The point of one direction's result (`None` without an open loop), which completed
    /// `achieved` I/Os per second.
    pub fn of_dir(
        share: f64,
        dir: &DirResult,
        achieved: f64,
        clock: &impl TickRate,
        slo: Option<Slo>,
    ) -> Option<LoadPoint> {
        let ol = dir.open_loop.as_ref()?;
        let slo_p = slo.map_or(99.0, |s| s.percentile);
        let lat = dir.lat.summarize(clock, &PCTS);
        let mut pcts = PCTS.to_vec();
        pcts.push(slo_p);
        let resp = ol.response.summarize(clock, &pcts);
        let late = ol.lateness.summarize(clock, &[99.0]);
        let at = |s: &iolab_results::LatencySummary, p: f64| s.percentile(p).unwrap_or(0.0);
        Some(LoadPoint {
            share,
            offered: ol.offered_iops,
            achieved,
            lat_mean_ns: lat.mean_ns,
            lat_ns: PCTS.map(|p| at(&lat, p)),
            resp_mean_ns: resp.mean_ns,
            resp_ns: PCTS.map(|p| at(&resp, p)),
            resp_slo_ns: at(&resp, slo_p),
            late_p99_ns: at(&late, 99.0),
            late_for_slot: ol.late_for_slot,
            behind: ol.judge(achieved, clock).behind,
            cpu_wait_ns: ol.cpu_wait_ns,
        })
    }

    /// The point's figures, in [`COLUMNS`]' order.
    pub fn cells(&self) -> Vec<String> {
        vec![
            compact(self.offered),
            compact(self.achieved),
            micros(self.lat_mean_ns),
            micros(self.lat_ns[0]),
            micros(self.resp_mean_ns),
            micros(self.resp_ns[0]),
            micros(self.resp_ns[1]),
            micros(self.resp_ns[2]),
            micros(self.late_p99_ns),
            carried_cell(self.behind),
        ]
    }

    /// Whether the point meets the objective: carried, and its response time within it.
    fn meets(&self, slo: Slo) -> bool {
        self.behind.is_none() && self.resp_slo_ns <= slo.max_ns
    }

    /// Whether the point measured the generator's machine rather than the device: kept in
    /// the table, kept out of the knee and the objective.
    pub fn generator_behind(&self) -> bool {
        self.behind == Some(Behind::Generator)
    }

    fn stored(self) -> StoredPoint {
        StoredPoint {
            share: self.share,
            offered_iops: self.offered,
            achieved_iops: self.achieved,
            lat_mean_ns: Some(self.lat_mean_ns),
            lat_p99_ns: Some(self.lat_ns[0]),
            lat_p999_ns: Some(self.lat_ns[1]),
            lat_p9999_ns: Some(self.lat_ns[2]),
            response_mean_ns: Some(self.resp_mean_ns),
            response_p99_ns: Some(self.resp_ns[0]),
            response_p999_ns: Some(self.resp_ns[1]),
            response_p9999_ns: Some(self.resp_ns[2]),
            response_slo_ns: Some(self.resp_slo_ns),
            lateness_p99_ns: Some(self.late_p99_ns),
            late_for_slot: Some(self.late_for_slot),
            carried: self.behind.is_none(),
            behind: self.behind.map(|b| b.label().to_string()),
            generator_cpu_wait_ns: self.cpu_wait_ns,
        }
    }
}

/// One workload's curve: its peak and points (load order), or why there is none.
struct Curve {
    rw: &'static str,
    peak: Option<(f64, &'static str)>,
    points: Vec<LoadPoint>,
    unavailable: Option<String>,
}

impl Curve {
    /// The points that measured the device: those where the generator fell behind are
    /// left out of the knee and the objective.
    fn measured(&self) -> Vec<&LoadPoint> {
        self.points
            .iter()
            .filter(|p| !p.generator_behind())
            .collect()
    }

    fn knee(&self, cfg: &ReviewConfig) -> Option<&LoadPoint> {
        let points = self.measured();
        let p99: Vec<f64> = points.iter().map(|p| p.resp_ns[0]).collect();
        knee(&p99, cfg.knee_factor).map(|i| points[i])
    }

    /// The highest load meeting the objective: its point.
    fn slo_point(&self, slo: Slo) -> Option<&LoadPoint> {
        let met: Vec<(f64, bool)> = self
            .measured()
            .iter()
            .map(|p| (p.share, p.meets(slo)))
            .collect();
        let best = best_meeting(&met)?;
        self.points.iter().find(|p| p.share == best)
    }

    /// Said before the curve when even its lightest load was the generator's: the machine
    /// is too busy for this curve to say anything about the device.
    fn busy_line(&self) -> String {
        match self.points.first() {
            Some(p) if p.generator_behind() => format!(
                "The generator could not hold even the lightest load ({:.0}%) on time (its \
                 thread waited {} for a CPU): the machine is too busy for this curve to say \
                 anything of the device. Stop what else runs, or pin iolab (taskset), and \
                 measure again.\n\n",
                p.share * 100.0,
                p.cpu_wait_ns.map_or("-".to_string(), |w| micros(w as f64))
            ),
            _ => String::new(),
        }
    }

    /// What a reader of the curve must know beside it, in the terminal and on the page
    /// alike: the points that measured the machine, and the knee, or why there is none to
    /// name ("undetermined" when most points were left out: no knee among the few left is
    /// no evidence of none).
    fn caveats(&self, cfg: &ReviewConfig) -> Vec<String> {
        let mut out = Vec::new();
        let measured = self.measured().len();
        let behind = self.points.len() - measured;
        if behind > 0 {
            out.push(format!(
                "{behind} point(s) marked \"no: generator\": the schedule fell behind while \
                 the device kept up (a late tail, or iolab's thread waiting for a CPU), so \
                 they measured the machine, not the device; taken {RETAKES} more times each \
                 and kept out of the curve, the knee and the objective"
            ));
        }
        match self.knee(cfg) {
            Some(k) => out.push(format!(
                "knee at {:.0}% ({} IOPS): response p99 {}",
                k.share * 100.0,
                compact(k.achieved),
                micros(k.resp_ns[0])
            )),
            None if behind >= measured => out.push(format!(
                "knee undetermined: {behind} of {} points measured the machine, not the \
                 device, and no knee among the {measured} left says nothing of the rest",
                self.points.len()
            )),
            None => out.push("no knee up to the highest load measured".into()),
        }
        out
    }

    fn render(&self, cfg: &ReviewConfig) -> String {
        let Some((peak, from)) = self.peak else {
            let why = self.unavailable.as_deref().unwrap_or("no peak");
            return format!("4k {}: n/a ({why})\n\n", self.rw);
        };
        let mut t = Table::new(std::iter::once("load").chain(COLUMNS));
        for p in &self.points {
            let mut row = vec![format!("{:.0}%", p.share * 100.0)];
            row.extend(p.cells());
            t.row(row);
        }
        let mut s = format!("4k {}: peak {} IOPS ({from})\n\n", self.rw, compact(peak));
        s.push_str(&self.busy_line());
        s.push_str(&t.render());
        s.push('\n');
        for line in self.caveats(cfg) {
            s.push_str(&format!("- {line}\n"));
        }
        if let Some(slo) = cfg.slo {
            match self.slo_point(slo) {
                Some(p) => s.push_str(&format!(
                    "- {}: {} IOPS ({:.0}% of the peak), response p{} {}\n",
                    slo.label(),
                    compact(p.achieved),
                    p.share * 100.0,
                    slo.percentile,
                    micros(p.resp_slo_ns)
                )),
                None => s.push_str(&format!("- {}: not met at any load\n", slo.label())),
            }
        }
        s.push('\n');
        s
    }

    fn stored(&self, cfg: &ReviewConfig) -> LoadCurve {
        LoadCurve {
            rw: self.rw.to_string(),
            peak_iops: self.peak.map(|p| p.0),
            peak_from: self.peak.map(|p| p.1.to_string()),
            unavailable: self.unavailable.clone(),
            points: self.points.iter().map(|p| p.stored()).collect(),
            busy: self.busy_line().trim().to_string(),
            caveats: self.caveats(cfg),
            knee: self.knee(cfg).map(|p| LoadMark {
                share: p.share,
                offered_iops: Some(p.offered),
                achieved_iops: Some(p.achieved),
                response_p99_ns: Some(p.resp_ns[0]),
                response_ns: None,
            }),
            slo: cfg.slo.and_then(|s| self.slo_point(s)).map(|p| LoadMark {
                share: p.share,
                offered_iops: Some(p.offered),
                achieved_iops: Some(p.achieved),
                response_p99_ns: None,
                response_ns: Some(p.resp_slo_ns),
            }),
        }
    }
}

/// The peak, the points at each load, and the objective's bisection, for one workload.
fn curve(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &Findings,
    rw: &'static str,
    read: u32,
) -> Result<Curve, SuiteError> {
    let mut c = Curve {
        rw,
        peak: None,
        points: Vec::new(),
        unavailable: None,
    };
    match peak(cfg, ex, findings, rw, read)? {
        Ok(p) => c.peak = Some(p),
        Err(why) => {
            c.unavailable = Some(why);
            return Ok(c);
        }
    }
    let peak = c.peak.map_or(0.0, |p| p.0);
    for &share in &cfg.loads {
        if let Some(p) = open_point(cfg, ex, findings, rw, read, peak, share)? {
            c.points.push(p);
        }
    }
    if let Some(slo) = cfg.slo {
        for _ in 0..REFINE_POINTS {
            let met: Vec<(f64, bool)> = c.points.iter().map(|p| (p.share, p.meets(slo))).collect();
            let Some(share) = bisect(&met, RESOLUTION) else {
                break;
            };
            if let Some(p) = open_point(cfg, ex, findings, rw, read, peak, share)? {
                c.points.push(p);
                c.points.sort_by(|a, b| a.share.total_cmp(&b.share));
            }
        }
    }
    Ok(c)
}

/// The workload's peak IOPS: the sweep's, else a closed-loop point at the deepest queue.
fn peak(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &Findings,
    rw: &str,
    read: u32,
) -> Result<Result<(f64, &'static str), String>, SuiteError> {
    if let Some(&(_, iops)) = findings.peaks.iter().find(|(w, _)| w == rw) {
        return Ok(Ok((iops, "the sweep's")));
    }
    let w = workload(findings, read, cfg.max_qd);
    let spec = point_spec(cfg, Step::Load, format!("load-{rw}-peak"), w);
    let label = format!("4k {rw} QD{} peak, closed loop", cfg.max_qd);
    Ok(match ex.run_point(Step::Load, &label, spec, None)? {
        Point::Done(r) => {
            let iops = r.total_ios() as f64 * 1e9 / r.runtime_ns.max(1) as f64;
            match iops > 0.0 {
                true => Ok((iops, "closed loop at the deepest queue")),
                false => Err("the peak run did no I/O".to_string()),
            }
        }
        Point::Unavailable(why) => Err(why),
    })
}

fn workload(findings: &Findings, read: u32, iodepth: u32) -> Workload {
    Workload {
        engine: findings.sweep_engine(),
        pattern: Pattern::Random,
        read_percent: read,
        bs: 4096,
        iodepth,
    }
}

/// One open-loop point at `share` of `peak`.
fn open_point(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    findings: &Findings,
    rw: &str,
    read: u32,
    peak: f64,
    share: f64,
) -> Result<Option<LoadPoint>, SuiteError> {
    let w = workload(findings, read, cfg.max_qd);
    let pct = share * 100.0;
    let mut spec = point_spec(cfg, Step::Load, format!("load-{rw}-{pct:.1}pct"), w);
    let iops = (peak * share).round().max(1.0) as u32;
    // A mix splits the load as its I/Os split (fio's rate is per direction).
    let reads = (iops as f64 * read as f64 / 100.0).round() as u32;
    for (d, n) in [(0, reads), (1, iops - reads)] {
        if n > 0 {
            spec.rate.iops[d] = Some(n);
        }
    }
    spec.rate.open_loop = true;
    let label = format!("4k {rw} open loop at {pct:.0}% ({})", compact(iops as f64));
    let mut taken = None;
    for k in 0..=RETAKES {
        // Each take is saved as measured; a retake says so in its job's name.
        let (mut name, mut take) = (label.clone(), spec.clone());
        if k > 0 {
            take.name = format!("{}-taken-again-{k}", spec.name);
            name = format!("{label}, taken again ({k}): the generator fell behind");
        }
        let p = match ex.run_point(Step::Load, &name, take, None)? {
            Point::Done(r) => LoadPoint::of(share, &r, &ex.clock, cfg.slo),
            Point::Unavailable(_) => None,
        };
        let again = p.is_some_and(|p| p.generator_behind());
        taken = p;
        if !again {
            break;
        }
    }
    Ok(taken)
}
