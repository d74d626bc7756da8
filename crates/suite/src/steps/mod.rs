//! The review driver and what the steps share: the job every point starts from, the figures
//! of a finished point, and what one step learns for the next (the best async engine, the
//! target's QD1 latencies).

mod consistency;
mod floor;
mod info;
pub mod load;
mod polling;
pub mod precondition;
mod profiles;
pub mod qd1;
mod sweep;
mod transfer;

use std::path::Path;
use std::time::Duration;

use iolab_engine::{Direction, EngineConfig, EngineKind};
use iolab_job::{JobSpec, Pattern, SizeSpec};
use iolab_runner::JobReport;
use iolab_stats::Clock;
use iolab_store::{now_ms, StepRecord};
use iolab_sysinfo::nvme::passthrough_of;
use serde_json::{json, Value};

use crate::exec::Executor;
use crate::{ReviewConfig, Step, SuiteError};

/// How a step ended, its figures and its printed tables.
#[derive(Debug, Clone)]
pub struct StepOutput {
    /// `ok`, or `skipped` with `reason`.
    pub skipped: Option<String>,
    /// Cut short by a signal, with the tables of the points it finished.
    pub interrupted: bool,
    pub data: Value,
    pub text: String,
}

impl StepOutput {
    fn ok(data: Value, text: String) -> StepOutput {
        StepOutput {
            skipped: None,
            interrupted: false,
            data,
            text,
        }
    }

    fn skipped(reason: impl Into<String>) -> StepOutput {
        let reason = reason.into();
        StepOutput {
            text: format!("Skipped: {reason}\n"),
            skipped: Some(reason),
            interrupted: false,
            data: json!({}),
        }
    }
}

/// What earlier steps found that later ones use.
#[derive(Debug, Default)]
pub struct Findings {
    /// QD1 4 KiB random read on the target, per engine label: (IOPS, mean latency ns).
    pub qd1_read: Vec<(String, f64, f64)>,
    /// The async engine with the most QD1 read IOPS on this target.
    pub best_async: Option<EngineConfig>,
    /// The sweep's peak IOPS per workload (`randread`, `randwrite`), for the load step.
    pub peaks: Vec<(String, f64)>,
    /// The QD1 read cells' noise, per engine label: the half-width of their IOPS's 95 %
    /// interval and how many rounds it stands on (for a later step that measures the same
    /// point to check itself against).
    pub qd1_read_noise: Vec<(String, f64, usize)>,
}

impl Findings {
    /// The engine for the one-thread sweeps: the best async engine found at QD1, else libaio
    /// (which never hands requests to kernel threads).
    pub fn sweep_engine(&self) -> EngineConfig {
        self.best_async
            .clone()
            .unwrap_or_else(|| EngineConfig::new(EngineKind::Libaio))
    }
}

/// The figures of one finished point (its first direction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nums {
    pub iops: f64,
    pub bytes_per_sec: f64,
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p99_ns: f64,
    pub p9999_ns: f64,
    pub p99999_ns: f64,
    /// I/Os measured: how many lie beyond a tail percentile (a mark on one needs tens).
    pub ios: f64,
}

impl Nums {
    pub fn of(r: &JobReport, clock: &Clock) -> Option<Nums> {
        let d = Direction::ALL
            .into_iter()
            .find(|d| r.dir(*d).is_some_and(|x| x.ios > 0))?;
        let s = r.dir(d)?.lat.summarize(clock, &[50.0, 99.0, 99.99, 99.999]);
        let p = |x| s.percentile(x).unwrap_or(0.0);
        Some(Nums {
            iops: r.iops(d),
            bytes_per_sec: r.bw_bytes_per_sec(d),
            mean_ns: s.mean_ns,
            p50_ns: p(50.0),
            p99_ns: p(99.0),
            p9999_ns: p(99.99),
            p99999_ns: p(99.999),
            ios: r.dir(d)?.ios as f64,
        })
    }

    /// The figures as the steps store them.
    pub fn figures(self) -> iolab_results::review::Figures {
        iolab_results::review::Figures {
            iops: Some(self.iops),
            bw_bytes: Some(self.bytes_per_sec),
            mean_ns: Some(self.mean_ns),
            p50_ns: Some(self.p50_ns),
            p99_ns: Some(self.p99_ns),
            p9999_ns: Some(self.p9999_ns),
            p99999_ns: Some(self.p99999_ns),
            ios: Some(self.ios),
            ..Default::default()
        }
    }

