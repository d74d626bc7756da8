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
    fn unavailable(t: &dyn PtsTest, c: &Config, purge: String, why: String) -> TestRun {
        TestRun {
            name: t.name(),
            title: t.title(),
            tracked: t.tracked_label(c),
            purge,
            wipc: None,
            rounds: Vec::new(),
            steady: c.rule.judge(&[]),
            series: matches!(t.rounds(c), Rounds::Series { .. }),
            unavailable: Some(why),
            left_out: Vec::new(),
            phases: Vec::new(),
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

/// Runs `t` on the configured target.
pub fn run_test(t: &dyn PtsTest, c: &Config, ex: &mut Executor<'_>) -> Result<TestRun, SuiteError> {
    let purge = match purge(&c.target, Some(c.region), &mut ex.consent) {
        Ok(d) if !d.device => format!(
            "{}: a file is deallocated, which is no true purge",
            d.text()
        ),
        Ok(d) => d.text(),
        Err(why) => return Ok(TestRun::unavailable(t, c, String::new(), why)),
    };
    let wipc = match t.wipc() {
        false => None,
        true => match precondition(t, c, ex)? {
            Ok(w) => Some(w),
            Err(why) => return Ok(TestRun::unavailable(t, c, purge, why)),
        },
    };
    let (max, bytes, series) = match t.rounds(c) {
        Rounds::ToSteadyState => (c.rule.max_rounds, u64::MAX, false),
        Rounds::Series { rounds, bytes } => (rounds, bytes, true),
    };
    let mut rounds: Vec<Vec<Measured>> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    let mut written = 0u64;
    for r in 1..=max {
        let so_far = c.rule.judge(&values);
        let state = match so_far.window {
            Some(w) => format!("last window {:.0} % range", w.range_pct),
            None => "steady state not judged yet".into(),
        };
        let mut round = Vec::new();
        for e in t.round(c).into_iter().filter(|e| e.bs >= c.logical_block) {
            let label = format!("{} round {r}/{max} ({state}): {}", t.name(), e.label());
            let name = format!("{}-r{r}-{}", t.stage(), e.label().replace(' ', "-"));
            let spec = e.spec(name, &c.target, c.region, c.element_time, c.logical_block);
            match ex.run_stage_point(t.stage(), &label, spec, None)? {
                Point::Done(report) => {
                    let m = Measured::of(e, &report, &ex.clock);
                    written += m.write_bytes;
                    round.push(m);
                }
                Point::Unavailable(why) => return Ok(TestRun::unavailable(t, c, purge, why)),
            }
        }
        values.push(t.tracked(c, &round));
        rounds.push(round);
        // A series runs at least one window's rounds, so that the rule can be applied.
        let enough = written >= bytes && r >= c.rule.window;
        if (!series && c.rule.judge(&values).reached) || enough {
            break;
        }
    }
    let steady = c.rule.judge(&values);
    // The steady window, else the last one judged: the rounds the report averages too.
    let window = steady.window.map(|w| w.rounds);
    let mut phases = Vec::new();
    for phase in t.after(c, &rounds, window) {
        match run_phase(t, c, ex, &phase)? {
            Ok(p) => phases.push(p),
            Err(why) => return Ok(TestRun::unavailable(t, c, purge, why)),
        }
    }
    Ok(TestRun {
        name: t.name(),
        title: t.title(),
        tracked: t.tracked_label(c),
        purge,
        wipc,
        steady,
        rounds,
        series,
        unavailable: None,
        left_out: left_out(t, c),
        phases,
    })
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
