//! The review's one progress line on stderr: step, point, live IOPS (or a bar with MB/s for
//! size-bound points like the precondition passes), and the suite's ETA from its plan.
//! Drawn from a separate thread a few times a second while a point runs; the workers only
//! add to shared counters once per sample interval. Off when stdout is not a terminal.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iolab_runner::LiveCounters;

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
}

impl Progress {
    pub fn new(enabled: bool, planned: Duration) -> Progress {
        Progress {
            enabled,
            planned,
            done: Duration::ZERO,
            started: Instant::now(),
            step: String::new(),
            step_points: 0,
            step_done: 0,
        }
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
        let mut last = (Instant::now(), 0u64, 0u64);
        let mut rate = (0.0f64, 0.0f64);
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(250));
            let (ios, bytes) = live.totals();
            let dt = last.0.elapsed().as_secs_f64();
            if ios != last.1 && dt > 0.0 {
                rate = ((ios - last.1) as f64 / dt, (bytes - last.2) as f64 / dt);
                last = (Instant::now(), ios, bytes);
            }
            let in_point = begun.elapsed().min(point_planned);
            let left = self
                .planned
                .saturating_sub(self.done + in_point)
                .max(Duration::ZERO);
            let body = match total_bytes {
                Some(t) if t > 0 => {
                    let f = (bytes as f64 / t as f64).min(1.0);
                    let eta = if rate.1 > 0.0 {
                        format!("{:.0}s", (t - bytes.min(t)) as f64 / rate.1)
                    } else {
                        "?".into()
                    };
                    format!(
                        "{label} [{:<20}] {:>3.0}% {:.0} MB/s, ETA {eta}",
                        "#".repeat((f * 20.0) as usize),
                        f * 100.0,
                        rate.1 / 1e6
                    )
                }
                // Nothing is counted during the ramp (and before the first 500 ms sample).
                _ if ios == 0 => format!("{label} warming up"),
                _ => format!("{label} {} IOPS", iolab_report::format::compact(rate.0)),
            };
            eprint!(
                "\r{} {}/{} {body} · review ETA {}\x1b[K",
                self.step,
                self.step_done + 1,
                self.step_points,
                clock_time(left)
            );
            let _ = std::io::stderr().flush();
        }
        eprint!("\r\x1b[K");
    }
}

/// `1h02m`, `4m05s`, `12s`.
pub fn clock_time(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_times() {
        assert_eq!(clock_time(Duration::from_secs(12)), "12s");
        assert_eq!(clock_time(Duration::from_secs(245)), "4m05s");
        assert_eq!(clock_time(Duration::from_secs(3720)), "1h02m");
    }
}
