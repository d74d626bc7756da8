//! The plan kept while the run goes. Before the first I/O the plan can only assume the
//! machine's pace (writes at 1 GB/s or `--rate`, points free of cost); once the first round
//! is done the run has measured both, and the time left is planned again from the same
//! durations the run uses at that pace: said once, and kept on the live line. A test whose
//! rounds run past the first window that could be steady grows the plan a round at a time,
//! saying why (the window that was not steady), so a long run is never a silent one.

use std::time::{Duration, Instant};

use iolab_results::pts::PlanDoc;
use iolab_suite::exec::Executor;
use iolab_suite::progress::Pace;

use crate::config::Config;
use crate::plan::{clock, plan, total, Timing};
use crate::tests::PtsTest;

/// Points measured before their pace stands for the run's.
const PACE_AFTER: usize = 3;

/// The run's plan as it is kept.
pub struct Estimate<'a> {
    tests: &'a [&'static dyn PtsTest],
    c: &'a Config,
    assumed: Timing,
    began: Instant,
    /// The test under way.
    current: usize,
    /// Said on stderr besides the live line (not `--quiet`).
    loud: bool,
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
        let (least, most) = total(&plan(tests, c, assumed));
        Estimate {
            tests,
            c,
            assumed,
            began: Instant::now(),
            current: 0,
            loud,
            doc: PlanDoc {
                assumed_s: [least.as_secs_f64(), most.as_secs_f64()],
                assumed_write_rate: assumed.write_bytes_per_sec,
                ..PlanDoc::default()
            },
        }
    }

    /// The shortest the run can take at the assumed pace (the live line's first plan).
    pub fn least(&self) -> Duration {
        Duration::from_secs_f64(self.doc.assumed_s[0])
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
        let left = total(&plan(&self.tests[i..], self.c, t)).0;
        ex.progress.replan(ex.progress.done + left);
    }

    /// A round of the current test (or of its preconditioning loop, `what`) is over: `r` of
    /// at most `max`, `steady` or not, `why` not in words. The first round of the run
    /// plans the rest at the measured pace (said once); a round past the first window that
    /// could be steady, and not steady, grows the plan by one round.
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
        if !steady && r >= self.c.rule.window && r < max {
            let grown = ex.progress.planned + round;
            ex.progress.replan(grown);
            self.doc.grown_rounds += 1;
            self.say(
                ex,
                &format!(
                    "iolab pts: {what}: not steady after round {r} ({why}): round {} of at most \
                     {max} follows, the plan grows by {}",
                    r + 1,
                    clock(round)
                ),
            );
        }
    }

    /// The time left planned at the pace the run measured in its first points, and said.
    fn first_estimate(&mut self, ex: &mut Executor<'_>) {
        let pace = ex.progress.pace;
        let t = self.timing(&pace);
        // The current test from where it stands (its plan less what is done of it), and
        // every test after it.
        let here = total(&plan(&self.tests[self.current..], self.c, t)).0;
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
                 running time: the run takes about {} in all (each test stopping at its first \
                 steady window; every round past one adds to it, said as it comes)",
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

    /// The planned time of the tests before test `i` at timing `t` (none, for the first).
    fn planned_before(&self, i: usize, t: Timing) -> Duration {
        total(&plan(&self.tests[..i], self.c, t)).0
    }

    /// The run is over: the plan as it was kept, and what the run took.
    pub fn finish(mut self) -> PlanDoc {
        self.doc.took_s = self.began.elapsed().as_secs_f64();
        self.doc
    }
}
