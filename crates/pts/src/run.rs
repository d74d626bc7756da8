//! Running one test as the specification orders it: purge, workload-independent
//! preconditioning (the active range twice in sequential writes), the test's own
//! preconditioning loop where it has one, then its rounds (each after its pre-write, where it
//! has one) until every tracked variable is steady in the same window or the rounds run out,
//! then what follows the rounds. Every element is a point of the review's executor, saved in
//! the store under the test's stage (`pts-iops`).

use std::time::Instant;

pub use iolab_results::pts::{Loop, PhasePoint, PhaseRun};
use iolab_results::pts::{PartialRound, Round, RuleDoc, Steady, TestDoc, Wipc};
use iolab_suite::exec::{Executor, Point};
use iolab_suite::SuiteError;

use crate::config::Config;
use crate::element::{Element, ElementJob, Measure, Measured};
use crate::estimate::Estimate;
use crate::steady::{Joint, Tracked};
use crate::tests::{Interval, Phase, PtsTest, Rounds, Step};

/// What one test did.
#[derive(Debug, Clone)]
pub struct TestRun {
    pub name: &'static str,
    pub title: &'static str,
    /// What the rule tracks, one entry per variable.
    pub tracked: Vec<String>,
    /// How the target was purged, in words.
    pub purge: String,
    /// Why the test's result cannot stand beside a certified one (empty: nothing iolab
    /// knows of): the purge, the profile's settings, `--quick`, ...
    pub not_comparable: Vec<String>,
    /// Workload-independent preconditioning: its stimulus, bytes written and their rate.
    pub wipc: Option<(Element, u64, f64)>,
    /// The test's own preconditioning loop: its stimulus and tracked values, one a round.
    pub preconditioning: Option<Loop>,
    /// Each round's pre-write, where the test has them.
    pub pre_writes: Vec<Measured>,
    /// Every element of every round, in order.
    pub rounds: Vec<Vec<Measured>>,
    pub steady: Joint,
    /// A series (write saturation, cross-stimulus recovery) rather than rounds to steady
    /// state: no steady-state criterion, none claimed.
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
    /// Preconditioning (workload independent, or the test's own loop) under way.
    Preconditioning,
    /// The test's rounds under way.
    Rounds,
    /// What follows the rounds under way.
    After,
    Done,
}

