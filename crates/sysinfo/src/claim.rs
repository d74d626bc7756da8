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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::guard::Identity;
use crate::{Pin, PinError, SafetyError, TargetFacts, TargetKind};

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

/// The targets this process claimed, by the name the user gave, with their anchored pins.
static CLAIMED: Mutex<Vec<(PathBuf, Pin)>> = Mutex::new(Vec::new());

/// The claim's pin when the command claimed `named` (the very name it was given): every
/// later pin of that name is the claim's, so no step looks the name up again.
pub fn claimed(named: &Path) -> Option<Pin> {
    let all = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().find(|(n, _)| n == named).map(|(_, p)| p.clone())
}

/// One target of a command, claimed before any other work: opened once (no symlink
/// followed; created `O_CREAT|O_EXCL` when new; a block device also held `O_EXCL`), judged
/// by what it is, and held to the end. Consent is given to the claimed object; every later
/// step (checks, purge, preconditioning, the jobs, the device settings) works on it through
/// its pin, which reopens the held object whatever the name leads to by then.
#[derive(Debug)]
pub struct Claim {
    named: PathBuf,
    pin: Pin,
    facts: TargetFacts,
    /// iolab made the file for this command (removed again, empty, unless [`Claim::keep`]).
    created: bool,
    kept: std::sync::atomic::AtomicBool,
    _exclusive: Option<Arc<File>>,
}

impl Claim {
    /// Claims `named`: an existing file or block device, or with `create` a new regular
    /// file made empty now (never in /dev, never on a pseudo filesystem). With `write`, a
    /// block device is held `O_EXCL` (a command that only reads may read a mounted one).
    /// `protected` are the places it must not be (the results database, whose SQLite
    /// companions count too), by place before the claim and by identity after it. `flag` is
    /// what gives consent.
    pub fn take(
        named: &Path,
        create: bool,
        write: bool,
        protected: &[&Path],
        flag: &str,
    ) -> Result<Claim, ClaimError> {
        let refuse = |reason: String| SafetyError {
            path: named.to_path_buf(),
            reason,
        };
        crate::storage::check_storage_path(named)?;
        crate::guard::refuse_protected(named, protected)?;
        let exists = std::fs::symlink_metadata(named).is_ok() && named.exists();
        let (pin, created) = match (exists, create) {
            (true, _) => {
                let pin = Pin::existing(named)
                    .and_then(Pin::anchored)
                    .map_err(|e| refuse(e.to_string()))?;
                (pin, false)
            }
            (false, true) => (create_new(named).map_err(|e| refuse(e.to_string()))?, true),
            (false, false) => return Err(ClaimError::Missing(named.to_path_buf())),
        };
        let facts = crate::target::probe_pin(&pin, named).map_err(|e| refuse(e.to_string()))?;
        let exclusive = match facts.kind {
            TargetKind::BlockDevice if write => {
                Some(exclusive(&pin).map_err(|e| refuse(refusal(&e, facts.device, flag)))?)
            }
            _ => None,
        };
        let claim = Claim {
            named: named.to_path_buf(),
            pin,
            facts,
            created,
            kept: std::sync::atomic::AtomicBool::new(false),
            _exclusive: exclusive,
        };
        // Now that it is open: by identity, what no name can hide (a hard link, a bind mount).
        crate::guard::refuse_protected(named, protected)?;
        let mut all = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|(n, _)| n != named);
        all.push((claim.named.clone(), claim.pin.clone()));
        Ok(claim)
    }

    /// The claimed object's pin (anchored: opens reopen the object).
    pub fn pin(&self) -> &Pin {
        &self.pin
    }

    /// Facts read from the claimed descriptor, named as the user named it.
    pub fn facts(&self) -> &TargetFacts {
        &self.facts
    }

    /// The name the user gave.
    pub fn named(&self) -> &Path {
        &self.named
    }

    /// Whether iolab made the file for this command.
    pub fn created(&self) -> bool {
        self.created
    }

    /// Refuses when the user's name no longer leads to the claimed object (a symlink or a
    /// hard link renamed over it since the claim): the command works on what it claimed
    /// whatever the name says, but a name that now means another object is said before the
    /// first write, naming both.
    pub fn check_name(&self) -> Result<(), SafetyError> {
        let now = std::fs::metadata(&self.named)
            .ok()
            .map(|m| Identity::of(&m));
        if now == self.pin.identity {
            return Ok(());
        }
        let other = match std::fs::read_link(&self.named) {
            Ok(to) => format!("a symbolic link to {}", to.display()),
            Err(_) if now.is_none() => "nothing".to_string(),
            Err(_) => "another file".to_string(),
        };
        Err(SafetyError {
            path: self.named.clone(),
            reason: format!(
                "the name now leads to {other}, not to {} that iolab claimed for this run; \
                 nothing was written",
                self.pin.resolved.display()
            ),
        })
    }

    /// The command went ahead with the target: a file it made stays when the claim ends.
    pub fn keep(&self) {
        self.kept.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut all = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|(n, _)| n != &self.named);
        drop(all);
        // A file made for a command that then refused: removed, if the name still leads to
        // it and it is still empty (nothing else took the name or wrote it).
        if self.created && !self.kept.load(std::sync::atomic::Ordering::Relaxed) {
            let empty = self
                .pin
                .open(libc::O_RDONLY)
                .is_ok_and(|f| f.metadata().is_ok_and(|m| m.len() == 0));
            if empty && self.pin.still_there() {
                let _ = std::fs::remove_file(&self.pin.resolved);
            }
        }
    }
}