    pub fn to_json(self) -> Value {
        serde_json::to_value(self.figures()).unwrap_or_default()
    }
}

/// What a point does: engine, pattern and mix, block size, queue depth.
#[derive(Debug, Clone)]
pub struct Workload {
    pub engine: EngineConfig,
    pub pattern: Pattern,
    pub read_percent: u32,
    pub bs: u32,
    pub iodepth: u32,
}

/// The job every point starts from: direct I/O over the review's region, time-based with
/// the step's timing, independent random draws (no random map, as the reviews' fio jobs),
/// total latency percentiles.
pub fn point_spec(cfg: &ReviewConfig, step: Step, name: String, w: Workload) -> JobSpec {
    let Workload {
        engine,
        pattern,
        read_percent,
        bs,
        iodepth,
    } = w;
    let t = cfg.timing(step);
    // NVMe passthrough reaches the target's namespace through its generic char device.
    // SPDK's path reaches its own namespace, the one `--spdk` names.
    let target = match engine.kind {
        EngineKind::IoUringCmd => passthrough_of(&cfg.target).unwrap_or(cfg.target.clone()),
        EngineKind::Spdk => cfg.spdk.clone().unwrap_or(cfg.target.clone()),
        _ => cfg.target.clone(),
    };
    let mut j = JobSpec::new(name, &target);
    j.direct = engine.kind != EngineKind::Null;
    j.engine = engine.clone();
    j.pattern = pattern;
    j.read_percent = read_percent;
    j.block_size = [bs; 3];
    j.iodepth = iodepth;
    j.size = cfg.size.map(SizeSpec::Bytes);
    j.time_based = true;
    j.runtime = Some(t.runtime);
    j.ramp_time = t.ramp;
    j.random_map = false;
    j.lat_percentiles = true;
    j.lat_split = cfg.lat_split
        && SPLIT_STEPS.contains(&step)
        && !matches!(
            engine.kind,
            EngineKind::Null | EngineKind::IoUringCmd | EngineKind::Spdk
        );
    j
}

/// The steps whose points split each I/O's latency when the review does: where the question
/// is the software path's share (QD1, polling against interrupts) and the device's own tail
/// over time (consistency).
pub const SPLIT_STEPS: [Step; 3] = [Step::Qd1Engines, Step::PollVsIrq, Step::Consistency];

/// One step of a review: a kind of measurement with its own points, figures and tables.
/// The review runs its steps through this; the main job is the QD1 step run on its own.
pub trait ReviewStep: Sync {
    fn step(&self) -> Step;

    /// Points it measures, for the progress line and the ETA.
    fn points(&self, cfg: &ReviewConfig, polled: bool) -> usize;

    /// Points and planned time.
    fn estimate(&self, cfg: &ReviewConfig, _target_bytes: u64, polled: bool) -> (usize, Duration) {
        let n = self.points(cfg, polled) * cfg.repeats_of(self.step()) as usize;
        (n, cfg.timing(self.step()).per_point() * n as u32)
    }

    /// Measures; what earlier steps found is in `findings`, and what this one finds for the
    /// next goes there.
    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError>;
}

/// The implementation of `step`.
pub fn step_impl(step: Step) -> &'static dyn ReviewStep {
    match step {
        Step::Info => &info::Info,
        Step::Precondition => &precondition::Precondition,
        Step::Qd1Engines => &qd1::Qd1Engines,
        Step::QdSweep => &sweep::QdSweep,
        Step::Load => &load::Load,
        Step::TransferSize => &transfer::TransferSize,
        Step::Profiles => &profiles::Profiles,
        Step::Consistency => &consistency::Consistency,
        Step::PollVsIrq => &polling::PollVsIrq,
        Step::SoftwareFloor => &floor::SoftwareFloor,
    }
}

/// Points and planned time of a step, for the ETA.
pub fn estimate(
    cfg: &ReviewConfig,
    step: Step,
    target_bytes: u64,
    polled: bool,
) -> (usize, Duration) {
    step_impl(step).estimate(cfg, target_bytes, polled)
}

/// Every path but the null engine (the software-floor step measures that), of those
/// `target` has: what the QD1 step measures unless told otherwise.
pub fn default_qd1_paths(target: &Path) -> Vec<EngineConfig> {
    paths_on(target, qd1::PATHS.clone())
}

