//! Running one test as the specification orders it: purge, workload-independent
//! preconditioning (twice the capacity in 128 KiB sequential writes), then the test's rounds
//! (its own stimulus: workload-dependent preconditioning and measurement at once) until the
//! steady-state rule holds or the rounds run out. Every element is a point of the review's
//! executor, saved in the store under the test's stage (`pts-iops`).

use iolab_suite::exec::{Executor, Point};
use std::time::Instant;

use iolab_suite::steps::precondition::purge;
use iolab_suite::SuiteError;
use serde::Serialize;
use serde_json::{json, Value};

use crate::config::Config;
use crate::element::{Element, Measured};
use crate::steady::SteadyState;
use crate::tests::{Phase, PtsTest, Rounds};

/// What one test did.
#[derive(Debug, Clone)]
pub struct TestRun {
    pub name: &'static str,
    pub title: &'static str,
    pub tracked: String,
    /// How the target was purged, in words.
    pub purge: String,
    /// Workload-independent preconditioning: bytes written and their rate.
    pub wipc: Option<(u64, f64)>,
    /// Every element of every round, in order.
    pub rounds: Vec<Vec<Measured>>,
    pub steady: SteadyState,
    /// A series (write saturation) rather than rounds to steady state.
    pub series: bool,
    /// Why the test could not run (the target cannot serve it).
    pub unavailable: Option<String>,
    /// The elements of a round the target cannot run, and why.
    pub left_out: Vec<String>,
    /// What ran after the rounds (wait states, access groups, operating points).
    pub phases: Vec<PhaseRun>,
    /// How far the test got (what it left the target in, if it stopped).
    pub stage: Stage,
    /// The elements of an unfinished round (measured and stored, but no round of the rule).
    pub partial: Vec<Measured>,
    /// Stopped by a signal: what the target was left in, in words.
    pub interrupted: Option<String>,
}

/// How far a test got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Nothing touched yet.
    Untouched,
    Purged,
    /// Workload-independent preconditioning under way.
    Preconditioning,
    /// The test's rounds under way.
    Rounds,
    /// What follows the rounds under way.
    After,
    Done,
}

/// One phase as it ran.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseRun {
    pub name: String,
    pub points: Vec<PhasePoint>,
}

/// One step of a phase: when it started (seconds from the phase's start), the host idle
/// after it, and what it measured.
#[derive(Debug, Clone, Serialize)]
pub struct PhasePoint {
    #[serde(skip_serializing_if = "str::is_empty")]
    pub role: &'static str,
    pub at_s: f64,
    /// The step's own time, then the host idle after it.
    pub time_s: f64,
    pub idle_s: f64,
    #[serde(flatten)]
    pub measured: Measured,
}

impl TestRun {
    /// The test before it starts.
    fn empty(t: &dyn PtsTest, c: &Config) -> TestRun {
        TestRun {
            name: t.name(),
            title: t.title(),
            tracked: t.tracked_label(c),
            purge: String::new(),
            wipc: None,
            rounds: Vec::new(),
            steady: c.rule.judge(&[]),
            series: matches!(t.rounds(c), Rounds::Series { .. }),
            unavailable: None,
            left_out: left_out(t, c),
            phases: Vec::new(),
            stage: Stage::Untouched,
            partial: Vec::new(),
            interrupted: None,
        }
    }

    /// What the test left the target in when it stopped where it is now.
    fn left_in(&self) -> String {
        let rounds = match self.rounds.len() {
            0 => "no full round".to_string(),
            n => format!("{n} full round(s)"),
        };
        let partial = match self.partial.len() {
            0 => String::new(),
            n => format!(
                "; round {} stopped after {n} element(s), kept apart",
                self.rounds.len() + 1
            ),
        };
        match self.stage {
            Stage::Untouched => "nothing written".into(),
            Stage::Purged => "the target is left purged".into(),
            Stage::Preconditioning => "the target is left purged and part-preconditioned".into(),
            Stage::Rounds => format!("the target is left preconditioned, after {rounds}{partial}"),
            Stage::After | Stage::Done => {
                format!("the target is left after {rounds}, in what follows them")
            }
        }
    }

