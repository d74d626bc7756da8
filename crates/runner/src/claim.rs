//! In use means in use: a block device a job writes is claimed exclusively (`O_EXCL`) from
//! the check to the end of the run. The kernel refuses the claim (EBUSY) while anyone else
//! holds one (a mounted filesystem, LVM, md, ZFS, btrfs, bcache all claim their devices),
//! and while iolab holds it nobody can mount or claim the device under the run.
//!
//! One claim per device for the whole run, shared by every job that writes it: a second
//! `O_EXCL` open of the same device fails even in the same process.

use std::collections::HashMap;
use std::sync::Arc;

use iolab_sysinfo::guard::Identity;
use iolab_sysinfo::{PinError, SafetyError, TargetKind};

use crate::{PreparedJob, RunError};

/// Claims every block device a job writes (data or trims), once each.
pub(crate) fn claim_written_devices(jobs: &mut [PreparedJob]) -> Result<(), RunError> {
    let mut held: HashMap<Identity, Arc<std::fs::File>> = HashMap::new();
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
            let Some(id) = pin.identity else { continue };
            if let Some(c) = held.get(&id) {
                job.claims.push(c.clone());
                continue;
            }
            let claim = pin
                .open(libc::O_RDONLY | libc::O_EXCL)
                .map_err(|e| RunError::Safety {
                    job: job.spec.name.clone(),
                    source: SafetyError {
                        reason: refusal(&e, device),
                        path,
                    },
                })?;
            let claim = Arc::new(claim);
            held.insert(id, claim.clone());
            job.claims.push(claim);
        }
    }
    Ok(())
}

/// Why a claim failed, in the user's words, with the holders sysfs names.
fn refusal(e: &PinError, device: (u32, u32)) -> String {
    match e {
        PinError::Io(io) if io.raw_os_error() == Some(libc::EBUSY) => format!(
            "it is in use: another process holds it exclusively (a mounted filesystem, LVM, \
             md, ZFS, btrfs or bcache claim their devices so{}); --allow-destroy does not \
             override this",
            iolab_sysinfo::safety::holders(device)
                .map(|h| format!("; holders: {h}"))
                .unwrap_or_default()
        ),
        other => format!("cannot claim it for writing: {other}"),
    }
}
