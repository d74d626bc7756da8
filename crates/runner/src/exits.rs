//! fio's `exitall`: in a run where any job sets it, a job that ends stops others, as its
//! `exit_what` says (fio's `fio_terminate_threads()`). Each worker of a phase then watches a
//! flag of its own instead of the run's stop flag, so one group can be stopped alone; the
//! runner's thread passes a signal on to every flag.

use std::sync::atomic::{AtomicBool, Ordering};

use iolab_job::ExitWhat;

/// The phase's stop flags, one per worker, and the reporting group of each.
#[derive(Clone, Copy)]
pub(crate) struct ExitScope<'a> {
    pub flags: &'a [AtomicBool],
    pub groups: &'a [u32],
    /// Set by `exit_what=all`: no later phase starts.
    pub run_over: &'a AtomicBool,
    /// Any job's end stops others (`exitall` in the run); false: only a job that fails
    /// with `exitall_on_error`.
    pub on_any_end: bool,
}

impl ExitScope<'_> {
    /// Worker `me` ended: stop the workers `what` names.
    pub fn ended(&self, me: usize, what: ExitWhat) {
        for (n, flag) in self.flags.iter().enumerate() {
            let hit = match what {
                ExitWhat::Group => self.groups[n] == self.groups[me],
                ExitWhat::Stonewall | ExitWhat::All => true,
            };
            if hit {
                flag.store(true, Ordering::Relaxed);
            }
        }
        if what == ExitWhat::All {
            self.run_over.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stopped(what: ExitWhat) -> (Vec<bool>, bool) {
        let flags: Vec<AtomicBool> = (0..4).map(|_| AtomicBool::new(false)).collect();
        let run_over = AtomicBool::new(false);
        let scope = ExitScope {
            on_any_end: true,
            flags: &flags,
            groups: &[0, 0, 1, 1],
            run_over: &run_over,
        };
        scope.ended(2, what);
        let f = flags.iter().map(|f| f.load(Ordering::Relaxed)).collect();
        (f, run_over.load(Ordering::Relaxed))
    }

    #[test]
    fn group_stops_the_group_stonewall_the_phase_all_the_run() {
        assert_eq!(
            stopped(ExitWhat::Group),
            (vec![false, false, true, true], false)
        );
        assert_eq!(stopped(ExitWhat::Stonewall), (vec![true; 4], false));
        assert_eq!(stopped(ExitWhat::All), (vec![true; 4], true));
    }
}
