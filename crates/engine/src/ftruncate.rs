//! `ftruncate`: every I/O sets the file's length to the I/O's offset with ftruncate(2), as
//! fio's `engines/ftruncate.c`, for measuring how a file system grows and shrinks files. Only
//! writes mean anything (fio fails reads and trims with EINVAL; iolab refuses such a job
//! before it starts). No data moves: the buffers are never touched.

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `ftruncate` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Ftruncate,
    name: "ftruncate",
    synchronous: true,
    accepts: crate::Accepts::FILES,
    options: &[],
    moves_data: false,
    directions: &[Direction::Write],
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Ftruncate {
    fds: Vec<i32>,
}

impl Ftruncate {
    pub fn open(target: EngineTarget<'_>) -> Result<Ftruncate, EngineError> {
        Ok(Ftruncate {
            fds: target.fds.to_vec(),
        })
    }
}

impl IoEngine for Ftruncate {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        if io.dir != Direction::Write {
            return Ok(QueueStatus::Completed(-(libc::EINVAL as i64)));
        }
        let fd = self.fds[io.file as usize];
        // SAFETY: a plain system call on a descriptor the worker keeps open; no memory.
        let ret = unsafe { libc::ftruncate(fd, io.offset as i64) };
        // fio counts the I/O's length as transferred when the call succeeds.
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

    #[test]
    fn a_write_sets_the_length_to_its_offset_and_a_read_is_einval() {
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
        let mut e = Ftruncate::open(target).unwrap();
        let unit = |dir, offset| IoUnit {
            slot: 0,
            file: 0,
            dir,
            offset,
            len: 4096,
            buf: std::ptr::null_mut(),
            ioprio: 0,
            prio_index: 0,
        };
        let w = unsafe { e.queue(&unit(Direction::Write, 12288)).unwrap() };
        assert_eq!(w, QueueStatus::Completed(4096));
        assert_eq!(f.metadata().unwrap().len(), 12288);
        let w = unsafe { e.queue(&unit(Direction::Write, 4096)).unwrap() };
        assert_eq!(w, QueueStatus::Completed(4096));
        assert_eq!(f.metadata().unwrap().len(), 4096);
        let r = unsafe { e.queue(&unit(Direction::Read, 0)).unwrap() };
        assert_eq!(r, QueueStatus::Completed(-(libc::EINVAL as i64)));
    }
}
