//! May iolab write to this target? Regular files: yes. Block devices: only with an explicit
//! `--allow-destroy`, and never when the device (or a partition of it) is mounted, used as
//! swap, held by another device (device-mapper, md, bcache), or holds the root filesystem.
//! A device that carries a filesystem, volume or partition-table signature is refused unless
//! `--allow-destroy` is given, with the signature named.
//!
//! Every other name of the device's bytes is judged too ([`crate::aliases`]): a second loop
//! device over a mounted image, a partition of a mounted disk, a loop device over the results
//! database. Signatures are libblkid's, over the whole device ([`crate::blkid`]).
//!
//! Every check reads only: /proc, /sys, and the device through the descriptor its pin opens.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::blkid::{signatures, Signature};
use crate::target::{whole_disk_name, TargetFacts, TargetKind};

pub use crate::refusal::SafetyError;

/// Decides whether a write job may run against the block device `facts` describes, with
/// `allow_destroy` the user's consent for this device and `flag` what gives it. Regular files
/// pass here: [`crate::guard::check_target_write`] judges them. Never writes anything.
pub fn check_write_allowed(
    facts: &TargetFacts,
    allow_destroy: bool,
    flag: &str,
) -> Result<(), SafetyError> {
    if facts.kind == TargetKind::File {
        return Ok(());
    }
    let refuse = |reason: String| {
        Err(SafetyError {
            path: facts.path.clone(),
            reason,
        })
    };
    let disk = whole_disk_name(facts.device);
    let family = device_family(facts.device, disk.as_deref());

    if let Some(root) = root_disk() {
        if disk.as_deref() == Some(root.as_str()) {
            return refuse(format!(
                "it is (or is on) {root}, the disk holding the root filesystem; iolab never \
                 writes there, not even with {flag}"
            ));
        }
    }
    if let Some(m) = mounted_member(&family) {
        return refuse(format!(
            "{m} is mounted; unmount it first ({flag} does not override this)"
        ));
    }
    if let Some(s) = swap_member(&family) {
        return refuse(format!(
            "{s} is in use as swap; swapoff it first ({flag} does not override this)"
        ));
    }
    if let Some(h) = holders(facts.device) {
        return refuse(format!(
            "it is in use by {h} (device-mapper, md or similar); release it first \
             ({flag} does not override this)"
        ));
    }
    let rdev = libc::makedev(facts.device.0, facts.device.1);
    if let Some(l) = backs_loop_device(&crate::guard::Identity::Block(rdev)) {
        return refuse(format!(
            "it backs {l}; detach it first (losetup -d; {flag} does not override this)"
        ));
    }
    if let Some(why) = alias_in_use(facts.device, flag) {
        return refuse(why);
    }
    let partitions: Vec<String> = family.iter().skip(1).map(|(n, _)| n.clone()).collect();
    if !partitions.is_empty() && !allow_destroy {
        return refuse(format!(
            "it has partitions ({}); pass {flag} to overwrite them",
            partitions.join(", ")
        ));
    }
    match probe_signatures(&facts.path) {
        Ok(found) => {
            if let (Some(first), false) = (found.first(), allow_destroy) {
                return refuse(format!(
                    "it carries {}; pass {flag} to overwrite it",
                    said(first, &found)
                ));
            }
        }
        Err(e) => return refuse(format!("cannot look for signatures on it: {e}")),
    }
    if !allow_destroy {
        return refuse(format!(
            "writing to a block device destroys its data; pass {flag} to confirm"
        ));
    }
    Ok(())
}

/// May the kernel give the block device `facts` describes away to a user-space driver (SPDK:
/// `iolab spdk bind`)? After that nothing in the kernel sees the namespace: no mount, no
/// holder, no later check can stop a write. So everything [`check_write_allowed`] refuses
/// outright is refused, and so are partitions and signatures, with no flag to override them:
/// the namespace is handed over blank or not at all (wipefs it first). Reads only.
pub fn check_handover(facts: &TargetFacts, what: &str) -> Result<(), SafetyError> {
    check_write_allowed(facts, true, what)?;
    check_blank(facts, &format!("{what} hands over only a blank namespace"))
}

/// Refuses a target that holds something: partitions (on a whole disk) or a signature in its
/// first bytes (a filesystem, volume, swap, RAID member or partition table), with what it
/// holds named and `why` the command takes only a blank one; no flag overrides it (the user
/// wipes it first). For commands that destroy the whole device whatever the user's consent
/// covers (a handover to SPDK, a PTS purge). Reads only.
pub fn check_blank(facts: &TargetFacts, why: &str) -> Result<(), SafetyError> {
    let refuse = |reason: String| {
        Err(SafetyError {
            path: facts.path.clone(),
            reason,
        })
    };
    if facts.kind == TargetKind::BlockDevice {
        let disk = whole_disk_name(facts.device);
        let family = device_family(facts.device, disk.as_deref());
        let partitions: Vec<String> = family.iter().skip(1).map(|(n, _)| n.clone()).collect();
        if !partitions.is_empty() {
            return refuse(format!(
                "it has partitions ({}); {why} (remove them first)",
                partitions.join(", ")
            ));
        }
    }
    let found = probe_signatures(&facts.path).map_err(|e| SafetyError {
        path: facts.path.clone(),
        reason: format!("cannot look for signatures on it: {e}"),
    })?;
    if let Some(first) = found.first() {
        return refuse(format!(
            "it carries {}; {why} (wipefs it first)",
            said(first, &found)
        ));
    }
    Ok(())
}

