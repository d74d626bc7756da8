//! Runs one point of a review: checks it (a point the target cannot serve becomes a reason,
//! not an error), lays out files, runs it with the progress line, and saves it to the store
//! under its step before the next point starts.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use iolab_engine::EngineError;
use iolab_job::JobSpec;
use iolab_runner::prepare::{lay_out_all, layouts_needed};
use iolab_runner::{prepare, run_jobs, JobReport, LiveCounters, RunError, RunOptions};
use iolab_stats::Clock;
use iolab_store::Store;
use iolab_sysinfo::Consent;

use crate::progress::Progress;
use crate::{Step, SuiteError};

/// What became of one point.
#[derive(Debug)]
pub enum Point {
    Done(Box<JobReport>),
    /// The target or the kernel cannot serve it; the reason, in a sentence.
    Unavailable(String),
}

impl Point {
    pub fn report(&self) -> Option<&JobReport> {
        match self {
            Point::Done(r) => Some(r),
            Point::Unavailable(_) => None,
        }
    }
}

/// Everything a step needs to run points: the store to save them in, the clock, the write
/// permission, the progress line and where tables are printed.
pub struct Executor<'a> {
    pub store: &'a mut Store,
    pub run_id: i64,
    pub clock: Clock,
    /// What the user allowed to be overwritten: the target, and the files the review created.
    pub consent: Consent,
    pub progress: Progress,
    /// `--repeat`: each point measured this many times and pooled (see `repeats_of`).
    pub repeat: u32,
    pub out: &'a mut dyn Write,
    /// Every measured point's report, when the caller wants them (the main job's fio JSON).
    pub kept: Option<Vec<JobReport>>,
    /// Points measured, and points the target or kernel could not serve (n/a), so far.
    pub measured: usize,
    pub unavailable: usize,
    /// How often a long step's points read the drive's health log (`None`: before and after
    /// each point only).
    pub health_every: Option<std::time::Duration>,
}

/// The reason a point cannot run, without the job-name prefix the runner's errors carry.
pub fn reason_of(e: &RunError) -> String {
    match e {
        RunError::Job { source, .. } => source.to_string(),
        RunError::Target { source, .. } => source.to_string(),
        RunError::Safety { source, .. } => source.to_string(),
        RunError::Unusable { reason, .. } => reason.clone(),
        RunError::Engine {
            source: EngineError::Unsupported { reason, .. },
            ..
        } => reason.clone(),
        e => e.to_string(),
    }
}

