//! The review's one progress line on stderr: step, point, live IOPS (or a bar with MB/s for
//! size-bound points like the precondition passes), and the time left by the review's plan.
//! Redrawn from a separate thread a few times a second while a point runs (the workers only
//! add to shared counters once per sample interval), through the runner's `ProgressLine`
//! (indicatif), which draws only on a terminal.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iolab_runner::progress::ProgressLine;
use iolab_runner::LiveCounters;

pub use iolab_runner::progress::clock_time;

/// What the points run so far took on this machine: their wall time from set-up to saved
/// result, the part of it spent doing I/O, and the bytes written: the pace a plan made before
/// the run can only assume, measured.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pace {
    pub points: usize,
    pub wall: Duration,
    pub running: Duration,
    /// Bytes written, and the running time of the points that wrote them.
    pub written: u64,
    pub writing: Duration,
}

impl Pace {
    /// One point: `wall` from its set-up to its result saved, `running` its I/O's runtime,
    /// `written` its bytes written.
    pub fn note(&mut self, wall: Duration, running: Duration, written: u64) {
        self.points += 1;
        self.wall += wall;
        self.running += running;
        if written > 0 {
            self.written += written;
            self.writing += running;
        }
    }

    /// The time a point costs beyond its running time (opening, laying out, threads, saving
    /// the result), on average.
    pub fn per_point(&self) -> Duration {
        match self.points {
            0 => Duration::ZERO,
            n => self.wall.saturating_sub(self.running) / n as u32,
        }
    }

    /// Bytes written per second while writing; `None` before any write.
    pub fn write_rate(&self) -> Option<f64> {
        (self.written > 0 && !self.writing.is_zero())
            .then(|| self.written as f64 / self.writing.as_secs_f64())
    }
}

/// The suite's plan and how far it has got.
#[derive(Debug)]
pub struct Progress {
    pub enabled: bool,
    /// Planned seconds of the whole review, and of the points already run.
    pub planned: Duration,
    pub done: Duration,
    pub started: Instant,
    /// `[3/9 qd1-engines]`
    pub step: String,
    pub step_points: usize,
    pub step_done: usize,
    /// The points' measured pace so far.
    pub pace: Pace,
    /// Counted into `done` with every point: its measured cost beyond its running time, so
    /// that a plan which includes it counts down at the rate the run goes.
    pub per_point: Duration,
    line: ProgressLine,
}

impl Progress {
    /// The review's progress; `enabled` false (`--quiet`) never draws, and neither does a
    /// stderr that is not a terminal.
    pub fn new(enabled: bool, planned: Duration) -> Progress {
        let line = ProgressLine::new(enabled);
        line.set_plan(Some(planned));
        Progress {
            enabled: enabled && !line.is_hidden(),
            planned,
            done: Duration::ZERO,
            started: Instant::now(),
            step: String::new(),
            step_points: 0,
            step_done: 0,
            pace: Pace::default(),
            per_point: Duration::ZERO,
            line,
        }
    }

    /// A new whole plan (a re-estimate from what the run measured): the time left is
    /// `planned` less what is done.
    pub fn replan(&mut self, planned: Duration) {
        self.planned = planned;
        self.line.set_plan(Some(planned));
    }

    /// A line above the progress line (a re-estimate and its reason).
    pub fn say_above(&self, text: &str) {
        if self.enabled {
            self.line.say_above(text);
        }
    }

    /// Says `msg` on the line for the point about to run (laying out its files).
    pub fn say(&self, msg: &str) {
        self.line.set_prefix(self.prefix());
        self.line.draw_at(msg, self.done);
    }

    fn prefix(&self) -> String {
        format!(
            "{} {}/{}",
            self.step,
            (self.step_done + 1).min(self.step_points.max(1)),
            self.step_points
        )
    }

    /// Redraws the line until `stop` is set. `point_planned` is the point's planned time;
    /// `total_bytes` makes it a bar (size-bound points).
    pub fn draw_until(
        &self,
        stop: &AtomicBool,
        label: &str,
        live: &LiveCounters,
        point_planned: Duration,
        total_bytes: Option<u64>,
    ) {
        let begun = Instant::now();
        let mut meter = iolab_runner::RateMeter::new(Duration::from_secs(1));
        self.line.set_prefix(self.prefix());
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(250));
            let r = meter.look(live);
            let bytes: u64 = r.totals.iter().map(|t| t.1).sum();
            let body = match total_bytes {
                Some(t) if t > 0 => {
                    let f = (bytes as f64 / t as f64).min(1.0);
                    format!(
                        "{label} [{:<20}] {:>3.0}% {}",
                        "#".repeat((f * 20.0) as usize),
                        f * 100.0,
                        iolab_report::format::eta_figures(&r.iops, &r.bytes_per_sec)
                    )
                }
                // Nothing is counted during the ramp (and before the first 500 ms sample).
                _ if !r.measured || bytes == 0 => format!("{label} warming up"),
                _ => format!(
                    "{label} {}",
                    iolab_report::format::eta_figures(&r.iops, &r.bytes_per_sec)
                ),
            };
            let in_point = begun.elapsed().min(point_planned);
            self.line.draw_at(body, self.done + in_point);
        }
        self.line.clear();
    }

    /// A finished point's figures, on a line of their own above the progress line, as
    /// fio prints each job's results when it ends: per job and direction, IOPS, bandwidth
    /// and the completion latency's mean and 99th percentile.
    pub fn point_done(&self, label: &str, outcome: &iolab_results::RunOutcome) {
        if !self.enabled {
            return;
        }
        let us = |ticks: f64| outcome.clock.ticks_to_ns(ticks.round() as u64) / 1e3;
        let mut parts = Vec::new();
        for job in &outcome.jobs {
            for d in iolab_results::Direction::ALL {
                let Some(r) = job.dir(d).filter(|r| r.ios > 0) else {
                    continue;
                };
                let summary = r.clat.summarize(&outcome.clock, &[]);
                parts.push(format!(
                    "{} {} IOPS {}, clat mean {:.1} µs p99 {:.1} µs",
                    d.name(),
                    iolab_report::format::num2str(
                        job.iops(d).round() as u64,
                        4,
                        1,
                        false,
                        iolab_report::format::Unit::None
                    ),
                    iolab_report::format::num2str(
                        job.bw_bytes_per_sec(d).round() as u64,
                        4,
                        1,
                        true,
                        iolab_report::format::Unit::BytePerSec
                    ),
                    summary.mean_ns / 1e3,
                    us(r.clat.percentile_ticks(99.0) as f64),
                ));
            }
        }
        if !parts.is_empty() {
            // Called once the point is counted done: its own number is step_done.
            let at = format!("{} {}/{}", self.step, self.step_done, self.step_points);
            self.line
                .say_above(&format!("{at} {label}: {}", parts.join("; ")));
        }
    }

    /// Takes the line off the terminal (before a step's table is printed).
    pub fn clear(&self) {
        self.line.clear();
    }
}
