//! `splice`: data moves through a pipe, as fio's `engines/splice.c`. A read splices the file
//! into the pipe and vmsplices the pipe into the I/O's buffer; a write vmsplices the buffer
//! into the pipe and splices the pipe into the file. Both go 64 KiB (fio's `SPLICE_DEF_SIZE`,
//! a pipe's default capacity) at a time, so what is measured is the kernel's page-moving path
//! for files, the one `sendfile` and proxies take.
//!
//! fio first vmsplices a read into a fresh read-only anonymous mapping and falls back to the
//! buffer itself on `EFAULT`, which every kernel since 2.6.x answers (vmsplice from a pipe to
//! user memory copies); iolab goes straight to that path.

use std::io::{PipeReader, PipeWriter};
use std::os::fd::AsRawFd;

use crate::{
    syscall_result, Capabilities, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
    QueueStatus,
};

/// What `splice` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Splice,
    name: "splice",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &[],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

/// fio's `SPLICE_DEF_SIZE`: the most one splice moves.
const CHUNK: usize = 64 * 1024;

pub struct Splice {
    fds: Vec<i32>,
    /// The pipe every I/O goes through; its ends close with the engine.
    pipe: (PipeReader, PipeWriter),
    trimmer: crate::Trimmer,
}

impl Splice {
    pub fn open(target: EngineTarget<'_>) -> Result<Splice, EngineError> {
        let pipe = std::io::pipe().map_err(|source| EngineError::Setup {
            engine: "splice",
            op: "pipe",
            source,
        })?;
        Ok(Splice {
            fds: target.fds.to_vec(),
            pipe,
            trimmer: crate::Trimmer::new(target.fds),
        })
    }

    /// File to pipe, pipe to buffer, a chunk at a time. Bytes read, or `-errno`.
    ///
    /// # Safety
    /// `buf` holds `len` writable bytes.
    unsafe fn read(&mut self, fd: i32, mut offset: i64, buf: *mut u8, len: usize) -> i64 {
        let mut done = 0usize;
        while done < len {
            let want = (len - done).min(CHUNK);
            let flags = if len - done > CHUNK {
                libc::SPLICE_F_MORE
            } else {
                0
            };
            // SAFETY: valid descriptors; the offset is ours.
            let n = unsafe {
                libc::splice(
                    fd,
                    &mut offset,
                    self.pipe.1.as_raw_fd(),
                    std::ptr::null_mut(),
                    want,
                    flags,
                )
            };
            if n < 0 {
                let e = syscall_result(n);
                if e == -(libc::EAGAIN as i64) || e == -(libc::ENODATA as i64) {
                    continue;
                }
                return e;
            }
            if n == 0 {
                // The file ended: a short read, as pread's.
                break;
            }
            let mut left = n as usize;
            while left > 0 {
                let iov = libc::iovec {
                    // SAFETY: within the caller's buffer (done + left <= len).
                    iov_base: unsafe { buf.add(done) }.cast(),
                    iov_len: left,
                };
                // SAFETY: the iovec names the caller's writable memory.
                let m = unsafe { libc::vmsplice(self.pipe.0.as_raw_fd(), &iov, 1, 0) };
                if m <= 0 {
                    return if m == 0 {
                        -libc::ENODATA as i64
                    } else {
                        syscall_result(m)
                    };
                }
                left -= m as usize;
                done += m as usize;
            }
        }
        done as i64
    }

    /// Buffer to pipe, pipe to file. Bytes written, or `-errno`.
    ///
    /// # Safety
    /// `buf` holds `len` readable bytes.
    unsafe fn write(&mut self, fd: i32, mut offset: i64, buf: *const u8, len: usize) -> i64 {
        let mut done = 0usize;
        while done < len {
            let iov = libc::iovec {
                // SAFETY: within the caller's buffer.
                iov_base: unsafe { buf.add(done) } as *mut libc::c_void,
                iov_len: len - done,
            };
            // SAFETY: the iovec names the caller's readable memory. Blocking (fio polls for
            // room and then asks without blocking: the same wait).
            let n = unsafe { libc::vmsplice(self.pipe.1.as_raw_fd(), &iov, 1, 0) };
            if n < 0 {
                return syscall_result(n);
            }
            let mut left = n as usize;
            while left > 0 {
                // SAFETY: valid descriptors; the offset is ours.
                let m = unsafe {
                    libc::splice(
                        self.pipe.0.as_raw_fd(),
                        std::ptr::null_mut(),
                        fd,
                        &mut offset,
                        left,
                        0,
                    )
                };
                if m <= 0 {
                    return if m == 0 {
                        -libc::EIO as i64
                    } else {
                        syscall_result(m)
                    };
                }
                left -= m as usize;
            }
            done += n as usize;
        }
        done as i64
    }
}

impl IoEngine for Splice {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let fd = self.fds[io.file as usize];
        let (off, len) = (io.offset as i64, io.len as usize);
        // SAFETY: io.buf holds io.len bytes the worker lends for the call.
        let r = unsafe {
            match io.dir {
                Direction::Read => self.read(fd, off, io.buf, len),
                Direction::Write => self.write(fd, off, io.buf, len),
                Direction::Trim => self.trimmer.trim(io.file as usize, fd, io.offset, io.len),
            }
        };
        Ok(QueueStatus::Completed(r))
    }
}