    /// The test's entry in `tests[]`: every element of every round and the rule's verdict.
    pub fn to_json(&self, c: &Config) -> Value {
        let s = &self.steady;
        let rounds: Vec<Value> = self
            .rounds
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "round": i + 1,
                    "tracked": s.values.get(i),
                    "elements": r,
                })
            })
            .collect();
        json!({
            "name": self.name,
            "title": self.title,
            "tracked": self.tracked,
            "purge": self.purge,
            "wipc": self.wipc.map(|(bytes, bw)| json!({"bytes": bytes, "bw_bytes": bw})),
            "unavailable": self.unavailable,
            "interrupted": self.interrupted,
            "partial_round": (!self.partial.is_empty()).then(|| json!({
                "round": self.rounds.len() + 1,
                "elements": self.partial,
            })),
            "left_out": self.left_out,
            "rounds": rounds,
            "phases": self.phases,
            "steady_state": {
                "reached": s.reached,
                "window_rounds": s.window.map(|w| w.rounds),
                "values": s.values,
                "average": s.window.map(|w| w.average),
                "range_pct": s.window.map(|w| w.range_pct),
                "slope_excursion_pct": s.window.map(|w| w.slope_excursion_pct),
                "gave_up": s.gave_up && !self.series,
                "series": self.series,
                "rule": {
                    "window": c.rule.window,
                    "range_pct": c.rule.range_pct,
                    "slope_pct": c.rule.slope_pct,
                    "max_rounds": c.rule.max_rounds,
                },
            },
        })
    }
}

/// Runs `t` on the configured target. A signal stops it where it is: what it measured so
/// far is kept and returned, marked [`TestRun::interrupted`], with the state it left the
/// target in (`SuiteError::Interrupted` is never returned from here).
pub fn run_test(t: &dyn PtsTest, c: &Config, ex: &mut Executor<'_>) -> Result<TestRun, SuiteError> {
    let mut run = TestRun::empty(t, c);
    match run_into(&mut run, t, c, ex) {
        Ok(()) => Ok(run),
        Err(SuiteError::Interrupted) => {
            run.interrupted = Some(run.left_in());
            Ok(run)
        }
        Err(e) => Err(e),
    }
}

/// [`run_test`]'s work, filling `run` as it goes so that an interruption keeps it.
fn run_into(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
) -> Result<(), SuiteError> {
    if iolab_runner::signal::received().is_some() {
        return Err(SuiteError::Interrupted);
    }
    run.purge = match purge(&c.target, Some(c.region), &mut ex.consent) {
        Ok(d) if !d.device => format!(
            "{}: a file is deallocated, which is no true purge",
            d.text()
        ),
        Ok(d) => d.text(),
        Err(why) => {
            run.unavailable = Some(why);
            return Ok(());
        }
    };
    run.stage = Stage::Purged;
    if t.wipc() {
        run.stage = Stage::Preconditioning;
        match precondition(t, c, ex)? {
            Ok(w) => run.wipc = Some(w),
            Err(why) => {
                run.unavailable = Some(why);
                return Ok(());
            }
        }
    }
    run.stage = Stage::Rounds;
    let (max, bytes, series) = match t.rounds(c) {
        Rounds::ToSteadyState => (c.rule.max_rounds, u64::MAX, false),
        Rounds::Series { rounds, bytes } => (rounds, bytes, true),
    };
    let mut values: Vec<f64> = Vec::new();
    let mut written = 0u64;
    for r in 1..=max {
        let so_far = c.rule.judge(&values);
        let state = match so_far.window {
            Some(w) => format!("last window {:.0} % range", w.range_pct),
            None => "steady state not judged yet".into(),
        };
        for e in t.round(c).into_iter().filter(|e| e.bs >= c.logical_block) {
            let label = format!("{} round {r}/{max} ({state}): {}", t.name(), e.label());
            let name = format!("{}-r{r}-{}", t.stage(), e.label().replace(' ', "-"));
            let spec = e.spec(name, &c.target, c.region, c.element_time, c.logical_block);
            match ex.run_stage_point(t.stage(), &label, spec, None)? {
                Point::Done(report) => {
                    let m = Measured::of(e, &report, &ex.clock);
                    written += m.write_bytes;
                    run.partial.push(m);
                }
                Point::Unavailable(why) => {
                    run.unavailable = Some(why);
                    return Ok(());
                }
            }
        }
        let round = std::mem::take(&mut run.partial);
        values.push(t.tracked(c, &round));
        run.rounds.push(round);
        run.steady = c.rule.judge(&values);
        // A series runs at least one window's rounds, so that the rule can be applied.
        let enough = written >= bytes && r >= c.rule.window;
        if (!series && run.steady.reached) || enough {
            break;
        }
    }
    // The steady window, else the last one judged: the rounds the report averages too.
    let window = run.steady.window.map(|w| w.rounds);
    run.stage = Stage::After;
    for phase in t.after(c, &run.rounds, window) {
        match run_phase(t, c, ex, &phase)? {
            Ok(p) => run.phases.push(p),
            Err(why) => {
                run.unavailable = Some(why);
                return Ok(());
            }
        }
    }
    run.stage = Stage::Done;
    Ok(())
}

