//! `psync`: one blocking pread(2)/pwrite(2) per I/O.

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `psync` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Psync,
    name: "psync",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Psync {
    fds: Vec<i32>,
    trimmer: crate::Trimmer,
}

impl Psync {
    pub fn open(target: EngineTarget<'_>) -> Result<Psync, EngineError> {
        Ok(Psync {
            fds: target.fds.to_vec(),
            trimmer: crate::Trimmer::new(target.fds),
        })
    }
}

impl IoEngine for Psync {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        // SAFETY: io.buf points at a live buffer of at least io.len bytes owned by the worker.
        let ret = unsafe {
            match io.dir {
                Direction::Read => {
                    libc::pread(fd, io.buf.cast(), io.len as usize, io.offset as i64)
                }
                Direction::Write => {
                    libc::pwrite(fd, io.buf.cast(), io.len as usize, io.offset as i64)
                }
                Direction::Trim => {
                    let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
                    return Ok(QueueStatus::Completed(r));
                }
            }
        };
        Ok(QueueStatus::Completed(syscall_result(ret)))
    }
}
