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
            line,
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
