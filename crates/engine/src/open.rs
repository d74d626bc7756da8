//! Opening a job's targets the way its engine uses them: read-only or read-write, direct or
//! buffered, and not at all for an engine that accepts no target (null).
//!
//! A device (anything but a regular file) is opened `O_NOATIME`, as fio's
//! `generic_open_file()` and t/io_uring do: otherwise every read of it checks and may update
//! the device node's access time (`touch_atime()` in the read path, ~65 ns per read on zram),
//! work fio does not do and that would make iolab's figures for the device worse than its.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::EngineKind;

/// How the files are opened.
#[derive(Debug, Clone, Copy)]
pub struct OpenHow {
    /// O_DIRECT: around the page cache.
    pub direct: bool,
    /// Opened for writing as well as reading.
    pub writes: bool,
}

/// Opens each of `paths` for `kind`; the path that failed, with why.
pub fn open_targets<'a>(
    kind: EngineKind,
    paths: impl Iterator<Item = &'a PathBuf>,
    how: OpenHow,
) -> Result<Vec<File>, (&'a Path, std::io::Error)> {
    if kind.def().accepts.nothing() {
        return Ok(Vec::new());
    }
    // A char device cannot be opened O_DIRECT (EINVAL); passthrough has no cache anyway.
    let direct = how.direct && !kind.def().accepts.nvme_generic;
    let flags = if direct { libc::O_DIRECT } else { 0 };
    paths
        .map(|p| open_one(p, how.writes, flags).map_err(|e| (p.as_path(), e)))
        .collect()
}

/// Opens one target with `flags`, adding `O_NOATIME` for a device; as fio, retried without
/// it where the caller may not set it (EPERM: not the owner and no CAP_FOWNER).
fn open_one(path: &Path, writes: bool, flags: i32) -> std::io::Result<File> {
    let open = |flags| {
        OpenOptions::new()
            .read(true)
            .write(writes)
            .custom_flags(flags)
            .open(path)
    };
    let device = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    if !device {
        return open(flags);
    }
    match open(flags | libc::O_NOATIME) {
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => open(flags),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn status_flags(f: &File) -> i32 {
        // SAFETY: F_GETFL on an open fd.
        unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) }
    }

    #[test]
    fn a_device_is_opened_noatime_and_a_regular_file_is_not_as_fio() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let files = [file, PathBuf::from("/dev/null")];
        let how = OpenHow {
            direct: false,
            writes: false,
        };
        let opened = open_targets(EngineKind::Psync, files.iter(), how).unwrap();
        assert_eq!(status_flags(&opened[0]) & libc::O_NOATIME, 0);
        assert_ne!(status_flags(&opened[1]) & libc::O_NOATIME, 0);
    }
}
