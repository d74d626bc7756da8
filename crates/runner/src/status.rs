//! fio's `--status-interval`: the whole results so far, every so often, while the jobs run.
//! The runner's own thread asks (a generation number); each worker answers from its cold
//! path (where it publishes its live totals, ten times a second) with a copy of what it has
//! measured; once every running worker has answered, or a moment has passed, the copies
//! become a [`RunOutcome`] with the reports of the phases already over, and the caller
//! prints it. Nothing on the hot path: a worker looks at one atomic a tenth of a second.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use iolab_results::{JobReport, RunOutcome, Timebase};

use crate::worker::WorkerResult;

/// What prints an interim status (on the runner's own thread, so it may hold the output).
#[derive(Clone, Copy)]
pub struct StatusPrint<'a>(pub &'a dyn Fn(&RunOutcome));

impl std::fmt::Debug for StatusPrint<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusPrint")
    }
}

/// Where interim results are asked for and gathered (shared with the workers).
#[derive(Debug)]
pub struct StatusBoard {
    every: Duration,
    wanted: AtomicU64,
    /// The current phase's answers, by worker.
    answers: Mutex<Vec<Option<WorkerResult>>>,
    /// The reports of the phases over.
    done: Mutex<Vec<JobReport>>,
}

impl StatusBoard {
    /// Results every `every`.
    pub fn new(every: Duration) -> StatusBoard {
        StatusBoard {
            every,
            wanted: AtomicU64::new(0),
            answers: Mutex::new(Vec::new()),
            done: Mutex::new(Vec::new()),
        }
    }

    /// The generation asked for now (a worker answers each once).
    pub(crate) fn wanted(&self) -> u64 {
        self.wanted.load(Ordering::Relaxed)
    }

    /// Worker `n`'s answer.
    pub(crate) fn answer(&self, n: usize, r: WorkerResult) {
        let mut a = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = a.get_mut(n) {
            *slot = Some(r);
        }
    }

    /// A phase is over: its reports join every later status.
    pub(crate) fn phase_over(&self, reports: &[JobReport]) {
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        d.extend(reports.iter().cloned());
    }
}

/// The runner's side while a phase runs: when to ask, and gathering the answers.
pub(crate) struct StatusWait<'a> {
    board: &'a StatusBoard,
    print: StatusPrint<'a>,
    next: Instant,
    asked: Option<Instant>,
    clock: Timebase,
    started: SystemTime,
}

/// How long the runner waits for every worker's answer before printing what it has.
const ANSWER_WAIT: Duration = Duration::from_millis(400);

impl<'a> StatusWait<'a> {
    pub fn new(
        board: &'a StatusBoard,
        print: StatusPrint<'a>,
        clock: Timebase,
        started: SystemTime,
    ) -> Self {
        StatusWait {
            board,
            print,
            next: Instant::now() + board.every,
            asked: None,
            clock,
            started,
        }
    }

    /// Asks when due; prints once the `workers` still running have answered. `finished(n)`:
    /// worker `n` is done (it will not answer); `report(n, r)`: its answer as a report;
    /// `merge` puts a report among the others as the run's reports are put.
    pub fn tick(
        &mut self,
        workers: usize,
        finished: impl Fn(usize) -> bool,
        report: impl Fn(usize, WorkerResult) -> JobReport,
        merge: impl Fn(&mut Vec<JobReport>, JobReport),
    ) {
        let now = Instant::now();
        let Some(asked) = self.asked else {
            if now >= self.next {
                *self.board.answers.lock().unwrap_or_else(|e| e.into_inner()) =
                    (0..workers).map(|_| None).collect();
                self.board.wanted.fetch_add(1, Ordering::Relaxed);
                self.asked = Some(now);
                self.next += self.board.every;
            }
            return;
        };
        let answers =
            std::mem::take(&mut *self.board.answers.lock().unwrap_or_else(|e| e.into_inner()));
        let all = (0..workers).all(|n| finished(n) || answers.get(n).is_some_and(Option::is_some));
        if !all && asked.elapsed() < ANSWER_WAIT {
            *self.board.answers.lock().unwrap_or_else(|e| e.into_inner()) = answers;
            return;
        }
        self.asked = None;
        let mut jobs = self
            .board
            .done
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for (n, a) in answers.into_iter().enumerate() {
            if let Some(r) = a {
                merge(&mut jobs, report(n, r));
            }
        }
        (self.print.0)(&RunOutcome {
            jobs,
            disks: Vec::new(),
            clock: self.clock,
            started: self.started,
            interrupted: false,
            health: Vec::new(),
        });
    }
}