impl Executor<'_> {
    /// Runs `spec` as one point of `step` and saves it. `total_bytes` draws a bar instead of
    /// a live IOPS figure (for size-bound points).
    pub fn run_point(
        &mut self,
        step: Step,
        label: &str,
        spec: JobSpec,
        total_bytes: Option<u64>,
    ) -> Result<Point, SuiteError> {
        let consent = self.consent.clone();
        self.run_point_with(step, label, spec, total_bytes, &consent)
    }

    /// [`Executor::run_point`] with another consent than the target's (the floor device).
    pub fn run_point_with(
        &mut self,
        step: Step,
        label: &str,
        spec: JobSpec,
        total_bytes: Option<u64>,
        consent: &Consent,
    ) -> Result<Point, SuiteError> {
        let n = crate::repeats_of(step, self.repeat);
        let stage = Stage::of(step);
        if n <= 1 {
            return self.measure(stage, label, spec, total_bytes, consent, true);
        }
        // Repeated back to back, pooled, saved once with each repeat's figures.
        let mut reports = Vec::new();
        for k in 1..=n {
            let name = format!("{label} (repeat {k}/{n})");
            match self.measure(stage, &name, spec.clone(), total_bytes, consent, false)? {
                Point::Done(r) => reports.push(*r),
                unavailable => return Ok(unavailable),
            }
        }
        let clock = self.clock.timebase();
        let pooled = iolab_results::repeats::pool_jobs(reports, &clock)
            .ok_or_else(|| SuiteError::Other(format!("point '{label}' produced no report")))?;
        self.save_point(step, &pooled)?;
        Ok(Point::Done(Box::new(pooled)))
    }

    /// [`Executor::run_point`] without saving it: one repeat of a point whose repeats are
    /// saved pooled, with [`Executor::save_point`].
    pub fn run_repeat(
        &mut self,
        step: Step,
        label: &str,
        spec: JobSpec,
    ) -> Result<Point, SuiteError> {
        let consent = self.consent.clone();
        self.measure(Stage::of(step), label, spec, None, &consent, false)
    }

    /// Runs `spec` as one point of a stage that is not a review step (a SNIA PTS test,
    /// `pts-iops`), saved under that name, its drive health sampled as in the long steps.
    pub fn run_stage_point(
        &mut self,
        stage: &'static str,
        label: &str,
        spec: JobSpec,
        total_bytes: Option<u64>,
    ) -> Result<Point, SuiteError> {
        let consent = self.consent.clone();
        let stage = Stage {
            name: stage,
            samples_health: true,
        };
        self.measure(stage, label, spec, total_bytes, &consent, true)
    }

    /// Saves a point measured (and pooled) by the step itself, as `run_point` saves its own.
    pub fn save_point(&mut self, step: Step, report: &JobReport) -> Result<(), SuiteError> {
        let outcome = iolab_results::RunOutcome {
            jobs: vec![report.clone()],
            disks: Vec::new(),
            clock: self.clock.timebase(),
            started: std::time::SystemTime::now(),
            interrupted: false,
            health: Vec::new(),
        };
        self.store
            .add_step_outcome(self.run_id, step.name(), &outcome, &[])?;
        if let Some(kept) = &mut self.kept {
            kept.push(report.clone());
        }
        Ok(())
    }

    /// Lays out and runs one point; saves it (and keeps it for JSON) when `save`, else
    /// leaves that to the caller that pools it with its repeats.
    fn measure(
        &mut self,
        stage: Stage,
        label: &str,
        spec: JobSpec,
        total_bytes: Option<u64>,
        consent: &Consent,
        save: bool,
    ) -> Result<Point, SuiteError> {
        if iolab_runner::signal::received().is_some() {
            return Err(SuiteError::Interrupted);
        }
        let planned = point_plan(&spec, total_bytes);
        let began = std::time::Instant::now();
        let mut jobs = match prepare(std::slice::from_ref(&spec), consent) {
            Ok(j) => j,
            Err(e) if e.is_bad_input() => {
                self.progress.done += planned;
                self.progress.step_done += 1;
                self.unavailable += 1;
                return Ok(Point::Unavailable(reason_of(&e)));
            }
            Err(e) => return Err(e.into()),
        };
        let layouts = layouts_needed(&jobs);
        let progress = &self.progress;
        let laid = lay_out_all(&layouts, &mut jobs, |l| {
            progress.say(&format!("laying out {} ...", l.path.display()));
        });
        progress.clear();
        match laid {
            Ok(()) => layouts.iter().for_each(|l| self.consent.grant(&l.path)),
            Err(RunError::Interrupted) => return Err(SuiteError::Interrupted),
            Err(e) if e.is_bad_input() => {
                self.progress.done += planned;
                self.progress.step_done += 1;
                self.unavailable += 1;
                return Ok(Point::Unavailable(reason_of(&e)));
            }
            Err(e) => return Err(e.into()),
        }
        let live = LiveCounters::default();
        let stop = AtomicBool::new(false);
        let opts = RunOptions {
            clock: self.clock,
            progress: None,
            live: Some(&live),
            live_text: None,
            status: None,
            watchdog: iolab_runner::run::watchdog_grace(),
            peers: None,
            keep_rseq: false,
            lean_loop: true,
            health_every: self.health_every.filter(|_| stage.samples_health),
        };
        let progress = &self.progress;
        let result = std::thread::scope(|s| {
            if progress.enabled {
                s.spawn(|| progress.draw_until(&stop, label, &live, planned, total_bytes));
            }
            let r = run_jobs(&jobs, &opts);
            stop.store(true, Ordering::Relaxed);
            r
        });
        self.progress.done += planned + self.progress.per_point;
        self.progress.step_done += 1;
        let mut outcome = match result {
            Ok(o) => o,
            Err(e @ RunError::Engine { .. }) if e.is_bad_input() => {
                self.unavailable += 1;
                return Ok(Point::Unavailable(reason_of(&e)));
            }
            Err(e) => return Err(e.into()),
        };
        if outcome.interrupted {
            // A cut-short point is not a measurement: the finished ones are already saved.
            return Err(SuiteError::Interrupted);
        }
        self.progress.point_done(label, &outcome);
        if let Some(why) = crate::served::page_cache_reason(&spec, &outcome) {
            let job = &mut outcome.jobs[0];
            job.fallback.get_or_insert(why);
        }
        if save {
            self.store
                .add_step_outcome(self.run_id, stage.name, &outcome, &[])?;
        }
        if let Some(e) = outcome.first_error() {
            // Kept with the step's figures above; the step fails with it, as before.
            return Err(SuiteError::Other(format!("point '{label}': {e}")));
        }
        if let Some(kept) = self.kept.as_mut().filter(|_| save) {
            kept.extend(outcome.jobs.iter().cloned());
        }
        let report = outcome
            .jobs
            .into_iter()
            .next()
            .ok_or_else(|| SuiteError::Other(format!("point '{label}' produced no report")))?;
        self.measured += 1;
        // Its phase (ramp included, as its plan counts it) and the bytes it wrote.
        let written = report
            .dir(iolab_results::Direction::Write)
            .map_or(0, |w| w.bytes);
        self.progress.pace.note(
            began.elapsed(),
            Duration::from_nanos(report.elapsed_ns.max(report.runtime_ns)),
            written,
        );
        Ok(Point::Done(Box::new(report)))
    }
}

/// Where a point is saved (the step's name) and whether its drive's health is sampled while
/// it runs.
#[derive(Debug, Clone, Copy)]
struct Stage {
    name: &'static str,
    samples_health: bool,
}

impl Stage {
    fn of(step: Step) -> Stage {
        Stage {
            name: step.name(),
            samples_health: step.samples_health(),
        }
    }
}

/// A point's planned time: its ramp and runtime; size-bound points at 1 GB/s (as the
/// review's estimate plans them), or their runtime where that ends them sooner.
fn point_plan(spec: &JobSpec, total_bytes: Option<u64>) -> Duration {
    let by_size = total_bytes.map(|b| Duration::from_secs_f64(b as f64 / 1e9));
    spec.ramp_time
        + match (spec.time_based, spec.runtime, by_size) {
            (true, Some(r), _) => r,
            (false, Some(r), Some(s)) => r.min(s),
            (false, Some(r), None) => r,
            (_, None, Some(s)) => s,
            (_, None, None) => Duration::ZERO,
        }
}
