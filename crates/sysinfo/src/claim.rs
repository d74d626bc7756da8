//! In use means in use: a block device iolab writes, trims, formats or purges is claimed
//! exclusively (`O_EXCL`) first, and kept claimed while iolab works on it. The kernel refuses
//! the claim (EBUSY) while anyone else holds one (a mounted filesystem, LVM, md, ZFS, btrfs
//! and bcache all claim their devices), and while iolab holds it nobody can mount or claim
//! the device under it.
//!
//! A second `O_EXCL` open of the same device fails even in the same process, so the claims
//! live in one registry per process: whoever claims a device already claimed (a command that
//! holds its target from its checks to its end, then each job it runs, then the purge between
//! them) shares the one claim. The registry keeps no claim alive by itself: a claim ends when
//! the last holder drops it (the review's own RAM device is removed after its step).

use std::fs::File;
use std::sync::{Arc, Mutex, Weak};

use crate::guard::Identity;
use crate::{Pin, PinError};

/// Every live claim of this process, by device.
static HELD: Mutex<Vec<(Identity, Weak<File>)>> = Mutex::new(Vec::new());

/// An exclusive claim on the block device `pin` checked, opened through the pin (its
/// identity compared on the descriptor); the claim already held by this process when there
/// is one. Hold the `Arc` for as long as the device must stay claimed.
pub fn exclusive(pin: &Pin) -> Result<Arc<File>, PinError> {
    let id = pin.identity.ok_or(PinError::Changed)?;
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.retain(|(_, w)| w.strong_count() > 0);
    if let Some(live) = held
        .iter()
        .filter(|(i, _)| *i == id)
        .find_map(|(_, w)| w.upgrade())
    {
        return Ok(live);
    }
    let claim = Arc::new(pin.open(libc::O_RDONLY | libc::O_EXCL)?);
    held.push((id, Arc::downgrade(&claim)));
    Ok(claim)
}

/// Whether this process holds a claim on the device `id` now.
pub fn held(id: Identity) -> bool {
    let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.iter().any(|(i, w)| *i == id && w.strong_count() > 0)
}

/// Why a claim failed, in the user's words, with the holders sysfs names. `device` is the
/// (major, minor) of the device, `flag` what gives consent (which does not override this).
pub fn refusal(e: &PinError, device: (u32, u32), flag: &str) -> String {
    match e {
        PinError::Io(io) if io.raw_os_error() == Some(libc::EBUSY) => format!(
            "it is in use: another process holds it exclusively (a mounted filesystem, LVM, \
             md, ZFS, btrfs or bcache claim their devices so{}); {flag} does not override this",
            crate::safety::holders(device)
                .map(|h| format!("; holders: {h}"))
                .unwrap_or_default()
        ),
        other => format!("cannot claim it for writing: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim is shared inside the process and ends with its last holder. On a regular file
    /// O_EXCL without O_CREAT is a plain open, so this checks the registry, not the kernel.
    #[test]
    fn one_claim_per_device_shared_and_dropped_with_its_last_holder() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let pin = Pin::existing(&f).unwrap();
        let id = pin.identity.unwrap();
        let a = exclusive(&pin).unwrap();
        let b = exclusive(&pin).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "the second claim is the first");
        assert!(held(id));
        drop(a);
        assert!(held(id));
        drop(b);
        assert!(!held(id), "nobody holds it any more");
    }
}
