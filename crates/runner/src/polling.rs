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
                if let Some(v) = verdict(disk, count, ios) {
                    for r in sharing {
                        let asked = format!("{} --hipri", jobs[r.job_index].spec.engine.kind);
                        r.apply(&v, &asked);
                    }
                }
            }
        }
    }
}

/// What the count says of polled I/O.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// About one interrupt per I/O or more: not polled at all.
    ByInterrupt { disk: String, count: u64, ios: u64 },
    /// Some completions by interrupt (at least 5%): polled in part.
    Partly { disk: String, count: u64, ios: u64 },
}

/// Judges `count` interrupts from `disk` against `ios` completed I/Os that asked for polling;
/// `None` when it polled (under 5% of the I/Os raised an interrupt) or did nothing.
fn verdict(disk: &str, count: u64, ios: u64) -> Option<Verdict> {
    let disk = disk.to_string();
    if ios == 0 || count * 20 < ios {
        None
    } else if count * 2 >= ios {
        Some(Verdict::ByInterrupt { disk, count, ios })
    } else {
        Some(Verdict::Partly { disk, count, ios })
    }
}

trait ApplyVerdict {
    fn apply(&mut self, v: &Verdict, label: &str);
}

impl ApplyVerdict for JobReport {
    fn apply(&mut self, v: &Verdict, label: &str) {
        match v {
            Verdict::ByInterrupt { disk, count, ios } => {
                let why = format!(
                    "{label}: {disk} raised {count} interrupts for {ios} I/Os: the kernel \
                     completed them by interrupt, not by polling"
                );
                self.notes.push(why.clone());
                self.fallback.get_or_insert(why);
            }
            Verdict::Partly { disk, count, ios } => self.notes.push(format!(
                "{label}: {disk} raised {count} interrupts for {ios} I/Os: some completions \
                 were not polled"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_interrupt_per_io_is_not_polling_and_none_is() {
        assert!(matches!(
            verdict("nvme0n1", 16387, 16384),
            Some(Verdict::ByInterrupt { .. })
        ));
        assert_eq!(verdict("nvme0n1", 0, 16384), None);
        // The admin queue's odd interrupt does not count against a polled run.
        assert_eq!(verdict("nvme0n1", 3, 16384), None);
        assert!(matches!(
            verdict("nvme0n1", 2000, 16384),
            Some(Verdict::Partly { .. })
        ));
        assert_eq!(verdict("nvme0n1", 50, 0), None);
    }
}
