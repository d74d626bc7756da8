//! `vsync`: one blocking readv(2)/writev(2) at the file's position per I/O, after an
//! lseek(2) to its offset, as fio's `vsync` engine (`engines/sync.c`) at queue depth 1.
//! fio's vsync is a synchronous engine (`FIO_SYNCIO`) and says it caps the queue depth at 1,
//! yet at iodepth>1 fio 3.33 still queues and coalesces adjacent I/Os into one call, and
//! then counts some of them as moving no bytes (16 writes of 16 KiB at iodepth=4: 208 KiB
//! reported, 256 KiB written). iolab's stays at depth 1, as fio's note says, so its byte
//! counts are the bytes moved. fio's vsync has no trim of its own (it would write the
//! range), so iolab's refuses trims.

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `vsync` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Vsync,
    name: "vsync",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &[Direction::Read, Direction::Write],
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Vsync {
    fds: Vec<i32>,
}

impl Vsync {
    pub fn open(target: EngineTarget<'_>) -> Result<Vsync, EngineError> {
        Ok(Vsync {
            fds: target.fds.to_vec(),
        })
    }
}

impl IoEngine for Vsync {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        // SAFETY: lseek on an fd the worker keeps open; no pointers.
        if unsafe { libc::lseek(fd, io.offset as i64, libc::SEEK_SET) } < 0 {
            return Ok(QueueStatus::Completed(syscall_result(-1)));
        }
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len as usize,
        };
        // SAFETY: io.buf points at a live buffer of at least io.len bytes owned by the worker;
        // the iovec lives for the call.
        let ret = unsafe {
            match io.dir {
                Direction::Read => libc::readv(fd, &iov, 1),
                Direction::Write => libc::writev(fd, &iov, 1),
                Direction::Trim => return Ok(QueueStatus::Completed(-(libc::EINVAL as i64))),
            }
        };
        Ok(QueueStatus::Completed(syscall_result(ret)))
    }
}
