//! `posixaio`: POSIX asynchronous I/O (`aio_read`/`aio_write`, glibc's helper threads doing
//! the system calls), as fio's `engines/posixaio.c`: queue hands the I/O over, reap asks each
//! in-flight request's `aio_error` and sleeps in `aio_suspend` on up to eight of them until
//! enough are done. Trims are done synchronously once nothing is in flight (fio's
//! `FIO_ASYNCIO_SYNC_TRIM`).
//!
//! Each slot owns one `aiocb` for the engine's life, since glibc keeps a pointer to it while
//! the request runs; dropping the engine cancels and waits for whatever is still in flight,
//! so no helper thread writes into a buffer after the worker let it go.

use crate::{
    Capabilities, Completion, Direction, EngineError, EngineTarget, IoEngine, IoUnit, QueueStatus,
};

/// What `posixaio` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Posixaio,
    name: "posixaio",
    synchronous: false,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

/// fio's `SUSPEND_ENTRIES`: how many in-flight requests one `aio_suspend` waits on.
const SUSPEND_ENTRIES: usize = 8;

pub struct Posixaio {
    fds: Vec<i32>,
    /// One control block per slot, never moved while its request runs.
    cbs: Box<[libc::aiocb]>,
    /// Slots in flight, in submission order.
    flight: Vec<u32>,
    trimmer: crate::Trimmer,
}

impl Posixaio {
    pub fn open(target: EngineTarget<'_>, depth: u32) -> Result<Posixaio, EngineError> {
        // SAFETY: aiocb is plain data; all-zero is its documented initial state.
        let cbs = (0..depth)
            .map(|_| unsafe { std::mem::zeroed::<libc::aiocb>() })
            .collect();
        Ok(Posixaio {
            fds: target.fds.to_vec(),
            cbs,
            flight: Vec::with_capacity(depth as usize),
            trimmer: crate::Trimmer::new(target.fds),
        })
    }

    /// The finished request of slot `slot`, or `None` while it runs.
    fn finished(&mut self, slot: u32) -> Option<i64> {
        let cb = &mut self.cbs[slot as usize];
        // SAFETY: the control block of a request this engine submitted.
        match unsafe { libc::aio_error(cb) } {
            libc::EINPROGRESS => None,
            0 => Some(unsafe { libc::aio_return(cb) } as i64),
            libc::ECANCELED => Some(0),
            err if err > 0 => Some(-(err as i64)),
            _ => Some(crate::syscall_result(-1)),
        }
    }
}

impl IoEngine for Posixaio {
    fn capabilities(&self) -> Capabilities {
        Capabilities::ASYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        if io.dir == Direction::Trim {
            if !self.flight.is_empty() {
                return Ok(QueueStatus::Busy);
            }
            let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
            return Ok(QueueStatus::Completed(r));
        }
        let cb = &mut self.cbs[io.slot as usize];
        cb.aio_fildes = fd;
        cb.aio_buf = io.buf.cast();
        cb.aio_nbytes = io.len as usize;
        cb.aio_offset = io.offset as i64;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the control block stays put until reaped (or cancelled at drop); the
        // caller keeps `io.buf` valid for as long (the `queue` contract).
        let ret = unsafe {
            match io.dir {
                Direction::Read => libc::aio_read(cb),
                _ => libc::aio_write(cb),
            }
        };
        if ret != 0 {
            let e = std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if e == libc::EAGAIN {
                return Ok(QueueStatus::Busy);
            }
            return Ok(QueueStatus::Completed(-(e as i64)));
        }
        self.flight.push(io.slot);
        Ok(QueueStatus::Queued)
    }

    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        let mut n = 0;
        loop {
            let mut i = 0;
            while i < self.flight.len() && n < out.len() {
                let slot = self.flight[i];
                match self.finished(slot) {
                    Some(result) => {
                        out[n] = Completion { slot, result };
                        n += 1;
                        self.flight.remove(i);
                    }
                    None => i += 1,
                }
            }
            if n >= min as usize || n == out.len() || self.flight.is_empty() {
                return Ok(n);
            }
            let mut list = [std::ptr::null::<libc::aiocb>(); SUSPEND_ENTRIES];
            let waiting = self.flight.len().min(SUSPEND_ENTRIES);
            for (p, &slot) in list.iter_mut().zip(&self.flight) {
                *p = &self.cbs[slot as usize];
            }
            // SAFETY: pointers to live control blocks of requests in flight. EINTR and
            // EAGAIN only mean look again.
            unsafe { libc::aio_suspend(list.as_ptr(), waiting as i32, std::ptr::null()) };
        }
    }
}

impl Drop for Posixaio {
    fn drop(&mut self) {
        for i in 0..self.flight.len() {
            let slot = self.flight[i] as usize;
            let fd = self.cbs[slot].aio_fildes;
            // SAFETY: a request this engine submitted; waiting below until it is over.
            unsafe { libc::aio_cancel(fd, &mut self.cbs[slot]) };
            while self.finished(slot as u32).is_none() {
                let list = [&self.cbs[slot] as *const libc::aiocb];
                // SAFETY: as in reap.
                unsafe { libc::aio_suspend(list.as_ptr(), 1, std::ptr::null()) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn queued_writes_and_reads_complete_through_reap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; 65536]).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let fds = [f.as_raw_fd()];
        let target = EngineTarget {
            fds: &fds,
            direct: false,
            polled_device: false,
            name: "f",
            logical_block_size: 512,
            access: crate::AccessHint::None,
            pins: &[],
            pass_bytes: &[],
            donor: None,
        };
        let mut e = Posixaio::open(target, 4).unwrap();
        let mut bufs: Vec<Vec<u8>> = (0..4).map(|i| vec![i as u8 + 1; 4096]).collect();
        for (slot, b) in bufs.iter_mut().enumerate() {
            let io = IoUnit {
                slot: slot as u32,
                file: 0,
                dir: Direction::Write,
                offset: slot as u64 * 4096,
                len: 4096,
                buf: b.as_mut_ptr(),
                ioprio: 0,
                prio_index: 0,
            };
            assert_eq!(unsafe { e.queue(&io).unwrap() }, QueueStatus::Queued);
        }
        let mut out = [Completion::default(); 4];
        let mut done = 0;
        while done < 4 {
            done += e.reap(1, &mut out[done..]).unwrap();
        }
        assert!(out.iter().all(|c| c.result == 4096), "{out:?}");
        let mut back = vec![0u8; 4096];
        let io = IoUnit {
            slot: 0,
            file: 0,
            dir: Direction::Read,
            offset: 8192,
            len: 4096,
            buf: back.as_mut_ptr(),
            ioprio: 0,
            prio_index: 0,
        };
        assert_eq!(unsafe { e.queue(&io).unwrap() }, QueueStatus::Queued);
        assert_eq!(e.reap(1, &mut out).unwrap(), 1);
        assert_eq!((out[0].slot, out[0].result), (0, 4096));
        assert!(back.iter().all(|&b| b == 3));
    }
}
