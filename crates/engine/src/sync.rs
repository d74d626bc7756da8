//! `sync`: one blocking read(2)/write(2) per I/O at the file's position, moved with lseek(2)
//! only when the I/O does not start where the file's last one ended (fio's
//! `fio_syncio_prep()`): a sequential job makes one system call per I/O, a random one two.

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `sync` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Sync,
    name: "sync",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Sync {
    fds: Vec<i32>,
    /// Each file's position after its last I/O (`u64::MAX`: unknown, seek first).
    pos: Vec<u64>,
    trimmer: crate::Trimmer,
}

impl Sync {
    pub fn open(target: EngineTarget<'_>) -> Result<Sync, EngineError> {
        Ok(Sync {
            fds: target.fds.to_vec(),
            pos: vec![u64::MAX; target.fds.len()],
            trimmer: crate::Trimmer::new(target.fds),
        })
    }
}

impl IoEngine for Sync {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let file = io.file as usize;
        let fd = self.fds[file];
        if io.dir == Direction::Trim {
            // fio's sync engine trims by offset, without a seek.
            return Ok(QueueStatus::Completed(
                self.trimmer.trim(file, fd, io.offset, io.len),
            ));
        }
        if self.pos[file] != io.offset {
            // SAFETY: lseek on an fd the worker keeps open; no pointers.
            if unsafe { libc::lseek(fd, io.offset as i64, libc::SEEK_SET) } < 0 {
                self.pos[file] = u64::MAX;
                return Ok(QueueStatus::Completed(syscall_result(-1)));
            }
        }
        // SAFETY: io.buf points at a live buffer of at least io.len bytes owned by the worker.
        let ret = unsafe {
            match io.dir {
                Direction::Read => libc::read(fd, io.buf.cast(), io.len as usize),
                Direction::Write => libc::write(fd, io.buf.cast(), io.len as usize),
                Direction::Trim => unreachable!("trims return above"),
            }
        };
        self.pos[file] = if ret >= 0 {
            io.offset + ret as u64
        } else {
            u64::MAX
        };
        Ok(QueueStatus::Completed(syscall_result(ret)))
    }
}
