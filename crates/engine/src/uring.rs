//! `io_uring`: interrupt-driven by default; `hipri` sets up IOPOLL (the submitting thread
//! polls the device's poll queues), `sqthread_poll` sets up SQPOLL (a kernel thread picks up
//! submissions, `sqthread_poll_cpu` pins it), `fixedbufs` registers the buffer pool once,
//! `registerfiles` registers the files; `nonvectored=0` uses READV/WRITEV instead of
//! READ/WRITE, `force_async=N` sends every Nth request straight to io-wq (fio's meanings).
//! The ring itself (setup flags, doorbell, reaping) is [`crate::ring::Ring`]'s.
//!
//! IOPOLL on a device without poll queues would fail every I/O with EOPNOTSUPP; we refuse at
//! open with the reason instead. A device without NOWAIT support (zram) makes the kernel hand
//! every request to io-wq worker threads; the runner detects that from those threads' CPU time.

use std::marker::PhantomData;

use io_uring::{cqueue, opcode, squeue, types};

use crate::ring::Ring;
use crate::{
    BufferPool, Capabilities, Completion, Direction, EngineError, EngineOptions, EngineTarget,
    IoEngine, IoUnit, QueueStatus,
};

const ENGINE: &str = "io_uring";

/// What `io_uring` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::IoUring,
    name: "io_uring",
    synchronous: false,
    accepts: crate::Accepts::STORAGE,
    options: with_cmdprio_options![
        "hipri",
        "uncached",
        "sqthread_poll",
        "sqthread_poll_cpu",
        "fixedbufs",
        "registerfiles",
        "nonvectored",
        "force_async",
    ],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

/// The `'pool` lifetime ties the ring to the buffer pool whose buffers it may have registered.
pub struct Uring<'pool> {
    ring: Ring<squeue::Entry, cqueue::Entry>,
    fds: Vec<i32>,
    opts: EngineOptions,
    /// RWF_ flags of reads and writes (`uncached`, `atomic`).
    flags: crate::rwf::RwFlags,
    /// READV/WRITEV (`nonvectored=0`): each slot's one iovec, which must live until the I/O
    /// completes. Empty otherwise.
    iovecs: Vec<libc::iovec>,
    /// I/Os queued since the last one forced to io-wq (`force_async=N`).
    since_async: u32,
    trimmer: crate::Trimmer,
    /// How the kernel serves what was asked, found at open (`hipri` without poll queues).
    notes: Vec<String>,
    _pool: PhantomData<&'pool BufferPool>,
}

/// `hipri` on a device without poll queues: where this kernel fails polled I/O there, the
/// job is refused as fio's would fail on its first I/O; where it takes it (completing it by
/// interrupt, as Linux 6.1 does), the job runs as fio's does, with a note saying so. The
/// disk's interrupt count then tells how each I/O completed.
pub(crate) fn unpolled_hipri<E: IoEngine>(
    engine: &mut E,
    name: &'static str,
    target: &EngineTarget<'_>,
    pool: &BufferPool,
) -> Result<String, EngineError> {
    if !crate::ring::polled_read_works(engine, pool, target.logical_block_size.max(512))? {
        return Err(EngineError::Unsupported {
            engine: name,
            reason: format!(
                "--hipri (IOPOLL) needs a device with poll queues on this kernel: {} has \
                 none (queue/io_poll=0), and a polled read there fails with EOPNOTSUPP (as \
                 fio's first I/O does). Drop --hipri, or give the driver poll queues (e.g. \
                 nvme.poll_queues=N)",
                target.name
            ),
        });
    }
    Ok(format!(
        "{name} --hipri: {} has no poll queues (queue/io_poll=0); this kernel takes polled \
         I/O there and completes it by interrupt, as fio's job does",
        target.name
    ))
}

