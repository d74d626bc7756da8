//! A target's atomic write limits (Linux 6.11's RWF_ATOMIC): what `statx(STATX_WRITE_ATOMIC)`
//! reports for an existing file or block device, and for a file still to be made, the queue
//! limits of the disk under its directory (`queue/atomic_write_unit_{min,max}_bytes`: ext4
//! and a block device write atomically only what the disk does). Read before anything is
//! written, so a job the target cannot write atomically is refused with the limits named.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The limits, in bytes; `unit_max` 0 means no atomic writes at all.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AtomicLimits {
    pub unit_min: u32,
    pub unit_max: u32,
    /// Where the figures come from, for the message: statx, or the disk's queue limits.
    pub source: String,
}

impl AtomicLimits {
    /// Why one write of `len` bytes at offsets aligned to `align` cannot be atomic here (the
    /// kernel's rule: a power of two within the unit, at an offset that is a multiple of it);
    /// `None` where it can.
    pub fn refuses(&self, len: u32, align: u64) -> Option<String> {
        if self.unit_max == 0 {
            return Some(format!(
                "it has no atomic writes: its atomic write unit is {} to {} bytes",
                self.unit_min, self.unit_max
            ));
        }
        let unit = format!(
            "its atomic write unit is {} to {} bytes",
            self.unit_min, self.unit_max
        );
        if !len.is_power_of_two() || len < self.unit_min || len > self.unit_max {
            return Some(format!(
                "a {len}-byte write does not fit: {unit}, a power of two"
            ));
        }
        if !align.is_multiple_of(len as u64) {
            return Some(format!(
                "a {len}-byte write at offsets aligned to {align} is not naturally aligned \
                 ({unit}; give blockalign={len})"
            ));
        }
        None
    }
}

fn statx(path: &Path) -> Option<libc::statx> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statx is a valid out-buffer; the path is NUL-terminated.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let r = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            c.as_ptr(),
            0,
            libc::STATX_WRITE_ATOMIC,
            &mut st,
        )
    };
    (r == 0).then_some(st)
}

fn read_u32(p: &Path) -> Option<u32> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// The limits of the disk (device number `dev`) from its queue: a partition's are its
/// disk's.
fn queue_limits(major: u32, minor: u32) -> Option<AtomicLimits> {
    let link = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let dir = match link.join("partition").exists() {
        true => link.parent()?.to_path_buf(),
        false => link,
    };
    let q = dir.join("queue");
    let disk = dir.file_name()?.to_string_lossy().into_owned();
    Some(AtomicLimits {
        unit_min: read_u32(&q.join("atomic_write_unit_min_bytes")).unwrap_or(0),
        unit_max: read_u32(&q.join("atomic_write_unit_max_bytes")).unwrap_or(0),
        source: format!("/sys/block/{disk}/queue/atomic_write_unit_{{min,max}}_bytes"),
    })
}

/// The atomic write limits of `path`: statx's for an existing file or device (none where the
/// kernel reports none), else those of the disk under the directory it will be made in.
pub fn atomic_limits(path: &Path) -> AtomicLimits {
    let none = |source: &str| AtomicLimits {
        source: source.to_string(),
        ..AtomicLimits::default()
    };
    if let Some(st) = statx(path) {
        let reported = st.stx_mask & libc::STATX_WRITE_ATOMIC != 0
            && st.stx_attributes & libc::STATX_ATTR_WRITE_ATOMIC as u64 != 0;
        return match reported {
            true => AtomicLimits {
                unit_min: st.stx_atomic_write_unit_min,
                unit_max: st.stx_atomic_write_unit_max,
                source: "statx STATX_WRITE_ATOMIC".into(),
            },
            false => none("statx STATX_WRITE_ATOMIC"),
        };
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match statx(dir) {
        Some(st) => queue_limits(st.stx_dev_major, st.stx_dev_minor)
            .unwrap_or_else(|| none("the directory's filesystem (on no block device)")),
        None => none("statx"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_rule_power_of_two_within_the_unit_naturally_aligned() {
        let l = AtomicLimits {
            unit_min: 4096,
            unit_max: 16384,
            source: "test".into(),
        };
        assert_eq!(l.refuses(4096, 4096), None);
        assert_eq!(l.refuses(16384, 16384), None);
        assert!(l.refuses(32768, 32768).unwrap().contains("4096 to 16384"));
        assert!(l.refuses(12288, 12288).unwrap().contains("power of two"));
        assert!(l.refuses(8192, 4096).unwrap().contains("blockalign=8192"));
        assert!(l.refuses(512, 512).is_some());
        let none = AtomicLimits::default();
        assert!(none.refuses(4096, 4096).unwrap().contains("0 to 0 bytes"));
    }

    #[test]
    fn this_machines_files_report_what_the_kernel_says() {
        // Whatever the disk under the temp dir is, a file there and one still to be made
        // report limits from statx or the queue, never a panic.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        let missing = atomic_limits(&f);
        std::fs::write(&f, b"x").unwrap();
        let existing = atomic_limits(&f);
        assert!(!missing.source.is_empty() && !existing.source.is_empty());
        assert!(existing.unit_min <= existing.unit_max || existing.unit_max == 0);
    }
}
