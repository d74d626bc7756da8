//! `pvsync2`: one blocking preadv2(2)/pwritev2(2) per I/O; with `hipri`, RWF_HIPRI asks the
//! kernel to poll for the completion in the calling thread instead of sleeping until the
//! interrupt. On a device without poll queues the kernel ignores the flag and the I/O
//! completes by interrupt, silently; `notes` says so.

use crate::{
    Capabilities, Direction, EngineError, EngineOptions, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `pvsync2` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Pvsync2,
    name: "pvsync2",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &["hipri", "uncached"],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Pvsync2 {
    fds: Vec<i32>,
    /// RWF_ flags of reads, and of writes (RWF_ATOMIC on writes only).
    flags: i32,
    write_flags: i32,
    notes: Vec<String>,
    trimmer: crate::Trimmer,
}

impl Pvsync2 {
    pub fn open(target: EngineTarget<'_>, opts: &EngineOptions) -> Result<Pvsync2, EngineError> {
        let mut notes = Vec::new();
        if opts.hipri && !target.polled_device {
            notes.push(format!(
                "pvsync2 --hipri: {} has no poll queues (queue/io_poll=0), so the kernel \
                 ignores RWF_HIPRI and every I/O completes by interrupt",
                target.name
            ));
        }
        if opts.hipri && !target.direct {
            notes.push(
                "pvsync2 --hipri: polling applies to O_DIRECT I/O only; buffered I/O ignores it"
                    .to_string(),
            );
        }
        let flags = crate::rwf::flags(opts, &target, &mut notes);
        let hipri = if opts.hipri { libc::RWF_HIPRI } else { 0 };
        Ok(Pvsync2 {
            fds: target.fds.to_vec(),
            flags: flags.read | hipri,
            write_flags: flags.write | hipri,
            notes,
            trimmer: crate::Trimmer::new(target.fds),
        })
    }
}

impl IoEngine for Pvsync2 {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    // Inlined into the worker's loop, the call made inline (crate::syscall says why).
    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let iov = libc::iovec {
            iov_base: io.buf.cast(),
            iov_len: io.len as usize,
        };
        let fd = self.fds[io.file as usize];
        let (nr, flags) = match io.dir {
            Direction::Read => (libc::SYS_preadv2, self.flags),
            Direction::Write => (libc::SYS_pwritev2, self.write_flags),
            Direction::Trim => {
                let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
                return Ok(QueueStatus::Completed(r));
            }
        };
        // (fd, iov, count, pos_l, pos_h, flags): on 64 bits the whole offset is pos_l.
        // SAFETY: iov describes a live buffer owned by the worker for the duration of the call.
        let ret = unsafe {
            crate::syscall::syscall6(
                nr,
                fd as i64,
                &iov as *const libc::iovec as i64,
                1,
                io.offset as i64,
                0,
                flags as i64,
            )
        };
        Ok(QueueStatus::Completed(ret))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn fallback(&self) -> Option<String> {
        // Either note above means RWF_HIPRI is ignored: the I/O completes by interrupt.
        (self.flags & libc::RWF_HIPRI != 0)
            .then(|| self.notes.first().cloned())
            .flatten()
    }
}