impl<'pool> Uring<'pool> {
    pub fn open(
        target: EngineTarget<'_>,
        depth: u32,
        opts: &EngineOptions,
        pool: &'pool BufferPool,
    ) -> Result<Uring<'pool>, EngineError> {
        if opts.hipri && !target.direct {
            return Err(EngineError::Unsupported {
                engine: ENGINE,
                reason: "--hipri (IOPOLL) needs --direct=1: the kernel polls only O_DIRECT I/O"
                    .into(),
            });
        }
        let ring = Ring::open(ENGINE, depth, opts, target.fds, pool)?;
        let mut notes = Vec::new();
        let flags = crate::rwf::flags(opts, &target, &mut notes);
        let vectored = opts.nonvectored == Some(false) && !opts.fixedbufs;
        let empty = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        let mut engine = Uring {
            ring,
            fds: target.fds.to_vec(),
            opts: opts.clone(),
            flags,
            iovecs: if vectored {
                vec![empty; pool.slots()]
            } else {
                Vec::new()
            },
            since_async: 0,
            trimmer: crate::Trimmer::new(target.fds),
            notes,
            _pool: PhantomData,
        };
        if opts.hipri && !target.polled_device {
            let note = unpolled_hipri(&mut engine, ENGINE, &target, pool)?;
            engine.notes.push(note);
        }
        Ok(engine)
    }

    #[inline(always)]
    fn build_sqe(&mut self, io: &IoUnit) -> squeue::Entry {
        let sqe = if self.iovecs.is_empty() {
            self.build_plain(io)
        } else {
            self.build_vectored(io)
        };
        let sqe = sqe.user_data(io.slot as u64);
        if self.opts.force_async > 0 {
            self.since_async += 1;
            if self.since_async == self.opts.force_async {
                // As fio's force_async: every Nth request goes straight to io-wq.
                self.since_async = 0;
                return sqe.flags(squeue::Flags::ASYNC);
            }
        }
        sqe
    }

    /// The RWF_ flags of an I/O in direction `dir`.
    #[inline(always)]
    fn rw_flags(&self, dir: Direction) -> i32 {
        match dir {
            Direction::Write => self.flags.write,
            _ => self.flags.read,
        }
    }

    /// READV/WRITEV with the slot's single iovec (`nonvectored=0`).
    #[inline(always)]
    fn build_vectored(&mut self, io: &IoUnit) -> squeue::Entry {
        let iov = &mut self.iovecs[io.slot as usize];
        iov.iov_base = io.buf.cast();
        iov.iov_len = io.len as usize;
        let iov: *const libc::iovec = iov;
        let fd = self.fds[io.file as usize];
        // 0: the thread's priority (the kernel takes the submitter's).
        let prio = io.ioprio;
        let rwf = self.rw_flags(io.dir);
        macro_rules! with_fd {
            ($op:ident) => {
                if self.opts.registerfiles {
                    opcode::$op::new(types::Fixed(io.file), iov, 1)
                        .offset(io.offset)
                        .ioprio(prio)
                        .rw_flags(rwf)
                        .build()
                } else {
                    opcode::$op::new(types::Fd(fd), iov, 1)
                        .offset(io.offset)
                        .ioprio(prio)
                        .rw_flags(rwf)
                        .build()
                }
            };
        }
        match io.dir {
            Direction::Read => with_fd!(Readv),
            Direction::Write => with_fd!(Writev),
            Direction::Trim => unreachable!("trims are done in queue"),
        }
    }

    /// READ/WRITE, or READ_FIXED/WRITE_FIXED on registered buffers.
    #[inline(always)]
    fn build_plain(&self, io: &IoUnit) -> squeue::Entry {
        // 0: the thread's priority (the kernel takes the submitter's).
        let prio = io.ioprio;
        let rwf = self.rw_flags(io.dir);
        macro_rules! with_fd {
            ($op:expr) => {
                if self.opts.registerfiles {
                    $op(types::Fixed(io.file))
                } else {
                    $op(types::Fd(self.fds[io.file as usize]))
                }
            };
        }
        match (io.dir, self.opts.fixedbufs) {
            (Direction::Read, false) => {
                with_fd!(|f| opcode::Read::new(f, io.buf, io.len)
                    .offset(io.offset)
                    .ioprio(prio)
                    .rw_flags(rwf)
                    .build())
            }
            (Direction::Write, false) => {
                with_fd!(|f| opcode::Write::new(f, io.buf, io.len)
                    .offset(io.offset)
                    .ioprio(prio)
                    .rw_flags(rwf)
                    .build())
            }
            (Direction::Read, true) => {
                with_fd!(
                    |f| opcode::ReadFixed::new(f, io.buf, io.len, io.slot as u16)
                        .offset(io.offset)
                        .ioprio(prio)
                        .rw_flags(rwf)
                        .build()
                )
            }
            (Direction::Write, true) => {
                with_fd!(
                    |f| opcode::WriteFixed::new(f, io.buf, io.len, io.slot as u16)
                        .offset(io.offset)
                        .ioprio(prio)
                        .rw_flags(rwf)
                        .build()
                )
            }
            (Direction::Trim, _) => unreachable!("trims are done in queue"),
        }
    }
}

impl IoEngine for Uring<'_> {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            submits_on_reap: true,
            ..Capabilities::ASYNCHRONOUS
        }
    }

    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        if io.dir == Direction::Trim {
            // As fio's io_uring engine: a trim is done at once, outside the ring.
            let fd = self.fds[io.file as usize];
            let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
            return Ok(QueueStatus::Completed(r));
        }
        let sqe = self.build_sqe(io);
        // SAFETY: the buffer behind io.buf belongs to the worker's pool and stays untouched
        // until this I/O's completion is reaped.
        if unsafe { self.ring.push(&sqe) } {
            Ok(QueueStatus::Queued)
        } else {
            Ok(QueueStatus::Busy)
        }
    }

    // Inlined into the worker's loop: no `ret` after the enter (crate::syscall says why).
    #[inline(always)]
    fn commit(&mut self) -> Result<(), EngineError> {
        self.ring.commit()
    }

    #[inline(always)]
    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        self.ring.reap_into(min, out, |_, res| res as i64)
    }

    fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
    ) -> Result<usize, EngineError> {
        self.ring.reap_within(out, timeout, |_, res| res as i64)
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn setup(&self) -> Option<String> {
        let mut s = self.ring.setup().to_string();
        if !self.iovecs.is_empty() {
            s.push_str(", readv/writev");
        }
        if self.opts.force_async > 0 {
            s.push_str(&format!(", every {} async", self.opts.force_async));
        }
        Some(s)
    }
}
