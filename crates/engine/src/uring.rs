//! `io_uring`: interrupt-driven by default; `hipri` sets up IOPOLL (the submitting thread
//! polls the device's poll queues), `sqthread_poll` sets up SQPOLL (a kernel thread picks up
//! submissions), `fixedbufs` registers the buffer pool once, `registerfiles` registers the files.
//!
//! IOPOLL on a device without poll queues would fail every I/O with EOPNOTSUPP; we refuse at
//! open with the reason instead. A device without NOWAIT support (zram) makes the kernel hand
//! every request to io-wq worker threads; the runner detects that from those threads' CPU time.

use std::marker::PhantomData;

use io_uring::{cqueue, opcode, squeue, types, IoUring, Submitter};

use crate::{
    BufferPool, Capabilities, Completion, Direction, EngineError, EngineOptions, EngineTarget,
    IoEngine, IoUnit, QueueStatus,
};

const ENGINE: &str = "io_uring";
/// How long the SQPOLL thread spins without work before it sleeps (ms).
const SQPOLL_IDLE_MS: u32 = 1000;

/// What `io_uring` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::IoUring,
    name: "io_uring",
    synchronous: false,
    accepts: crate::Accepts::STORAGE,
    options: &["hipri", "sqthread_poll", "fixedbufs", "registerfiles"],
};

/// The `'pool` lifetime ties the ring to the buffer pool whose buffers it may have registered.
pub struct Uring<'pool> {
    ring: IoUring,
    fds: Vec<i32>,
    opts: EngineOptions,
    _pool: PhantomData<&'pool BufferPool>,
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
        if opts.hipri && !target.polled_device {
            return Err(EngineError::Unsupported {
                engine: ENGINE,
                reason: format!(
                    "--hipri (IOPOLL) needs a device with poll queues; {} has none \
                     (queue/io_poll=0). Drop --hipri, or give the driver poll queues \
                     (e.g. nvme.poll_queues=N)",
                    target.name
                ),
            });
        }
        let ring = build_ring(ENGINE, depth, opts)?;
        register(&ring, ENGINE, opts, target.fds, pool)?;
        Ok(Uring {
            ring,
            fds: target.fds.to_vec(),
            opts: *opts,
            _pool: PhantomData,
        })
    }

    #[inline(always)]
    fn build_sqe(&self, io: &IoUnit) -> squeue::Entry {
        macro_rules! with_fd {
            ($op:expr) => {
                if self.opts.registerfiles {
                    $op(types::Fixed(io.file))
                } else {
                    $op(types::Fd(self.fds[io.file as usize]))
                }
            };
        }
        let sqe = match (io.dir, self.opts.fixedbufs) {
            (Direction::Read, false) => {
                with_fd!(|f| opcode::Read::new(f, io.buf, io.len)
                    .offset(io.offset)
                    .build())
            }
            (Direction::Write, false) => {
                with_fd!(|f| opcode::Write::new(f, io.buf, io.len)
                    .offset(io.offset)
                    .build())
            }
            (Direction::Read, true) => {
                with_fd!(
                    |f| opcode::ReadFixed::new(f, io.buf, io.len, io.slot as u16)
                        .offset(io.offset)
                        .build()
                )
            }
            (Direction::Write, true) => {
                with_fd!(
                    |f| opcode::WriteFixed::new(f, io.buf, io.len, io.slot as u16)
                        .offset(io.offset)
                        .build()
                )
            }
        };
        sqe.user_data(io.slot as u64)
    }
}

impl IoEngine for Uring<'_> {
    fn capabilities(&self) -> Capabilities {
        Capabilities { synchronous: false }
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let sqe = self.build_sqe(io);
        // SAFETY: the buffer behind io.buf belongs to the worker's pool and stays untouched
        // until this I/O's completion is reaped.
        match unsafe { self.ring.submission().push(&sqe) } {
            Ok(()) => Ok(QueueStatus::Queued),
            Err(_) => Ok(QueueStatus::Busy),
        }
    }

    fn commit(&mut self) -> Result<(), EngineError> {
        submit(&self.ring.submitter(), ENGINE)
    }

    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        let hipri = self.opts.hipri;
        reap_into(&mut self.ring, ENGINE, hipri, min, out, |_, res| res as i64)
    }
}

