//! The plan kept while the run goes. Before the first I/O the plan can only assume the
//! machine's pace (writes at 1 GB/s or `--rate`, points free of cost); once the first round
//! is done the run has measured both, and the time left is planned again from the same
//! durations the run uses at that pace: said once, and kept on the live line. Each test to
//! steady state is expected halfway between its first window and its last round; one that
//! is steady sooner gives the rounds it did not need back to the plan, and one still not
//! steady at its expected rounds grows the plan a round at a time, saying why (the window's
//! excursions against the rule's limits), so a long run is never a silent one.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use iolab_results::pts::{PlanDoc, TestPlan};
use iolab_suite::exec::Executor;
use iolab_suite::progress::Pace;

use crate::config::Config;
use crate::plan::{clock, expected, expected_rounds, plan, total, Timing};
use crate::tests::PtsTest;

/// Points measured before their pace stands for the run's.
const PACE_AFTER: usize = 3;

/// The run's plan as it is kept.
pub struct Estimate<'a> {
    tests: &'a [&'static dyn PtsTest],
    c: &'a Config,
    assumed: Timing,
    began: Instant,
    test_began: Instant,
    /// The test under way.
    current: usize,
    /// Said on stderr besides the live line (not `--quiet`).
    loud: bool,
    /// The rounds each loop under way is planned for now (a test's rounds, its
    /// preconditioning loop's), by the name it is said by.
    budgets: HashMap<String, f64>,
    doc: PlanDoc,
}

