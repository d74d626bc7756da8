//! Whether I/O that asked to be polled was. `io_poll=1` says only that a disk *can* poll; the
//! kernel may still complete a `hipri` I/O by interrupt (it ignores RWF_HIPRI on synchronous
//! direct I/O since about 5.18). A poll queue has no interrupt vector, so the disk's interrupt
//! count over a phase, against the I/Os its jobs completed, tells what happened.

use std::collections::{BTreeMap, BTreeSet};

use iolab_results::JobReport;
use iolab_sysinfo::interrupts::{disk_irqs, read_interrupts, rise};

use crate::PreparedJob;

/// The interrupt lines of the disks under a phase's jobs, and their counts at its start.
pub(crate) struct IrqWatch {
    disks: Vec<(String, Vec<u32>)>,
    before: BTreeMap<u32, u64>,
}

/// The disks a job's files are on.
fn disks_of(job: &PreparedJob) -> BTreeSet<&str> {
    job.files()
        .filter_map(|(f, _)| f.disk_name.as_deref())
        .collect()
}

impl IrqWatch {
    /// Starts counting for `jobs` (the phase's jobs). Disks without interrupt lines of their
    /// own (zram, loop) are not watched.
    pub(crate) fn start<'a>(jobs: impl Iterator<Item = &'a PreparedJob>) -> IrqWatch {
        let names: BTreeSet<&str> = jobs.flat_map(disks_of).collect();
        let disks: Vec<(String, Vec<u32>)> = names
            .into_iter()
            .map(|d| (d.to_string(), disk_irqs(d)))
            .filter(|(_, irqs)| !irqs.is_empty())
            .collect();
        let before = if disks.is_empty() {
            BTreeMap::new()
        } else {
            read_interrupts().unwrap_or_default()
        };
        IrqWatch { disks, before }
    }

    /// Gives each report its disk's interrupt count over the phase and, where every job on
    /// that disk asked to be polled, judges whether it was. `jobs` is the whole run, indexed
    /// by each report's `job_index`.
    pub(crate) fn finish(self, jobs: &[PreparedJob], reports: &mut [JobReport]) {
        if self.disks.is_empty() {
            return;
        }
        let Ok(after) = read_interrupts() else {
            return;
        };
        for (disk, irqs) in &self.disks {
            let count = rise(irqs, &self.before, &after);
            let on_disk = |r: &JobReport| disks_of(&jobs[r.job_index]).contains(disk.as_str());
            let polled = |r: &JobReport| jobs[r.job_index].spec.engine.asks_polling();
            let mut sharing: Vec<&mut JobReport> =
                reports.iter_mut().filter(|r| on_disk(r)).collect();
            for r in sharing.iter_mut() {
                r.device_interrupts = Some(count);
            }
            // Another job's interrupts would be taken for this one's: judge only alone.
            if sharing.iter().all(|r| polled(r)) {
                let ios: u64 = sharing.iter().map(|r| r.total_ios()).sum();
                let v = verdict(count, ios);
                for r in sharing {
                    let asked = format!("{} --hipri", jobs[r.job_index].spec.engine.kind);
                    let said = format!("{asked}: {disk} raised {count} interrupts for {ios} I/Os");
                    note(r, v, said);
                }
            }
        }
    }
}

/// What the count says of polled I/O.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    /// Under 5% of the I/Os raised an interrupt (or nothing was done).
    Polled,
    /// 5–50%: polled in part.
    Partly,
    /// About one interrupt per I/O or more: not polled at all.
    ByInterrupt,
}

/// Judges `count` interrupts against `ios` completed I/Os that asked for polling.
fn verdict(count: u64, ios: u64) -> Verdict {
    if ios == 0 || count * 20 < ios {
        Verdict::Polled
    } else if count * 2 >= ios {
        Verdict::ByInterrupt
    } else {
        Verdict::Partly
    }
}

/// Puts the verdict on the report: a note, and for I/O that did not poll at all, the
/// fallback that keeps it from being marked best. `said` names the path and the count.
fn note(r: &mut JobReport, v: Verdict, said: String) {
    match v {
        Verdict::Polled => {}
        Verdict::Partly => r
            .notes
            .push(format!("{said}: some completions were not polled")),
        Verdict::ByInterrupt => {
            let why = format!("{said}: the kernel completed them by interrupt, not by polling");
            r.notes.push(why.clone());
            r.fallback.get_or_insert(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_interrupt_per_io_is_not_polling_and_none_is() {
        assert_eq!(verdict(16387, 16384), Verdict::ByInterrupt);
        assert_eq!(verdict(0, 16384), Verdict::Polled);
        // The admin queue's odd interrupt does not count against a polled run.
        assert_eq!(verdict(3, 16384), Verdict::Polled);
        assert_eq!(verdict(2000, 16384), Verdict::Partly);
        assert_eq!(verdict(50, 0), Verdict::Polled);
    }
}
