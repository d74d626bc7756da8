//! Opening a job's targets the way its engine uses them: read-only or read-write, direct or
//! buffered, and not at all for an engine that accepts no target (null).
//!
//! A device (anything but a regular file) is opened `O_NOATIME`, as fio's
//! `generic_open_file()` and t/io_uring do: otherwise every read of it checks and may update
//! the device node's access time (`touch_atime()` in the read path, ~65 ns per read on zram),
//! work fio does not do and that would make iolab's figures for the device worse than its.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use iolab_sysinfo::Pin;

use crate::EngineKind;

/// How the files are opened.
#[derive(Debug, Clone, Copy)]
pub struct OpenHow {
    /// O_DIRECT: around the page cache.
    pub direct: bool,
    /// Opened for writing as well as reading.
    pub writes: bool,
    /// More open flags (`O_SYNC` or `O_DSYNC` for fio's `sync`).
    pub flags: i32,
}

/// Opens each checked target (`pins`, see [`iolab_sysinfo::pinned`]) for `kind`: no symlink
/// followed, and the descriptor must be what the guard checked; the path that failed, with
/// why.
pub fn open_targets<'a>(
    kind: EngineKind,
    pins: impl Iterator<Item = &'a Pin>,
    how: OpenHow,
) -> Result<Vec<File>, (&'a Path, std::io::Error)> {
    if kind.def().accepts.nothing() {
        return Ok(Vec::new());
    }
    // A char device cannot be opened O_DIRECT (EINVAL); passthrough has no cache anyway.
    let direct = how.direct && !kind.def().accepts.nvme_generic;
    let mut flags = if how.writes || kind.def().read_write {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    if direct {
        flags |= libc::O_DIRECT;
    }
    flags |= how.flags;
    pins.map(|p| open_one(p, flags).map_err(|e| (p.resolved.as_path(), e)))
        .collect()
}

/// Opens one target with `flags`, adding `O_NOATIME` for a device; as fio, left without it
/// where the caller may not set it (EPERM: not the owner and no CAP_FOWNER).
fn open_one(pin: &Pin, flags: i32) -> std::io::Result<File> {
    let file = pin.open(flags).map_err(|e| match e {
        iolab_sysinfo::PinError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })?;
    if !file.metadata()?.is_file() {
        let fd = file.as_raw_fd();
        // SAFETY: F_GETFL/F_SETFL on a descriptor we own; a refusal (EPERM) is ignored.
        unsafe {
            let now = libc::fcntl(fd, libc::F_GETFL);
            if now >= 0 {
                libc::fcntl(fd, libc::F_SETFL, now | libc::O_NOATIME);
            }
        }
    }
    Ok(file)
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
        let pins = [
            Pin::existing(&file).unwrap(),
            Pin::existing(Path::new("/dev/null")).unwrap(),
        ];
        let how = OpenHow {
            direct: false,
            writes: false,
            flags: 0,
        };
        let opened = open_targets(EngineKind::Psync, pins.iter(), how).unwrap();
        assert_eq!(status_flags(&opened[0]) & libc::O_NOATIME, 0);
        assert_ne!(status_flags(&opened[1]) & libc::O_NOATIME, 0);
    }
}
