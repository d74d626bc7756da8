//! `psync`: one blocking pread(2)/pwrite(2) per I/O.

use crate::{Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit, QueueStatus};

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

    // Inlined into the worker's loop, the call made inline (crate::syscall says why).
    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        let nr = match io.dir {
            Direction::Read => libc::SYS_pread64,
            Direction::Write => libc::SYS_pwrite64,
            Direction::Trim => {
                let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
                return Ok(QueueStatus::Completed(r));
            }
        };
        // SAFETY: io.buf points at a live buffer of at least io.len bytes owned by the worker.
        let ret = unsafe {
            crate::syscall::syscall6(
                nr,
                fd as i64,
                io.buf as i64,
                io.len as i64,
                io.offset as i64,
                0,
                0,
            )
        };
        Ok(QueueStatus::Completed(ret))
    }
}
