//! `e4defrag`: each "write" is one `EXT4_IOC_MOVE_EXT` of the I/O's range, as fio's
//! `engines/e4defrag.c`: ext4 copies the range's data into a donor file's blocks and swaps
//! the extents, so the file keeps its contents and gets new blocks. People run it beside I/O
//! jobs to see what online defragmentation (`e4defrag`) does to them.
//!
//! The donor (`donorname`, in the job's `directory`) is checked before the run as a write
//! target is: an existing file that iolab did not make needs `--allow-destroy`, since its
//! blocks end up holding the job file's old ones. iolab makes a missing donor, reserving its
//! space unless `inplace=1` (then each I/O reserves the range first and the donor is emptied
//! after). Only writes: the engine changes the layout, never the data.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;

use crate::{syscall_result, Capabilities, Direction, EngineError, IoEngine, IoUnit, QueueStatus};

/// What `e4defrag` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::E4defrag,
    name: "e4defrag",
    synchronous: true,
    accepts: crate::Accepts::FILES,
    options: &["donorname", "inplace"],
    moves_data: false,
    directions: &[Direction::Write],
    // The ioctl wants the file open for reading and writing.
    read_write: true,
    // A move past the file's end fails (EINVAL), but fio does not flag the engine
    // `FIO_NOEXTEND`: its file is laid out as for any write, space reserved and no data
    // written, and the moves then swap unwritten extents. iolab lays it out the same way.
    extends_files: true,
    file_op: None,
};

/// e4defrag's options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defrag {
    /// The donor file (fio's `directory` + `/` + `donorname`); None when not given.
    pub donor: Option<PathBuf>,
    /// Reserve the donor's blocks for each I/O and free them after (`inplace=1`), rather than
    /// once for the whole file.
    pub inplace: bool,
}

/// The kernel's `struct move_extent` (`include/uapi/linux/ext4.h`... in `fs/ext4/ext4.h`).
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = (3 << 30)
    | ((std::mem::size_of::<MoveExtent>() as libc::c_ulong) << 16)
    | ((b'f' as libc::c_ulong) << 8)
    | 15;

pub struct E4defrag {
    fds: Vec<RawFd>,
    donor: File,
    /// The donor's block size (`st_blksize`), the unit the ioctl counts in.
    block: u64,
    inplace: bool,
}

impl E4defrag {
    /// Opens the donor the run checked (and made, if it was missing) through its pin, and as
    /// fio reserves its blocks over the job's region unless `inplace`.
    pub fn open(target: crate::EngineTarget<'_>, inplace: bool) -> Result<E4defrag, EngineError> {
        let unsupported = |reason: String| EngineError::Unsupported {
            engine: "e4defrag",
            reason,
        };
        let (pin, end) = target
            .donor
            .ok_or_else(|| unsupported("no donor file was checked for the job".into()))?;
        let donor = pin
            .open(libc::O_WRONLY | libc::O_CLOEXEC)
            .map_err(|e| unsupported(format!("donor {}: {e}", pin.resolved.display())))?;
        if !inplace && end > 0 {
            // SAFETY: fallocate on a descriptor we own.
            let r = unsafe { libc::fallocate(donor.as_raw_fd(), 0, 0, end as i64) };
            if r != 0 {
                return Err(EngineError::Setup {
                    engine: "e4defrag",
                    op: "fallocate of the donor",
                    source: std::io::Error::last_os_error(),
                });
            }
        }
        let block = std::os::unix::fs::MetadataExt::blksize(&donor.metadata().map_err(|e| {
            EngineError::Setup {
                engine: "e4defrag",
                op: "fstat of the donor",
                source: e,
            }
        })?)
        .max(1);
        Ok(E4defrag {
            fds: target.fds.to_vec(),
            donor,
            block,
            inplace,
        })
    }

    /// One move of the I/O's blocks: bytes moved (at most the I/O's), or `-errno`.
    fn defrag(&self, io: &IoUnit) -> i64 {
        let donor = self.donor.as_raw_fd();
        let len = io.len as u64;
        if self.inplace {
            // SAFETY: fallocate on a descriptor we own.
            let r = unsafe { libc::fallocate(donor, 0, io.offset as i64, len as i64) };
            if r != 0 {
                return syscall_result(-1);
            }
        }
        let first = io.offset / self.block;
        let mut me = MoveExtent {
            donor_fd: donor as u32,
            orig_start: first,
            donor_start: first,
            len: (io.offset + len).div_ceil(self.block) - first,
            ..MoveExtent::default()
        };
        let fd = self.fds[io.file as usize];
        // SAFETY: the ioctl reads and writes `me`, a live `struct move_extent`.
        let r = unsafe { libc::ioctl(fd, EXT4_IOC_MOVE_EXT, &mut me as *mut MoveExtent) };
        let mut result = match (me.moved_len * self.block).min(len) {
            // Nothing moved: the range is past the file's end (fio's EINVAL).
            0 => -(libc::EINVAL as i64),
            moved => moved as i64,
        };
        if r != 0 {
            result = syscall_result(-1);
        }
        if self.inplace {
            // SAFETY: ftruncate on a descriptor we own.
            if unsafe { libc::ftruncate(donor, 0) } != 0 && result >= 0 {
                result = syscall_result(-1);
            }
        }
        result
    }
}

impl IoEngine for E4defrag {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        Ok(QueueStatus::Completed(self.defrag(io)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ioctl_number_is_the_kernels() {
        assert_eq!(std::mem::size_of::<MoveExtent>(), 40);
        assert_eq!(EXT4_IOC_MOVE_EXT, 0xC028_660F);
    }
}
