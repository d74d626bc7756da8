//! What may be a storage target at all: not a file on a pseudo filesystem (procfs, sysfs,
//! ...: kernel knobs, not data), and not a new file in /dev (a typo'd device name). Checked
//! before a target is probed, and by the guard before anything is written.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::SafetyError;

/// The pseudo filesystem `path` (or, when missing, its directory) lies on, by name; `None`
/// for ordinary storage. These hold kernel knobs, not data: iolab never targets them.
pub fn pseudo_filesystem(path: &Path) -> Option<&'static str> {
    // The path, or the nearest ancestor that exists (where a new file would be created).
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let on = abs.ancestors().find(|p| p.exists())?;
    let c = CString::new(on.as_os_str().as_bytes()).ok()?;
    // SAFETY: zeroed statfs is a valid out-buffer; c is NUL-terminated.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    // Magic numbers from <linux/magic.h>.
    Some(match st.f_type as u64 {
        0x9fa0 => "procfs",
        0x6265_6572 => "sysfs",
        0x6462_6720 => "debugfs",
        0x7472_6163 => "tracefs",
        0x2762_0fdd | 0x6367_7270 => "cgroupfs",
        0x7363_6673 => "securityfs",
        0x6265_6570 => "configfs",
        0xcafe_4a11 => "bpffs",
        0x6165_676c => "pstore",
        0xde5e_81e4 => "efivarfs",
        0xf97c_ff8c => "selinuxfs",
        0x6573_5546 => "fusectl",
        0x1cd1 => "devpts",
        _ => return None,
    })
}

pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The directory a new file at `path` would be made under: its parent, or when that does
/// not exist yet (fio creates missing directories, and so does iolab), the nearest ancestor
/// that does.
pub fn existing_dir(path: &Path) -> PathBuf {
    let parent = parent_dir(path);
    parent
        .ancestors()
        .find(|p| !p.as_os_str().is_empty() && p.exists())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// True when a new file at `path` would be created in `/dev` (devtmpfs holds device nodes;
/// a file made there is a typo'd device name, e.g. a missing `/dev/loop6p2`).
pub fn new_file_in_dev(path: &Path) -> bool {
    if path.exists() {
        return false;
    }
    let dir = existing_dir(path);
    match (fs::metadata(dir), fs::metadata("/dev")) {
        (Ok(d), Ok(dev)) => d.dev() == dev.dev(),
        _ => false,
    }
}

/// Refuses a path that is no storage target: on a pseudo filesystem, or a new file in /dev.
pub fn check_storage_path(path: &Path) -> Result<(), SafetyError> {
    let refuse = |reason: String| SafetyError {
        path: path.to_path_buf(),
        reason,
    };
    if let Some(fs) = pseudo_filesystem(path) {
        return Err(refuse(format!(
            "it is on {fs}, which holds kernel settings, not data; iolab uses only regular \
             files and block devices"
        )));
    }
    if new_file_in_dev(path) {
        return Err(refuse(
            "there is no such device, and iolab does not create files in /dev".to_string(),
        ));
    }
    if let Some(to) = dangling_link(path) {
        // Creating `path` creates what the link points to: that is what is judged.
        return check_storage_path(&to).map_err(|e| {
            refuse(format!(
                "it is a symbolic link to {}: {}",
                to.display(),
                e.reason
            ))
        });
    }
    Ok(())
}

/// Where a chain of symlinks at `path` ends, when what it ends at does not exist (creating
/// `path` would create that, wherever it is: `/dev`, the results database, a target).
pub fn dangling_link(path: &Path) -> Option<PathBuf> {
    let mut at = path.to_path_buf();
    let mut hops = 0;
    while fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
        if path.exists() || hops == 40 {
            return None;
        }
        let to = fs::read_link(&at).ok()?;
        at = parent_dir(&at).join(to);
        hops += 1;
    }
    (hops > 0).then_some(at)
}
