//! In use means in use: a block device a job writes is claimed exclusively (`O_EXCL`) from
//! the check to the end of the run. The kernel refuses the claim (EBUSY) while anyone else
//! holds one (a mounted filesystem, LVM, md, ZFS, btrfs, bcache all claim their devices),
//! and while iolab holds it nobody can mount or claim the device under the run.
//!
//! One claim per device for the whole process, shared by every job that writes it and by the
//! command that holds it (`iolab_sysinfo::claim`): a second `O_EXCL` open of the same device
//! fails even in the same process.

use iolab_sysinfo::{SafetyError, TargetKind};

use crate::{PreparedJob, RunError};

/// Claims every block device a job writes (data or trims), once each: the process's one
/// claim on each device (`iolab_sysinfo::claim`), shared with the command that may hold it
/// already.
pub(crate) fn claim_written_devices(jobs: &mut [PreparedJob]) -> Result<(), RunError> {
    for job in jobs.iter_mut() {
        if !job.spec.writes_data() || job.spec.engine.kind.def().accepts.nothing() {
            continue;
        }
        let devices: Vec<_> = job
            .files()
            .zip(&job.pins)
            .filter(|((f, _), _)| f.kind == TargetKind::BlockDevice)
            .map(|((f, _), p)| (f.path.clone(), f.device, p.clone()))
            .collect();
        for (path, device, pin) in devices {
            if pin.identity.is_none() {
                continue;
            }
            let claim = iolab_sysinfo::claim::exclusive(&pin).map_err(|e| RunError::Safety {
                job: job.spec.name.clone(),
                source: SafetyError {
                    reason: iolab_sysinfo::claim::refusal(&e, device, "--allow-destroy"),
                    path,
                },
            })?;
            if !job.claims.iter().any(|c| std::sync::Arc::ptr_eq(c, &claim)) {
                job.claims.push(claim);
            }
        }
    }
    Ok(())
}
