//! `falloc`: every I/O is one fallocate(2) on the file, as fio's `engines/falloc.c`, for
//! measuring a file system's block allocator rather than data transfer: a read reserves the
//! range without growing the file (`FALLOC_FL_KEEP_SIZE`), a write reserves it and grows the
//! file to cover it (mode 0), a trim punches a hole (`PUNCH_HOLE | KEEP_SIZE`). No data moves,
//! so the buffers are never touched and there is nothing to verify.

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `falloc` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Falloc,
    name: "falloc",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: false,
    directions: &Direction::ALL,
    read_write: true,
    extends_files: true,
    file_op: None,
};

pub struct Falloc {
    fds: Vec<i32>,
}

impl Falloc {
    pub fn open(target: EngineTarget<'_>) -> Result<Falloc, EngineError> {
        Ok(Falloc {
            fds: target.fds.to_vec(),
        })
    }
}

/// fio's mode per direction (`fio_fallocate_queue()`).
fn mode(dir: Direction) -> i32 {
    match dir {
        Direction::Read => libc::FALLOC_FL_KEEP_SIZE,
        Direction::Write => 0,
        Direction::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
    }
}

impl IoEngine for Falloc {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        // SAFETY: a plain system call on a descriptor the worker keeps open; no memory.
        let ret = unsafe { libc::fallocate(fd, mode(io.dir), io.offset as i64, io.len as i64) };
        // fio counts the whole range as transferred when the call succeeds.
        Ok(QueueStatus::Completed(match ret {
            0 => io.len as i64,
            _ => syscall_result(-1),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    fn unit(dir: Direction, offset: u64, len: u32) -> IoUnit {
        IoUnit {
            slot: 0,
            file: 0,
            dir,
            offset,
            len,
            buf: std::ptr::null_mut(),
            ioprio: 0,
            prio_index: 0,
        }
    }

    #[test]
    fn reads_reserve_writes_grow_trims_punch() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("f")).unwrap();
        let target = EngineTarget {
            fds: &[f.as_raw_fd()],
            direct: false,
            polled_device: false,
            name: "f",
            logical_block_size: 512,
            access: crate::AccessHint::None,
            pins: &[],
            pass_bytes: &[],
            donor: None,
        };
        let mut e = Falloc::open(target).unwrap();
        let mut run = |dir, off, len| unsafe { e.queue(&unit(dir, off, len)).unwrap() };
        let r = run(Direction::Read, 0, 65536);
        if r == QueueStatus::Completed(-(libc::EOPNOTSUPP as i64)) {
            eprintln!("skipped: the temp dir's file system has no fallocate");
            return;
        }
        assert_eq!(r, QueueStatus::Completed(65536));
        let meta = f.metadata().unwrap();
        assert_eq!(meta.len(), 0, "KEEP_SIZE leaves the size");
        assert!(meta.blocks() * 512 >= 65536, "the range is reserved");
        assert_eq!(
            run(Direction::Write, 65536, 4096),
            QueueStatus::Completed(4096)
        );
        assert_eq!(f.metadata().unwrap().len(), 69632, "a write grows the file");
        assert_eq!(
            run(Direction::Trim, 0, 65536),
            QueueStatus::Completed(65536)
        );
        assert_eq!(f.metadata().unwrap().len(), 69632, "a punch keeps the size");
        assert!(
            f.metadata().unwrap().blocks() * 512 < 65536,
            "the hole is freed"
        );
    }
}