/// Why a target could not be claimed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error(transparent)]
    Safety(#[from] SafetyError),
    #[error("{}: no such file or device (give --size to have iolab create a file there)", .0.display())]
    Missing(PathBuf),
}

/// Creates the missing file `named` exclusively where it resolves (a dangling link's target,
/// never through the link), marked as iolab's, and pins what was made.
fn create_new(named: &Path) -> Result<Pin, PinError> {
    let pin = Pin::new_file(named)?;
    crate::storage::check_storage_path(&pin.resolved)
        .map_err(|e| PinError::Io(std::io::Error::other(e.reason)))?;
    let mut made = pin.clone();
    let file = made.create(libc::O_RDONLY)?;
    crate::guard::mark_created(&file);
    Pin::of_created(made.resolved.clone(), &file)
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

#[cfg(test)]
mod claim_tests {
    use super::*;

    /// A new file is made at once, empty, and every later pin of its name is the claim's,
    /// opening the claimed file even after the name is swapped; unkept, it goes with the
    /// claim; the database's place is refused before anything is made.
    #[test]
    fn a_claim_makes_holds_and_judges_the_object_not_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        let new = dir.path().join("new");
        let claim = Claim::take(&new, true, true, &[&db], "--allow-destroy").unwrap();
        assert!(claim.created());
        assert_eq!(claim.facts().size_bytes, 0);
        assert_eq!(Pin::any(&new).unwrap(), *claim.pin());
        claim.check_name().unwrap();
        // The name swapped for another file: opens still reach the claimed one, and the
        // swap is said.
        let other = dir.path().join("other");
        std::fs::write(&other, b"users").unwrap();
        std::fs::rename(&other, &new).unwrap();
        let e = claim.check_name().unwrap_err();
        assert!(
            e.reason.contains("the name now leads to another file"),
            "{e}"
        );
        let opened = Pin::any(&new).unwrap().open(libc::O_RDONLY).unwrap();
        assert_eq!(
            opened.metadata().unwrap().len(),
            0,
            "the claimed file, not the user's"
        );
        drop(claim);
        assert_eq!(
            std::fs::read(&new).unwrap(),
            b"users",
            "the user's file stays"
        );
        // Unkept and untouched: a file the claim made is removed with it.
        let made = dir.path().join("made");
        drop(Claim::take(&made, true, true, &[], "--allow-destroy").unwrap());
        assert!(!made.exists());
        // The database's WAL, by place, before it exists.
        let wal = dir.path().join("r.db-wal");
        let e = Claim::take(&wal, true, true, &[&db], "--allow-destroy").unwrap_err();
        assert!(e.to_string().contains("r.db-wal"), "{e}");
        assert!(!wal.exists());
        // Missing and not to be made: said as missing, not as a refusal to write.
        let e = Claim::take(&dir.path().join("no"), false, false, &[], "x").unwrap_err();
        assert!(matches!(e, ClaimError::Missing(_)), "{e}");
    }
}