/// The first signature, and how many more there are.
fn said(first: &Signature, all: &[Signature]) -> String {
    match all.len() {
        1 => first.to_string(),
        n => format!("{first} and {} more", n - 1),
    }
}

/// libblkid's signatures on `path`, opened through its pin (the claimed object when the
/// command claimed it; no symlink followed, its identity compared otherwise).
fn probe_signatures(path: &Path) -> Result<Vec<Signature>, String> {
    let pin = crate::Pin::existing(path).map_err(|e| e.to_string())?;
    let file = pin
        .open(libc::O_RDONLY | libc::O_NONBLOCK)
        .map_err(|e| e.to_string())?;
    signatures(&file).map_err(|e| e.to_string())
}

/// Why another name of the device's bytes makes it untouchable: an alias (a second loop
/// device over the same image, a partition, a device-mapper or md device over it, the disk
/// under a partition) that is mounted, swap or held, or bytes that are the results
/// database's (or another file the command protects). `None`: nothing stands in the way.
pub fn alias_in_use(device: (u32, u32), flag: &str) -> Option<String> {
    let mine = crate::aliases::extents(device);
    for (path, id) in crate::guard::protected_files() {
        if crate::aliases::holds_file(&mine, id) {
            return Some(format!(
                "its bytes are {}, which this command keeps its results in or reads (a loop \
                 device over it); {flag} does not override this",
                path.display()
            ));
        }
    }
    for alias in crate::aliases::overlapping(&mine, Some(device)) {
        if let Some(how) = crate::aliases::in_use(&alias, Some(device)) {
            return Some(format!(
                "its bytes are also /dev/{}, which is {how}; {flag} does not override this",
                alias.name
            ));
        }
    }
    None
}

/// The device and its partitions, as (sysfs name, (major, minor)).
fn device_family(device: (u32, u32), disk: Option<&str>) -> Vec<(String, (u32, u32))> {
    let self_name = fs::canonicalize(format!("/sys/dev/block/{}:{}", device.0, device.1))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| format!("{}:{}", device.0, device.1));
    let mut fam = vec![(self_name.clone(), device)];
    // Partitions appear as subdirectories of the whole disk that contain a `partition` file.
    if disk == Some(self_name.as_str()) {
        if let Ok(rd) = fs::read_dir(format!("/sys/block/{self_name}")) {
            for e in rd.flatten() {
                if e.path().join("partition").exists() {
                    if let Some(dev) = read_devnum(&e.path().join("dev")) {
                        fam.push((e.file_name().to_string_lossy().into_owned(), dev));
                    }
                }
            }
        }
    }
    fam
}

fn read_devnum(p: &Path) -> Option<(u32, u32)> {
    let s = fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The first member of `family` that some mount uses, with its mount point.
fn mounted_member(family: &[(String, (u32, u32))]) -> Option<String> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    for line in info.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (Some(devnum), Some(mnt)) = (f.get(2), f.get(4)) else {
            continue;
        };
        for (name, (ma, mi)) in family {
            if *devnum == format!("{ma}:{mi}") {
                return Some(format!("{name} (on {mnt})"));
            }
        }
    }
    None
}

fn swap_member(family: &[(String, (u32, u32))]) -> Option<String> {
    let swaps = fs::read_to_string("/proc/swaps").ok()?;
    for line in swaps.lines().skip(1) {
        let Some(path) = line.split_whitespace().next() else {
            continue;
        };
        let Ok(meta) = fs::metadata(path) else {
            continue;
        };
        let dev = (libc::major(meta.rdev()), libc::minor(meta.rdev()));
        if let Some((name, _)) = family.iter().find(|(_, d)| *d == dev) {
            return Some(name.clone());
        }
    }
    None
}

/// The devices sysfs lists as holding `device` (device-mapper, md, bcache), joined.
pub fn holders(device: (u32, u32)) -> Option<String> {
    let dir = format!("/sys/dev/block/{}:{}/holders", device.0, device.1);
    let names: Vec<String> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// The loop device (`/dev/loopN`) whose backing file or device is `id`, if any: writing
/// under a loop device changes what is on it, whatever holds it.
pub fn backs_loop_device(id: &crate::guard::Identity) -> Option<String> {
    for entry in fs::read_dir("/sys/block").ok()?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("loop") {
            continue;
        }
        let Ok(backing) = fs::read_to_string(entry.path().join("loop/backing_file")) else {
            continue;
        };
        let backing = backing.trim_end_matches('\n');
        let backing = backing.strip_suffix(" (deleted)").unwrap_or(backing);
        if crate::guard::identity(Path::new(backing)).as_ref() == Some(id) {
            return Some(format!("/dev/{name}"));
        }
    }
    None
}

/// The whole disk holding `/`.
fn root_disk() -> Option<String> {
    let dev = fs::metadata("/").ok()?.dev();
    whole_disk_name((libc::major(dev), libc::minor(dev)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::probe;
    use std::path::PathBuf;

    #[test]
    fn regular_files_are_always_writable() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, b"x").unwrap();
        check_write_allowed(&probe(&p).unwrap(), false, "--allow-destroy").unwrap();
    }

    #[test]
    fn the_root_disk_is_refused_even_with_allow_destroy() {
        // Only decides; nothing is opened for writing.
        let Some(root) = root_disk() else {
            eprintln!("skipped: / is not on a block device here");
            return;
        };
        let path = PathBuf::from(format!("/dev/{root}"));
        let Ok(facts) = probe(&path) else {
            eprintln!("skipped: {} cannot be probed", path.display());
            return;
        };
        let e = check_write_allowed(&facts, true, "--allow-destroy").unwrap_err();
        assert!(e.reason.contains("root filesystem"), "{e}");
    }
}