/// `paths` without NVMe passthrough unless `target` has a generic char device to take it.
pub fn paths_on(target: &Path, paths: Vec<EngineConfig>) -> Vec<EngineConfig> {
    let passthrough = passthrough_of(target).is_some();
    paths
        .into_iter()
        .filter(|c| passthrough || c.kind != EngineKind::IoUringCmd)
        .collect()
}

/// How a review ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewOutcome {
    pub interrupted: bool,
    /// Steps that failed, with why (the review goes on past them).
    pub failed: Vec<(Step, String)>,
}

/// How one step ended, as saved.
#[derive(Debug, Clone)]
pub struct StepEnd {
    /// `ok`, `skipped`, `interrupted` or `failed`.
    pub status: &'static str,
    /// Why, when not ok.
    pub reason: String,
    /// Its printed tables.
    pub text: String,
}

const INTERRUPTED: &str = "interrupted by a signal; finished points are kept";

/// Runs one step and saves it (status, reason, figures and tables) under the executor's run,
/// whatever the outcome; only a store or output failure is an error.
pub fn run_step(
    cfg: &ReviewConfig,
    ex: &mut Executor<'_>,
    step: &dyn ReviewStep,
    findings: &mut Findings,
) -> Result<StepEnd, SuiteError> {
    let started_ms = now_ms();
    let (status, reason, data, text) = match step.run(cfg, ex, findings) {
        Ok(o) if o.interrupted => (
            "interrupted",
            INTERRUPTED.to_string(),
            o.data,
            format!(
                "{}\nInterrupted by a signal: only the points above finished.\n",
                o.text
            ),
        ),
        Ok(o) => {
            let status = if o.skipped.is_some() { "skipped" } else { "ok" };
            (status, o.skipped.unwrap_or_default(), o.data, o.text)
        }
        Err(SuiteError::Interrupted) => (
            "interrupted",
            INTERRUPTED.to_string(),
            json!({}),
            "Interrupted: the points finished so far are saved.\n".to_string(),
        ),
        Err(e @ (SuiteError::Store(_) | SuiteError::Output(_))) => return Err(e),
        Err(e) => {
            let why = e.to_string();
            ("failed", why.clone(), json!({}), format!("Failed: {why}\n"))
        }
    };
    let mut data = data;
    if let Value::Object(m) = &mut data {
        m.insert("text".into(), json!(text));
    }
    let record = StepRecord {
        name: step.step().name().into(),
        status: status.into(),
        reason: reason.clone(),
        data,
        started_ms,
        finished_ms: now_ms(),
    };
    ex.store.save_step(ex.run_id, &record)?;
    Ok(StepEnd {
        status,
        reason,
        text,
    })
}

/// Runs the configured steps in order, printing each step's tables and saving it as soon as
/// it ends. A step that fails is recorded and the review goes on; an interrupt stops it after
/// saving what finished.
pub fn run_review(cfg: &ReviewConfig, ex: &mut Executor<'_>) -> Result<ReviewOutcome, SuiteError> {
    let mut findings = Findings::default();
    let mut outcome = ReviewOutcome {
        interrupted: false,
        failed: Vec::new(),
    };
    let total = cfg.steps.len();
    for (i, &step) in cfg.steps.iter().enumerate() {
        let imp = step_impl(step);
        ex.progress.step = format!("[{}/{total} {}]", i + 1, step.name());
        ex.progress.step_points = imp.points(cfg, true) * cfg.repeats_of(step) as usize;
        ex.progress.step_done = 0;
        writeln!(ex.out, "## {}. {} — {}\n", i + 1, step.name(), step.title())?;
        ex.out.flush()?;
        let end = run_step(cfg, ex, imp, &mut findings)?;
        match end.status {
            "interrupted" => outcome.interrupted = true,
            "failed" => outcome.failed.push((step, end.reason)),
            _ => {}
        }
        writeln!(ex.out, "{}", end.text)?;
        ex.out.flush()?;
        if outcome.interrupted {
            break;
        }
    }
    Ok(outcome)
}

/// `4k`, `128k`, `1m`, `512` (fio's size spelling).
pub fn size_label(b: u32) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}m", b >> 20)
    } else if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}k", b >> 10)
    } else {
        b.to_string()
    }
}
