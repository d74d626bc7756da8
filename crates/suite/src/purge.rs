//! Putting a target's blocks back to unwritten, before a review's preconditioning and each
//! PTS test: BLKDISCARD on a block device, a punched hole in a file, and for PTS an NVMe
//! namespace's Format NVM with a user-data erase first. Always on the claimed object, with
//! the user's consent for a device or an existing file. (The review's precondition step and
//! `iolab pts` share it; it belongs to neither.)

use std::os::fd::AsRawFd;

use iolab_report::format::bytes_binary;
use iolab_sysinfo::guard::{mark_created, remark};
use iolab_sysinfo::nvme;
use iolab_sysinfo::{check_target_write, probe, Pin, PinError, SafetyError, TargetKind};

/// `BLKDISCARD` = _IO(0x12, 119): discard a byte range [start, start + len).
const BLKDISCARD: u64 = 0x1277;

/// Deallocates `len` bytes from the start of a block device.
fn discard_device(pin: &Pin, len: u64) -> std::io::Result<()> {
    let f = pin.open(libc::O_WRONLY).map_err(io_error)?;
    let range: [u64; 2] = [0, len];
    // SAFETY: BLKDISCARD reads two u64 from the pointer; `range` outlives the call.
    if unsafe { libc::ioctl(f.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// An NVMe Format NVM done: what it erased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formatted {
    /// The line the purge says.
    pub text: String,
    /// The Secure Erase Setting the drive took: 1 user data erase, 2 cryptographic erase, 0
    /// none (the drive refused both; SNIA's PTS counts only an erase as a purge).
    pub ses: u8,
}

/// Format NVM on the namespace behind `pin` with a user data erase, else a cryptographic
/// erase, else none, decided on the opened descriptor (not an NVMe namespace: `None`).
/// `Some(Err)`: the drive or kernel refused it.
fn format_namespace(pin: &Pin) -> Option<Result<Formatted, String>> {
    let f = pin.open(libc::O_WRONLY).ok()?;
    let ns = nvme::identify(&f).ok()?;
    // A partition answers for its namespace, but the user named only the partition: a
    // Format would erase the others too.
    match is_partition(&f) {
        Ok(false) => {}
        Ok(true) => {
            return Some(Err(
                "the target is a partition; a Format erases the whole namespace".into(),
            ))
        }
        Err(e) => return Some(Err(format!("cannot tell whether it is a partition: {e}"))),
    }
    let how = |ses: u8| match ses {
        1 => "user data erase",
        2 => "cryptographic erase",
        _ => "no secure erase",
    };
    let mut last = None;
    for ses in [1u8, 2, 0] {
        match nvme::format_nvm(&f, &ns, ses) {
            Ok(()) => {
                return Some(Ok(Formatted {
                    text: format!(
                        "NVMe Format NVM of namespace {} ({}, LBA format {} kept)",
                        ns.nsid,
                        how(ses),
                        ns.format
                    ),
                    ses,
                }))
            }
            Err(e) => last = Some(e.to_string()),
        }
    }
    Some(Err(last.unwrap_or_default()))
}

/// Whether the opened block device is a partition (sysfs has `partition` for it).
fn is_partition(f: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let rdev = f.metadata()?.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    Ok(std::path::Path::new(&format!("/sys/dev/block/{major}:{minor}/partition")).exists())
}

/// A pinned open's refusal as an I/O error, for the step's note.
fn io_error(e: PinError) -> std::io::Error {
    match e {
        PinError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    }
}

/// Creates the file at `len` bytes if shorter (sparse, marked as iolab's when it creates it),
/// and punches a hole over it; always through what was checked (`pin`).
fn punch_file(pin: &mut Pin, len: u64) -> std::io::Result<()> {
    let created = pin.identity.is_none();
    let f = match created {
        true => pin.create(libc::O_WRONLY),
        false => pin.open(libc::O_WRONLY),
    }
    .map_err(io_error)?;
    if f.metadata()?.len() < len {
        f.set_len(len)?;
    }
    // SAFETY: plain syscall on an open fd.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            0,
            len as libc::off_t,
        )
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if created {
        mark_created(&f);
    } else {
        remark(&f);
    }
    Ok(())
}

/// What deallocating a target did.
#[derive(Debug, Clone)]
pub struct Deallocated {
    /// The bytes deallocated from the start of the target.
    pub region: u64,
    pub device: bool,
    /// An NVMe Format asked for on an NVMe namespace: what it erased (then no BLKDISCARD
    /// was needed), or why it was not done (BLKDISCARD was used instead).
    pub nvme_format: Option<Result<Formatted, String>>,
    /// `None`: done; the error otherwise (the writes that follow still fill the region).
    pub error: Option<String>,
}

impl Deallocated {
    /// One line: what was deallocated and how, or why it could not be.
    pub fn text(&self) -> String {
        match &self.nvme_format {
            Some(Ok(f)) => format!("purged by {}", f.text),
            Some(Err(why)) => format!("{}; {why}", self.discard_text()),
            None => self.discard_text(),
        }
    }

    fn discard_text(&self) -> String {
        match &self.error {
            None => format!(
                "deallocated {} ({})",
                bytes_binary(self.region as f64),
                if self.device {
                    "BLKDISCARD"
                } else {
                    "hole punched"
                }
            ),
            Some(e) => format!("could not deallocate ({e}); the writes still fill the region"),
        }
    }
}

/// Deallocates `size` bytes of `target` (its whole size when `None`): BLKDISCARD on a block
/// device, a punched hole in a file (created sparse when missing, and then the user's
/// consent covers it). Deallocating destroys what the target holds: a device or an existing
/// file needs the user's consent. `Err`: the reason it may not or cannot be touched.
pub fn deallocate(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
) -> Result<Deallocated, String> {
    clear(target, size, consent, false)
}

/// As [`deallocate`], but an NVMe namespace is first purged by Format NVM with a user data
/// erase (its format kept), as SNIA's PTS asks; BLKDISCARD when the drive or the kernel
/// refuses it. A Format erases the whole namespace, beyond `size`.
pub fn purge(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
) -> Result<Deallocated, String> {
    clear(target, size, consent, true)
}

fn clear(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
    try_format: bool,
) -> Result<Deallocated, String> {
    let mut pin = Pin::any(target).map_err(|e| format!("{}: {e}", target.display()))?;
    let existing = probe(&pin.resolved).ok();
    let device = existing
        .as_ref()
        .is_some_and(|f| f.kind == TargetKind::BlockDevice);
    let region = match (size, &existing) {
        (Some(s), _) => s,
        (None, Some(f)) => f.size_bytes,
        (None, None) => {
            return Err(format!(
                "{} does not exist; give --size to have iolab create it",
                target.display()
            ))
        }
    };
    if let Some(f) = &existing {
        check_target_write(f, consent).map_err(|e| e.to_string())?;
    }
    // A device is claimed before anything touches it, and stays claimed until the discard or
    // the Format is done (the command's own claim, when it holds one, is this claim).
    let _claim = match &existing {
        Some(f) if device => Some(iolab_sysinfo::claim::exclusive(&pin).map_err(|e| {
            SafetyError {
                path: f.path.clone(),
                reason: iolab_sysinfo::claim::refusal(&e, f.device, consent.flag()),
            }
            .to_string()
        })?),
        _ => None,
    };
    let nvme_format = (device && try_format)
        .then(|| format_namespace(&pin))
        .flatten()
        .map(|r| r.map_err(|e| format!("no NVMe Format ({e}), BLKDISCARD instead")));
    let done = if device {
        match nvme_format {
            Some(Ok(_)) => Ok(()),
            _ => discard_device(&pin, region),
        }
    } else {
        let r = punch_file(&mut pin, region);
        if existing.is_none() && pin.identity.is_some() {
            consent.grant(&pin.resolved);
        }
        r
    };
    Ok(Deallocated {
        region,
        device,
        nvme_format,
        error: done.err().map(|e| e.to_string()),
    })
}
