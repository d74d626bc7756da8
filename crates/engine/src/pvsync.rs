//! `pvsync`: one blocking preadv(2)/pwritev(2) of a single iovec per I/O, as fio's
//! `pvsync` (the vectored path without `pvsync2`'s per-call flags).

use crate::{Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit, QueueStatus};

/// What `pvsync` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Pvsync,
    name: "pvsync",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Pvsync {
    fds: Vec<i32>,
    trimmer: crate::Trimmer,
}

impl Pvsync {
    pub fn open(target: EngineTarget<'_>) -> Result<Pvsync, EngineError> {
        Ok(Pvsync {
            fds: target.fds.to_vec(),
            trimmer: crate::Trimmer::new(target.fds),
        })
    }
}

impl IoEngine for Pvsync {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    // Inlined into the worker's loop, the call made inline (crate::syscall says why).
    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len as usize,
        };
        let nr = match io.dir {
            Direction::Read => libc::SYS_preadv,
            Direction::Write => libc::SYS_pwritev,
            Direction::Trim => {
                let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
                return Ok(QueueStatus::Completed(r));
            }
        };
        // (fd, iov, count, pos_l, pos_h): on 64 bits the whole offset is pos_l.
        // SAFETY: io.buf points at a live buffer of at least io.len bytes owned by the worker;
        // the iovec lives for the call.
        let ret = unsafe {
            crate::syscall::syscall6(
                nr,
                fd as i64,
                &iov as *const libc::iovec as i64,
                1,
                io.offset as i64,
                0,
                0,
            )
        };
        Ok(QueueStatus::Completed(ret))
    }
}