/// Runs a phase's steps in order, the host idle after each as the step says.
fn run_phase(
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
    phase: &Phase,
) -> Result<Result<PhaseRun, String>, SuiteError> {
    let start = Instant::now();
    let mut points = Vec::new();
    let n = phase.steps.len();
    for (i, step) in phase.steps.iter().enumerate() {
        let e = step.element;
        let label = format!("{} {} ({}/{n}): {}", t.name(), phase.name, i + 1, e.label());
        let name = format!("{}-after-{}", t.stage(), e.label().replace(' ', "-"));
        let at_s = start.elapsed().as_secs_f64();
        let spec = e.spec(name, &c.target, c.region, step.time, c.logical_block);
        let report = match ex.run_stage_point(t.stage(), &label, spec, None)? {
            Point::Done(report) => report,
            Point::Unavailable(why) => return Ok(Err(why)),
        };
        let mut m = Measured::of(e, &report, &ex.clock);
        if step.histogram {
            m = m.with_histogram(&report, &ex.clock);
        }
        points.push(PhasePoint {
            role: step.role,
            at_s,
            time_s: step.time.as_secs_f64(),
            idle_s: step.idle_after.as_secs_f64(),
            measured: m,
        });
        // Host idle: no I/O from iolab while the drive may work for itself.
        std::thread::sleep(step.idle_after);
    }
    Ok(Ok(PhaseRun {
        name: phase.name.clone(),
        points,
    }))
}

/// The elements below the target's logical block size, which no direct I/O can do.
fn left_out(t: &dyn PtsTest, c: &Config) -> Vec<String> {
    t.round(c)
        .into_iter()
        .filter(|e| e.bs < c.logical_block)
        .map(|e| {
            format!(
                "{}: below the target's {}-byte logical block",
                e.label(),
                c.logical_block
            )
        })
        .collect()
}

/// Workload-independent preconditioning: the region written twice in 128 KiB sequential
/// writes (T1Q32). `Ok(Err(why))`: the target cannot take it.
fn precondition(
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
) -> Result<Result<(u64, f64), String>, SuiteError> {
    let e = Element {
        read_pct: 0,
        bs: 128 << 10,
        random: false,
        threads: 1,
        depth: 32,
        composite: false,
    };
    let mut spec = e.spec(
        format!("{}-wipc", t.stage()),
        &c.target,
        c.region,
        c.element_time,
        c.logical_block,
    );
    spec.time_based = false;
    spec.runtime = None;
    spec.loops = 2;
    let label = format!(
        "{}: preconditioning, twice the region in 128 KiB writes",
        t.name()
    );
    Ok(
        match ex.run_stage_point(t.stage(), &label, spec, Some(2 * c.region))? {
            Point::Done(r) => {
                let m = Measured::of(e, &r, &ex.clock);
                Ok((m.write_bytes, m.bw_bytes))
            }
            Point::Unavailable(why) => Err(why),
        },
    )
}
