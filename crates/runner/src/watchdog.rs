//! A phase of time-based jobs that runs far past its planned end has I/O the kernel is not
//! completing: a device that stopped answering, or polled I/O the block layer split (on Linux
//! 6.1 that never completes, and the thread cannot be killed). Waiting for ever helps nobody.
//! The watchdog first stops the phase as a signal would: jobs that can still stop do, and
//! their figures are printed and kept with the watchdog's error. Jobs that do not stop within
//! [`LAST_WAIT`] are stuck in the kernel: it says so and ends the process, so a review or a
//! script sees a failure instead of a hang (the run is then marked crashed).
//!
//! Pauses (rate, thinktime) end at the runtime, so they never look like a hang.

use std::cell::Cell;
use std::time::{Duration, Instant};

use iolab_job::JobSpec;

use crate::PreparedJob;

/// Watches one phase from its start.
pub(crate) struct Watchdog {
    /// When to give up; `None` when the phase has no planned end (size-based jobs) or the
    /// caller asked for no watchdog.
    deadline: Option<Instant>,
    planned: Option<Duration>,
    grace: Duration,
    jobs: String,
    /// When it fired (stopped the phase), if it has.
    fired: Cell<Option<Instant>>,
}

/// How long jobs the watchdog stopped have to finish before the process gives up on them.
pub(crate) const LAST_WAIT: Duration = Duration::from_secs(10);

impl Watchdog {
    /// Starts watching `jobs` (the phase's), giving them `grace` past their planned end.
    pub(crate) fn start(jobs: &[&PreparedJob], grace: Option<Duration>) -> Watchdog {
        let planned = planned_end(jobs.iter().map(|j| &j.spec));
        // Job names are the user's text: no control character of theirs reaches the terminal.
        let mut names: Vec<String> = jobs
            .iter()
            .map(|j| {
                let shown = |c: char| match c.is_control() {
                    true => c.escape_default().to_string(),
                    false => c.to_string(),
                };
                j.spec.name.chars().map(shown).collect()
            })
            .collect();
        names.dedup();
        Watchdog {
            deadline: grace.zip(planned).map(|(g, p)| Instant::now() + p + g),
            planned,
            grace: grace.unwrap_or_default(),
            jobs: names.join("', '"),
            fired: Cell::new(None),
        }
    }

    /// Looks at the clock: past the deadline, stops the phase (once) with `stop`; past
    /// [`LAST_WAIT`] after that, gives up on the process.
    pub(crate) fn check(&self, stop: impl FnOnce()) {
        if !self.expired() {
            return;
        }
        match self.fired.get() {
            None => {
                eprintln!(
                    "\riolab: error: job '{}' should have ended after {} s and is still running \
                     {} s later; stopping it",
                    self.jobs,
                    self.planned.unwrap_or_default().as_secs(),
                    self.grace.as_secs()
                );
                self.fired.set(Some(Instant::now()));
                stop();
            }
            Some(at) if at.elapsed() >= LAST_WAIT => self.give_up(),
            Some(_) => {}
        }
    }

    /// The error the stopped jobs carry, when the watchdog fired.
    pub(crate) fn error_for(&self, job: &str) -> Option<crate::RunError> {
        self.fired.get().map(|_| crate::RunError::Watchdog {
            job: job.to_string(),
            planned_s: self.planned.unwrap_or_default().as_secs(),
            grace_s: self.grace.as_secs(),
        })
    }

    /// When the phase should end, from its start; `None` for size-based jobs.
    pub(crate) fn planned(&self) -> Option<Duration> {
        self.planned
    }

    /// Whether the phase is past its deadline.
    pub(crate) fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Says why, and ends the process with status 1.
    pub(crate) fn give_up(&self) -> ! {
        eprintln!(
            "\riolab: error: job '{}' did not stop {} s after the watchdog stopped it: its I/O \
             is not completing (device not answering, or polled I/O split by the block \
             layer); giving up",
            self.jobs,
            LAST_WAIT.as_secs()
        );
        // Ending without unwinding: what the command changed on a device (a write cache)
        // is put back first.
        iolab_sysinfo::undo::run_all();
        std::process::exit(1)
    }
}

/// The latest planned end of the phase: start delay, ramp and runtime (which bounds a job,
/// time-based or not); `None` when a job has no runtime (size-based: its time depends on
/// the device), ramps by bytes, ends with an fsync of everything it wrote (as long as the
/// device takes) or waits for another job.
pub(crate) fn planned_end<'a>(specs: impl Iterator<Item = &'a JobSpec>) -> Option<Duration> {
    specs
        .map(|s| {
            // A job that waits for another (wait_for) starts when that one ends: no fixed
            // end to plan for.
            // Nor does a ramp by bytes (ramp_size): it lasts as long as the device takes.
            let bounded = s
                .runtime
                .filter(|_| !s.end_fsync && s.wait_for.is_none() && s.ramp_bytes == 0);
            bounded.map(|r| s.start_delay + s.ramp_time + r)
        })
        .collect::<Option<Vec<Duration>>>()?
        .into_iter()
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(runtime: Option<u64>, ramp: u64) -> JobSpec {
        let mut s = JobSpec::new("j", "/tmp/f");
        s.runtime = runtime.map(Duration::from_secs);
        s.ramp_time = Duration::from_secs(ramp);
        s
    }

    #[test]
    fn the_planned_end_is_the_latest_jobs_and_none_for_size_based_jobs() {
        let a = spec(Some(10), 2);
        let b = spec(Some(3), 0);
        assert_eq!(
            planned_end([&a, &b].into_iter()),
            Some(Duration::from_secs(12))
        );
        let sized = spec(None, 0);
        assert_eq!(planned_end([&a, &sized].into_iter()), None);
        let mut synced = spec(Some(1), 0);
        synced.end_fsync = true;
        assert_eq!(planned_end([&synced].into_iter()), None);
    }

    #[test]
    fn it_expires_only_past_the_planned_end_plus_grace() {
        let w = Watchdog {
            deadline: Some(Instant::now() - Duration::from_millis(1)),
            planned: Some(Duration::ZERO),
            grace: Duration::ZERO,
            jobs: "j".into(),
            fired: Cell::new(None),
        };
        assert!(w.expired());
        // Past the deadline it stops the phase once, and the jobs then carry its error.
        assert!(w.error_for("j").is_none());
        let stops = Cell::new(0);
        w.check(|| stops.set(stops.get() + 1));
        w.check(|| stops.set(stops.get() + 1));
        assert_eq!(stops.get(), 1);
        let e = w.error_for("j").unwrap();
        assert_eq!(e.errno(), libc::ETIMEDOUT);
        assert!(e.to_string().contains("kept"), "{e}");
        let w = Watchdog {
            fired: Cell::new(None),
            ..w
        };
        let later = Watchdog {
            deadline: Some(Instant::now() + Duration::from_secs(60)),
            ..w
        };
        assert!(!later.expired());
        let never = Watchdog {
            deadline: None,
            ..later
        };
        assert!(!never.expired());
    }
}