/// Waits for `min` completions (and always enters the kernel under IOPOLL, which finds
/// completions only by polling), then copies up to `out.len()` of them out, each result as
/// `result(slot, cqe result)` gives it.
#[inline(always)]
pub(crate) fn reap_into<S, C>(
    ring: &mut IoUring<S, C>,
    engine: &'static str,
    hipri: bool,
    min: u32,
    out: &mut [Completion],
    result: impl Fn(u32, i32) -> i64,
) -> Result<usize, EngineError>
where
    S: squeue::EntryMarker,
    C: cqueue::EntryMarker + Into<cqueue::Entry>,
{
    if min > 0 || hipri {
        wait(&ring.submitter(), engine, min)?;
    }
    let mut n = 0;
    for (o, cqe) in out.iter_mut().zip(ring.completion()) {
        let cqe: cqueue::Entry = cqe.into();
        let slot = cqe.user_data() as u32;
        *o = Completion {
            slot,
            result: result(slot, cqe.result()),
        };
        n += 1;
    }
    Ok(n)
}

/// A ring for `depth` I/Os in flight with the setup `opts` ask for (IOPOLL, SQPOLL) and,
/// where the kernel has them, quiet completions.
pub(crate) fn build_ring<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    engine: &'static str,
    depth: u32,
    opts: &EngineOptions,
) -> Result<IoUring<S, C>, EngineError> {
    let entries = depth.max(1).next_power_of_two();
    let build = |quiet_completions: bool| {
        let mut builder = IoUring::<S, C>::builder();
        builder.setup_cqsize(entries);
        if opts.hipri {
            builder.setup_iopoll();
        }
        if opts.sqthread_poll {
            builder.setup_sqpoll(SQPOLL_IDLE_MS);
        } else if quiet_completions {
            // As fio does: the worker thread is the ring's only submitter and reaps its own
            // completions, so the kernel need not interrupt it (IPI / task-work signal) for
            // each one; completion work runs when it asks for events.
            builder
                .setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun();
        }
        builder.build(entries)
    };
    match build(true) {
        // Kernels before 6.1 reject DEFER_TASKRUN: fall back to plain completion.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => build(false),
        r => r,
    }
    .map_err(|e| ring_error(engine, e))
}

/// Why a ring could not be set up: io_uring disabled by the administrator, or the syscall's
/// own error.
pub(crate) fn ring_error(engine: &'static str, e: std::io::Error) -> EngineError {
    let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .map(|s| s.trim() != "0")
        .unwrap_or(false);
    if disabled || e.raw_os_error() == Some(libc::ENOSYS) {
        EngineError::Unsupported {
            engine,
            reason: format!(
                "io_uring is disabled on this kernel ({e}; see /proc/sys/kernel/io_uring_disabled)"
            ),
        }
    } else {
        EngineError::Setup {
            engine,
            op: "io_uring_setup",
            source: e,
        }
    }
}

/// Registers the buffer pool (`fixedbufs`) and the files (`registerfiles`) with `ring`.
pub(crate) fn register<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    ring: &IoUring<S, C>,
    engine: &'static str,
    opts: &EngineOptions,
    fds: &[i32],
    pool: &BufferPool,
) -> Result<(), EngineError> {
    if opts.fixedbufs {
        let iovecs = pool.iovecs();
        // SAFETY: the iovecs point into `pool`, which the engine's `'pool` lifetime keeps
        // alive for as long as the ring exists; the ring unregisters them when dropped.
        unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| EngineError::Setup {
            engine,
            op: "IORING_REGISTER_BUFFERS",
            source: e,
        })?;
    }
    if opts.registerfiles {
        ring.submitter()
            .register_files(fds)
            .map_err(|e| EngineError::Setup {
                engine,
                op: "IORING_REGISTER_FILES",
                source: e,
            })?;
    }
    Ok(())
}

/// Issues what is queued (`io_uring_enter`), again after a signal.
pub(crate) fn submit(s: &Submitter<'_>, engine: &'static str) -> Result<(), EngineError> {
    loop {
        match s.submit() {
            Ok(_) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => {
                return Err(EngineError::Syscall {
                    engine,
                    op: "io_uring_enter (submit)",
                    source: e,
                })
            }
        }
    }
}

/// Issues what is queued and waits for `min` completions (polls for them under IOPOLL).
fn wait(s: &Submitter<'_>, engine: &'static str, min: u32) -> Result<(), EngineError> {
    loop {
        match s.submit_and_wait(min as usize) {
            Ok(_) => return Ok(()),
            Err(e)
                if e.raw_os_error() == Some(libc::EINTR)
                    || e.raw_os_error() == Some(libc::EAGAIN) =>
            {
                continue
            }
            Err(e) => {
                return Err(EngineError::Syscall {
                    engine,
                    op: "io_uring_enter (wait)",
                    source: e,
                })
            }
        }
    }
}