impl<'a> Estimate<'a> {
    /// The plan of `tests` on `c` before the run, at the `assumed` pace.
    pub fn new(
        tests: &'a [&'static dyn PtsTest],
        c: &'a Config,
        assumed: Timing,
        loud: bool,
    ) -> Estimate<'a> {
        let planned = plan(tests, c, assumed);
        let (least, most) = total(&planned);
        Estimate {
            tests,
            c,
            assumed,
            began: Instant::now(),
            test_began: Instant::now(),
            current: 0,
            loud,
            budgets: HashMap::new(),
            doc: PlanDoc {
                assumed_s: [least.as_secs_f64(), most.as_secs_f64()],
                assumed_expected_s: expected(&planned).as_secs_f64(),
                assumed_write_rate: assumed.write_bytes_per_sec,
                ..PlanDoc::default()
            },
        }
    }

    /// The run as expected at the assumed pace (the live line's first plan).
    pub fn expected(&self) -> Duration {
        Duration::from_secs_f64(self.doc.assumed_expected_s)
    }

    /// The pace measured so far, the assumed one where too little is measured.
    fn timing(&self, pace: &Pace) -> Timing {
        Timing {
            write_bytes_per_sec: pace
                .write_rate()
                .unwrap_or(self.assumed.write_bytes_per_sec),
            per_point: match pace.points >= PACE_AFTER {
                true => pace.per_point(),
                false => self.assumed.per_point,
            },
        }
    }

    fn say(&self, ex: &Executor<'_>, text: &str) {
        match ex.progress.enabled {
            true => ex.progress.say_above(text),
            false if self.loud => eprintln!("{text}"),
            false => {}
        }
    }

    /// Test `i` begins: the time left is its plan and every later test's, at the pace
    /// measured so far.
    pub fn test_begins(&mut self, ex: &mut Executor<'_>, i: usize) {
        self.current = i;
        if self.doc.estimate_s.is_none() && ex.progress.pace.points >= PACE_AFTER {
            self.first_estimate(ex);
        }
        let t = self.timing(&ex.progress.pace);
        ex.progress.per_point = t.per_point;
        let planned = plan(&self.tests[i..], self.c, t);
        ex.progress.replan(ex.progress.done + expected(&planned));
        self.budgets.clear();
        self.doc.tests.push(TestPlan {
            name: self.tests[i].name().into(),
            planned_s: planned.first().map_or(0.0, |p| p.expected.as_secs_f64()),
            took_s: 0.0,
            points: ex.progress.pace.points,
        });
        self.test_began = Instant::now();
    }

    /// The test under way is over: what it took.
    pub fn test_ends(&mut self, ex: &Executor<'_>) {
        if let Some(t) = self.doc.tests.last_mut() {
            t.took_s = self.test_began.elapsed().as_secs_f64();
            t.points = ex.progress.pace.points - t.points;
        }
    }

    /// A round of the current test (or of its preconditioning loop, `what`) is over: `r` of
    /// at most `max`, `steady` or not, `why` not in words. The first round of the run plans
    /// the rest at the measured pace (said once). A loop steady before its expected rounds
    /// gives the rest back; one not steady at them grows the plan by a round, said with why;
    /// a series' rounds leave the plan as it is.
    pub fn round_ends(
        &mut self,
        ex: &mut Executor<'_>,
        (what, why): (&str, &str),
        (r, max): (usize, usize),
        steady: bool,
        round: Duration,
    ) {
        if self.doc.estimate_s.is_none() && ex.progress.pace.points >= PACE_AFTER {
            self.first_estimate(ex);
        }
        if self.series_round(what) {
            return;
        }
        let expected = expected_rounds(self.c).min(max as f64);
        let budget = self.budgets.entry(what.to_string()).or_insert(expected);
        let r = r as f64;
        if steady {
            // Steady: the rounds planned beyond this one are not run.
            if r < *budget {
                let back = round.mul_f64(*budget - r);
                ex.progress.replan(ex.progress.planned.saturating_sub(back));
                *budget = r;
            }
            return;
        }
        if r >= *budget && r < max as f64 {
            let grow = round.mul_f64(r + 1.0 - *budget);
            *budget = r + 1.0;
            ex.progress.replan(ex.progress.planned + grow);
            self.doc.grown_rounds += 1;
            self.say(
                ex,
                &format!(
                    "iolab pts: {what}: not steady after round {r} ({why}): round {} of at most \
                     {max} follows, the plan grows by {}",
                    r + 1.0,
                    clock(grow)
                ),
            );
        }
    }

    /// A series' rounds are planned as they are (its bytes or its rounds end it, never a
    /// steady state): they neither give back nor grow the plan.
    fn series_round(&self, what: &str) -> bool {
        self.tests.get(self.current).is_some_and(|t| {
            t.name() == what && matches!(t.rounds(self.c), crate::tests::Rounds::Series { .. })
        })
    }

    /// The time left planned at the pace the run measured in its first points, and said.
    fn first_estimate(&mut self, ex: &mut Executor<'_>) {
        let pace = ex.progress.pace;
        let t = self.timing(&pace);
        // The current test from where it stands (its plan less what is done of it), and
        // every test after it.
        let here = expected(&plan(&self.tests[self.current..], self.c, t));
        // The points done so far were counted free of cost (the assumed pace): counted now.
        let done = ex.progress.done + t.per_point * pace.points as u32;
        let done_here = done.saturating_sub(self.planned_before(self.current, t));
        let left = here.saturating_sub(done_here);
        let elapsed = self.began.elapsed();
        ex.progress.per_point = t.per_point;
        ex.progress.replan(ex.progress.done + left);
        self.doc.estimate_s = Some((elapsed + left).as_secs_f64());
        self.doc.estimated_after_s = elapsed.as_secs_f64();
        self.doc.write_rate = pace.write_rate();
        self.doc.per_point_ms = t.per_point.as_secs_f64() * 1e3;
        self.say(
            ex,
            &format!(
                "iolab pts: measured in the first {}: writes at {}, {:.0} ms a point beyond its \
                 running time: the run takes about {} in all (each test to steady state \
                 expected halfway between its first window and its last round; the live line \
                 follows the rounds as they come)",
                clock(elapsed),
                match pace.write_rate() {
                    Some(r) => format!("{:.0} MB/s", r / 1e6),
                    None => format!(
                        "{:.0} MB/s (assumed: nothing written yet)",
                        self.assumed.write_bytes_per_sec / 1e6
                    ),
                },
                self.doc.per_point_ms,
                clock(elapsed + left)
            ),
        );
    }

    /// The expected time of the tests before test `i` at timing `t` (none, for the first).
    fn planned_before(&self, i: usize, t: Timing) -> Duration {
        expected(&plan(&self.tests[..i], self.c, t))
    }

    /// The run is over: the plan as it was kept, and what the run took.
    pub fn finish(mut self) -> PlanDoc {
        self.doc.took_s = self.began.elapsed().as_secs_f64();
        self.doc
    }
}