impl TestRun {
    /// The test before it starts.
    fn empty(t: &dyn PtsTest, c: &Config) -> TestRun {
        let tracked = t.tracked_labels(c);
        let mut not_comparable = c.departures();
        if !t.in_profile(c.client()) {
            not_comparable.push(format!("not a test of {}'s test set", c.profile_name()));
        }
        TestRun {
            name: t.name(),
            title: t.title(),
            steady: c.rule.judge_all(&tracked, &vec![Vec::new(); tracked.len()]),
            tracked,
            purge: String::new(),
            not_comparable,
            wipc: None,
            preconditioning: None,
            pre_writes: Vec::new(),
            rounds: Vec::new(),
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

    /// The test's entry in the stored document: every element of every round and the
    /// rule's verdict.
    pub fn to_doc(&self, c: &Config) -> TestDoc {
        let s = self.steady.primary();
        let judged = |x: Option<f64>| x.filter(|_| !self.series);
        let window = s.window.filter(|_| !self.series);
        let rounds = self
            .rounds
            .iter()
            .enumerate()
            .map(|(i, r)| Round {
                round: i + 1,
                tracked: self
                    .steady
                    .variables
                    .iter()
                    .map(|v| v.values.get(i).copied())
                    .collect(),
                pre_write: self.pre_writes.get(i).cloned(),
                elements: r.clone(),
            })
            .collect();
        TestDoc {
            name: self.name.into(),
            title: self.title.into(),
            tracked: self.tracked.join("; "),
            purge: self.purge.clone(),
            comparable: self.not_comparable.is_empty(),
            not_comparable: self.not_comparable.clone(),
            wipc: self.wipc.map(|(e, bytes, bw_bytes)| Wipc {
                stimulus: e.label(),
                bytes,
                bw_bytes,
            }),
            preconditioning: self.preconditioning.clone(),
            unavailable: self.unavailable.clone(),
            interrupted: self.interrupted.clone(),
            partial_round: (!self.partial.is_empty()).then(|| PartialRound {
                round: self.rounds.len() + 1,
                elements: self.partial.clone(),
            }),
            left_out: self.left_out.clone(),
            rounds,
            phases: self.phases.clone(),
            steady_state: Steady {
                reached: s.reached && !self.series,
                window_rounds: self.steady.window.filter(|_| !self.series),
                values: s.values,
                average: judged(window.map(|w| w.average)),
                range_pct: judged(window.map(|w| w.range_pct)),
                slope_excursion_pct: judged(window.map(|w| w.slope_excursion_pct)),
                gave_up: s.gave_up && !self.series,
                series: self.series,
                criterion: if self.series {
                    "none: the specification sets no steady-state criterion for this test"
                } else {
                    "every tracked variable within 20 % range and 10 % slope excursion of its average over the same 5 rounds"
                }
                .into(),
                variables: match self.series {
                    true => Vec::new(),
                    false => self.steady.variables.clone(),
                },
                rule: RuleDoc {
                    window: c.rule.window,
                    range_pct: c.rule.range_pct,
                    slope_pct: c.rule.slope_pct,
                    max_rounds: c.rule.max_rounds,
                },
            },
        }
    }
}

/// Runs `t` on the configured target. A signal stops it where it is: what it measured so
/// far is kept and returned, marked [`TestRun::interrupted`], with the state it left the
/// target in (`SuiteError::Interrupted` is never returned from here).
pub fn run_test(
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
    est: &mut Estimate<'_>,
) -> Result<TestRun, SuiteError> {
    let mut run = TestRun::empty(t, c);
    match run_into(&mut run, t, c, &mut Ctx { ex, est }) {
        Ok(()) => Ok(run),
        Err(SuiteError::Interrupted) => {
            run.interrupted = Some(run.left_in());
            Ok(run)
        }
        Err(e) => Err(e),
    }
}

/// A stage of a test: `Err(why)` when the target cannot serve it (the test stops there).
type Served<T> = Result<Result<T, String>, SuiteError>;

/// What a test's stages run with: the executor its points run on, and the plan kept.
struct Ctx<'x, 'e, 'p> {
    ex: &'x mut Executor<'e>,
    est: &'x mut Estimate<'p>,
}

/// [`run_test`]'s work, filling `run` as it goes so that an interruption keeps it.
fn run_into(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Result<(), SuiteError> {
    if iolab_runner::signal::received().is_some() {
        return Err(SuiteError::Interrupted);
    }
    let stages = [
        purge_stage as fn(&mut TestRun, &dyn PtsTest, &Config, &mut Ctx<'_, '_, '_>) -> Served<()>,
        wipc_stage,
        preconditioning_stage,
        rounds_stage,
        after_stage,
    ];
    for stage in stages {
        if let Err(why) = stage(run, t, c, cx)? {
            run.unavailable = Some(why);
            return Ok(());
        }
    }
    run.stage = Stage::Done;
    Ok(())
}

fn purge_stage(
    run: &mut TestRun,
    _: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Served<()> {
    let p = match crate::purge::purge(c, &mut cx.ex.consent) {
        Ok(p) => p,
        Err(why) => return Ok(Err(why)),
    };
    run.purge = p.text;
    if let Some(why) = p.departs {
        run.not_comparable.insert(0, format!("purge: {why}"));
    }
    run.stage = Stage::Purged;
    Ok(Ok(()))
}

/// Workload-independent preconditioning: the active range written twice in the test's
/// sequential stimulus.
fn wipc_stage(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Served<()> {
    let ex = &mut *cx.ex;
    let Some(e) = t.wipc(c) else {
        return Ok(Ok(()));
    };
    run.stage = Stage::Preconditioning;
    let mut spec = e.spec(c, format!("{}-wipc", t.stage()), c.element_time);
    spec.time_based = false;
    spec.runtime = None;
    spec.loops = 2;
    let label = format!(
        "{}: preconditioning, twice the active range in {} sequential writes",
        t.name(),
        crate::element::size_name(e.bs)
    );
    Ok(
        match ex.run_stage_point(t.stage(), &label, spec, Some(2 * c.region))? {
            Point::Done(r) => {
                let m = Measured::of(e, &r, &ex.clock);
                run.wipc = Some((e, m.write_bytes, m.bw_bytes));
                Ok(())
            }
            Point::Unavailable(why) => Err(why),
        },
    )
}

/// The test's own preconditioning loop, to steady state on its tracked interval.
fn preconditioning_stage(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Served<()> {
    let Some(p) = t.preconditioning(c) else {
        return Ok(Ok(()));
    };
    let ex = &mut *cx.ex;
    run.stage = Stage::Preconditioning;
    let e = p.element;
    let tracked = match p.tracked {
        Interval::First => "each round's first interval",
        Interval::Last => "each round's last interval",
    };
    let mut values = Vec::new();
    let max = c.rule.max_rounds;
    for r in 1..=max {
        let mut round = Vec::new();
        for i in 1..=p.per_round {
            let label = format!(
                "{} preconditioning round {r}/{max}, {i}/{}: {}",
                t.name(),
                p.per_round,
                e.label()
            );
            let spec = e.spec(c, format!("{}-pc-r{r}-{i}", t.stage()), c.element_time);
            match ex.run_stage_point(t.stage(), &label, spec, None)? {
                Point::Done(report) => round.push(Measured::of(e, &report, &ex.clock)),
                Point::Unavailable(why) => return Ok(Err(why)),
            }
        }
        let pick = match p.tracked {
            Interval::First => round.first(),
            Interval::Last => round.last(),
        };
        values.push(pick.map_or(0.0, |m| m.iops));
        let steady = c.rule.judge(&values);
        let done = steady.reached;
        let what = format!("{} preconditioning", t.name());
        let why = crate::steady::unsteady_why(
            &c.rule,
            &[Tracked {
                label: "IOPS".into(),
                values: Vec::new(),
                window: steady.window,
                reached: done,
            }],
        );
        let round_time = crate::plan::precondition_round(c, &p, ex.progress.per_point);
        cx.est
            .round_ends(ex, (&what, &why), (r, max), done, round_time);
        run.preconditioning = Some(Loop {
            stimulus: e.label(),
            intervals_a_round: p.per_round,
            tracked: format!("IOPS of {tracked}"),
            steady,
        });
        if done {
            break;
        }
    }
    Ok(Ok(()))
}

/// The rounds, each after its pre-write, until every tracked variable is steady in the same
/// window (or, for a series, until its rounds or bytes are done).
fn rounds_stage(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Served<()> {
    let ex = &mut *cx.ex;
    run.stage = Stage::Rounds;
    let (max, bytes, series) = match t.rounds(c) {
        Rounds::ToSteadyState => (c.rule.max_rounds, u64::MAX, false),
        Rounds::Series { rounds, bytes } => (rounds, bytes, true),
    };
    let labels = t.tracked_labels(c);
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); labels.len()];
    let mut written = 0u64;
    for r in 1..=max {
        let state = match (series, run.steady.window) {
            (true, _) => "a series".to_string(),
            (false, Some([a, b])) => format!("last window {a}-{b} not steady"),
            (false, None) => "steady state not judged yet".into(),
        };
        if let Some(step) = t.pre_write(c) {
            let label = format!(
                "{} round {r}/{max} pre-write: {}",
                t.name(),
                step.element.label()
            );
            let name = format!("{}-r{r}-pre-write", t.stage());
            let spec = step.element.spec(c, name, step.time);
            match ex.run_stage_point(t.stage(), &label, spec, None)? {
                Point::Done(report) => {
                    run.pre_writes
                        .push(Measured::of(step.element, &report, &ex.clock))
                }
                Point::Unavailable(why) => return Ok(Err(why)),
            }
        }
        for e in t.round(c).into_iter().filter(|e| e.bs >= c.logical_block) {
            let label = format!("{} round {r}/{max} ({state}): {}", t.name(), e.label());
            let name = format!("{}-r{r}-{}", t.stage(), e.label().replace(' ', "-"));
            let spec = e.spec(c, name, c.element_time);
            match ex.run_stage_point(t.stage(), &label, spec, None)? {
                Point::Done(report) => {
                    let m = Measured::of(e, &report, &ex.clock);
                    written += m.write_bytes;
                    run.partial.push(m);
                }
                Point::Unavailable(why) => return Ok(Err(why)),
            }
        }
        let round = std::mem::take(&mut run.partial);
        for (v, x) in values.iter_mut().zip(t.tracked(c, &round)) {
            v.push(x);
        }
        run.rounds.push(round);
        run.steady = c.rule.judge_all(&labels, &values);
        // A series runs at least one window's rounds before its bytes can end it.
        let enough = written >= bytes && r >= c.rule.window;
        // A series has no steady state to wait for: its rounds never grow the plan.
        let round_time = crate::plan::test_round(t, c, ex.progress.per_point);
        let why = crate::steady::unsteady_why(&c.rule, &run.steady.variables);
        let settled = series || run.steady.reached;
        cx.est
            .round_ends(ex, (t.name(), &why), (r, max), settled, round_time);
        if (!series && run.steady.reached) || enough {
            break;
        }
    }
    Ok(Ok(()))
}

/// What follows the rounds, given their measurement window (the steady one, else the last
/// one judged: the rounds the report averages too).
fn after_stage(
    run: &mut TestRun,
    t: &dyn PtsTest,
    c: &Config,
    cx: &mut Ctx<'_, '_, '_>,
) -> Served<()> {
    let ex = &mut *cx.ex;
    run.stage = Stage::After;
    for phase in t.after(c, &run.rounds, run.steady.window) {
        match run_phase(t, c, ex, &phase)? {
            Ok(p) => run.phases.push(p),
            Err(why) => return Ok(Err(why)),
        }
    }
    Ok(Ok(()))
}

/// Runs a phase's steps in order, the host idle after each as the step says.
fn run_phase(
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
    phase: &Phase,
) -> Served<PhaseRun> {
    let start = Instant::now();
    let mut points = Vec::new();
    let n = phase.steps.len();
    for (i, step) in phase.steps.iter().enumerate() {
        let at_s = start.elapsed().as_secs_f64();
        let m = match run_step(t, c, ex, &phase.name, (i + 1, n), step)? {
            Ok(m) => m,
            Err(why) => return Ok(Err(why)),
        };
        points.push(PhasePoint {
            role: step.role.into(),
            at_s,
            time_s: step.time.as_secs_f64(),
            idle_s: step.idle_after.as_secs_f64(),
            measured: m,
        });
        // Host idle: no I/O from iolab while the drive may work for itself; a signal ends it.
        idle(step.idle_after)?;
        // Idle is planned time: the live line counts it down as it passes.
        ex.progress.done += step.idle_after;
    }
    Ok(Ok(PhaseRun {
        name: phase.name.clone(),
        points,
    }))
}

/// One step of a phase (`k` of `n`), with its histogram where it keeps one.
fn run_step(
    t: &dyn PtsTest,
    c: &Config,
    ex: &mut Executor<'_>,
    phase: &str,
    (k, n): (usize, usize),
    step: &Step,
) -> Served<Measured> {
    let e = step.element;
    let label = format!("{} {phase} ({k}/{n}): {}", t.name(), e.label());
    let name = format!("{}-after-{}", t.stage(), e.label().replace(' ', "-"));
    let spec = e.spec(c, name, step.time);
    let report = match ex.run_stage_point(t.stage(), &label, spec, None)? {
        Point::Done(report) => report,
        Point::Unavailable(why) => return Ok(Err(why)),
    };
    let m = Measured::of(e, &report, &ex.clock);
    Ok(Ok(match step.histogram {
        true => m.with_histogram(&report, &ex.clock),
        false => m,
    }))
}

/// Host idle for `d`, in slices, ended by a signal.
fn idle(d: std::time::Duration) -> Result<(), SuiteError> {
    let end = Instant::now() + d;
    while let Some(left) = end
        .checked_duration_since(Instant::now())
        .filter(|l| !l.is_zero())
    {
        if iolab_runner::signal::received().is_some() {
            return Err(SuiteError::Interrupted);
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(50)));
    }
    Ok(())
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
