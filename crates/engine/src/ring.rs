//! One io_uring ring as iolab's engines drive it: set up with the quietest completion mode
//! the kernel accepts, its buffers and files registered as asked, its own fd registered with
//! the submitting thread, and entered only when there is something to submit or to wait for.
//!
//! What a kernel engineer sets up by hand (Axboe's `t/io_uring` does all of it), chosen
//! here automatically and reported by [`Ring::setup`]:
//! - `SINGLE_ISSUER` + `DEFER_TASKRUN` (6.1): one thread submits and reaps, so completion
//!   work waits until that thread asks for events instead of interrupting it;
//! - `COOP_TASKRUN` (5.19) where DEFER_TASKRUN is refused: no IPI per completion;
//! - `SUBMIT_ALL` (5.18): a bad request does not stop the rest of a batch;
//! - `NO_SQARRAY` (6.6): the kernel takes SQEs in ring order, without the index array's
//!   extra cache line per batch (~1 % more IOPS at QD32 on zram, pinned to one core);
//! - a registered ring fd (`IORING_REGISTER_RING_FDS`, 5.18): no fd lookup per enter;
//! - `IORING_ENTER_GETEVENTS` only when the call waits (or polls, under IOPOLL), and on
//!   submit calls under `DEFER_TASKRUN`, which posts completions only inside such a call:
//!   asked without waiting, it posts those already done, so the reap after it often needs no
//!   call of its own (fio's commit does the same);
//! - no enter at all to reap completions already in the CQ ring, or to submit under SQPOLL
//!   while its thread is awake;
//! - the enter made by an inline `syscall` instruction, no `ret` between it and the
//!   worker's loop (see [`crate::syscall`]: ~0.6 µs per I/O on AMD where each I/O switches
//!   tasks).
//!
//! Each flag the kernel refuses (EINVAL) is dropped, as fio and t/io_uring do, so the ring
//! works from 5.10 on; the setup line says what was used.

use io_uring::{cqueue, squeue, IoUring};

use crate::syscall::{error as syscall_error, syscall6};
use crate::{BufferPool, Completion, EngineError, EngineOptions};

/// How long the SQPOLL thread spins without work before it sleeps (ms).
const SQPOLL_IDLE_MS: u32 = 1000;

// io_uring_enter(2) flags and io_uring_register(2) opcodes (include/uapi/linux/io_uring.h);
// the crate keeps its own copies private.
const ENTER_GETEVENTS: u32 = 1 << 0;
const ENTER_SQ_WAKEUP: u32 = 1 << 1;
const ENTER_EXT_ARG: u32 = 1 << 3;
const ENTER_REGISTERED_RING: u32 = 1 << 4;
const REGISTER_RING_FDS: u32 = 20;
const UNREGISTER_RING_FDS: u32 = 21;

/// `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// `struct io_uring_getevents_arg`: a wait's timeout (no signal mask).
#[repr(C)]
struct GetEventsArg {
    sigmask: u64,
    sigmask_sz: u32,
    min_wait_usec: u32,
    ts: u64,
}

/// Optional setup flags, strongest first; on EINVAL the last one still asked for is dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quiet {
    SubmitAll,
    CoopTaskrun,
    DeferTaskrun,
    NoSqArray,
}

/// A ring and how to enter it.
pub(crate) struct Ring<S: squeue::EntryMarker, C: cqueue::EntryMarker> {
    ring: IoUring<S, C>,
    engine: &'static str,
    /// What `io_uring_enter` is given for the ring: its registered index, or its fd.
    enter_fd: i32,
    /// `ENTER_REGISTERED_RING` when `enter_fd` is an index.
    enter_flags: u32,
    iopoll: bool,
    sqpoll: bool,
    /// `DEFER_TASKRUN` is on: submit calls ask for events too (see the module's doc).
    deferred: bool,
    setup: String,
}

impl<S: squeue::EntryMarker, C: cqueue::EntryMarker + Into<cqueue::Entry>> Ring<S, C> {
    /// A ring for `depth` I/Os in flight with what `opts` ask for (IOPOLL, SQPOLL on a CPU,
    /// registered buffers and files) and every quiet-completion flag the kernel accepts.
    pub(crate) fn open(
        engine: &'static str,
        depth: u32,
        opts: &EngineOptions,
        fds: &[i32],
        pool: &BufferPool,
    ) -> Result<Self, EngineError> {
        let (ring, quiet) = build(engine, depth, opts)?;
        register(&ring, engine, opts, fds, pool)?;
        let raw_fd = std::os::fd::AsRawFd::as_raw_fd(&ring);
        let registered = register_ring_fd(raw_fd);
        let mut r = Ring {
            ring,
            engine,
            enter_fd: registered.unwrap_or(raw_fd),
            enter_flags: if registered.is_some() {
                ENTER_REGISTERED_RING
            } else {
                0
            },
            iopoll: opts.hipri,
            sqpoll: opts.sqthread_poll,
            deferred: quiet.contains(&Quiet::DeferTaskrun),
            setup: String::new(),
        };
        r.setup = describe(opts, &quiet, registered.is_some());
        Ok(r)
    }

    /// What the ring was set up with, for the results (`io_uring: iopoll, single issuer, ...`).
    pub(crate) fn setup(&self) -> &str {
        &self.setup
    }

    /// Queues one entry; false when the SQ ring is full.
    ///
    /// # Safety
    /// As `SubmissionQueue::push`: whatever the entry points to must stay valid until it
    /// completes.
    #[inline(always)]
    pub(crate) unsafe fn push(&mut self, sqe: &S) -> bool {
        unsafe { self.ring.submission().push(sqe) }.is_ok()
    }

    /// Hands what is queued to the kernel, without waiting.
    #[inline(always)]
    pub(crate) fn commit(&mut self) -> Result<(), EngineError> {
        self.enter(0, "io_uring_enter (submit)")
    }

    /// Submits what is still queued and waits for `min` completions when fewer are in the CQ
    /// ring (and always enters under IOPOLL, which finds completions only by polling), then
    /// copies up to `out.len()` of them out, each result as `result(slot, cqe result)` gives.
    #[inline(always)]
    pub(crate) fn reap_into(
        &mut self,
        min: u32,
        out: &mut [Completion],
        result: impl Fn(u32, i32) -> i64,
    ) -> Result<usize, EngineError> {
        let queued = !self.ring.submission().is_empty();
        if queued || self.iopoll || (min > 0 && (self.ring.completion().len() as u32) < min) {
            self.enter(min, "io_uring_enter (wait)")?;
        }
        Ok(self.copy_out(out, result))
    }

    /// Submits what is still queued and waits at most `timeout` for one completion (under
    /// IOPOLL, polls once: a timed wait would not poll), then copies out what there is.
    pub(crate) fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
        result: impl Fn(u32, i32) -> i64,
    ) -> Result<usize, EngineError> {
        if self.iopoll || !self.ring.completion().is_empty() {
            return self.reap_into(0, out, result);
        }
        let sq = self.ring.submission();
        let to_submit = sq.len() as u32;
        drop(sq);
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        let arg = GetEventsArg {
            sigmask: 0,
            sigmask_sz: 0,
            min_wait_usec: 0,
            ts: &ts as *const libc::timespec as u64,
        };
        let flags = self.enter_flags | ENTER_GETEVENTS | ENTER_EXT_ARG;
        // SAFETY: io_uring_enter with an extended argument that lives through the call and
        // points to a timespec that does too.
        let r = unsafe {
            syscall6(
                libc::SYS_io_uring_enter,
                self.enter_fd as i64,
                to_submit as i64,
                1,
                flags as i64,
                &arg as *const GetEventsArg as i64,
                std::mem::size_of::<GetEventsArg>() as i64,
            )
        };
        if r < 0 {
            let e = syscall_error(r);
            // The time passed (ETIME), a signal came, or the kernel is busy: what there is.
            let benign = [libc::ETIME, libc::EINTR, libc::EAGAIN, libc::EBUSY];
            if !e.raw_os_error().is_some_and(|c| benign.contains(&c)) {
                return Err(EngineError::Syscall {
                    engine: self.engine,
                    op: "io_uring_enter (timed wait)",
                    source: e,
                });
            }
        }
        Ok(self.copy_out(out, result))
    }

    /// Copies up to `out.len()` completions out of the CQ ring.
    #[inline(always)]
    fn copy_out(&mut self, out: &mut [Completion], result: impl Fn(u32, i32) -> i64) -> usize {
        let mut n = 0;
        for (o, cqe) in out.iter_mut().zip(self.ring.completion()) {
            let cqe: cqueue::Entry = cqe.into();
            let slot = cqe.user_data() as u32;
            *o = Completion {
                slot,
                result: result(slot, cqe.result()),
            };
            n += 1;
        }
        n
    }

    /// One `io_uring_enter` submitting what is queued and waiting for `min` completions,
    /// again after a signal; none where SQPOLL's thread is awake and nothing is awaited.
    #[inline(always)]
    fn enter(&mut self, min: u32, op: &'static str) -> Result<(), EngineError> {
        let sq = self.ring.submission();
        let to_submit = sq.len() as u32;
        let mut flags = self.enter_flags;
        if min > 0 || self.iopoll || self.deferred || sq.cq_overflow() || sq.taskrun() {
            flags |= ENTER_GETEVENTS;
        }
        if self.sqpoll {
            if sq.need_wakeup() {
                flags |= ENTER_SQ_WAKEUP;
            } else if flags & ENTER_GETEVENTS == 0 {
                return Ok(());
            }
        } else if to_submit == 0 && flags & ENTER_GETEVENTS == 0 {
            return Ok(());
        }
        drop(sq);
        loop {
            // SAFETY: io_uring_enter with no signal mask argument (NULL, size 0), by the
            // inline instruction (crate::syscall says why).
            let r = unsafe {
                syscall6(
                    libc::SYS_io_uring_enter,
                    self.enter_fd as i64,
                    to_submit as i64,
                    min as i64,
                    flags as i64,
                    0,
                    0,
                )
            };
            if r >= 0 {
                return Ok(());
            }
            let e = syscall_error(r);
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN) | Some(libc::EBUSY) if min > 0 => continue,
                _ => {
                    return Err(EngineError::Syscall {
                        engine: self.engine,
                        op,
                        source: e,
                    })
                }
            }
        }
    }
}

impl<S: squeue::EntryMarker, C: cqueue::EntryMarker> Drop for Ring<S, C> {
    fn drop(&mut self) {
        if self.enter_flags & ENTER_REGISTERED_RING != 0 {
            // A registered ring fd holds the ring open until the thread exits: give it back.
            let up = RsrcUpdate {
                offset: self.enter_fd as u32,
                resv: 0,
                data: 0,
            };
            let fd = std::os::fd::AsRawFd::as_raw_fd(&self.ring);
            // SAFETY: `up` is a valid io_uring_rsrc_update for one entry.
            unsafe { libc::syscall(libc::SYS_io_uring_register, fd, UNREGISTER_RING_FDS, &up, 1) };
        }
    }
}

/// Registers the ring's fd with the calling thread; its index, or None where the kernel
/// (before 5.18) cannot.
fn register_ring_fd(fd: i32) -> Option<i32> {
    let mut up = RsrcUpdate {
        offset: u32::MAX,
        resv: 0,
        data: fd as u64,
    };
    // SAFETY: `up` is a valid io_uring_rsrc_update for one entry; the kernel writes the index.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            fd,
            REGISTER_RING_FDS,
            &mut up as *mut RsrcUpdate,
            1,
        )
    };
    (r == 1).then_some(up.offset as i32)
}

/// Sets the ring up, dropping optional flags the kernel refuses; returns those it kept.
fn build<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
    engine: &'static str,
    depth: u32,
    opts: &EngineOptions,
) -> Result<(IoUring<S, C>, Vec<Quiet>), EngineError> {
    let entries = depth.max(1).next_power_of_two();
    let mut quiet = if opts.sqthread_poll {
        // The SQPOLL thread submits: no single issuer, nothing deferred to this thread.
        vec![Quiet::SubmitAll]
    } else {
        vec![
            Quiet::SubmitAll,
            Quiet::CoopTaskrun,
            Quiet::DeferTaskrun,
            Quiet::NoSqArray,
        ]
    };
    loop {
        let mut b = IoUring::<S, C>::builder();
        b.setup_cqsize(entries);
        if opts.hipri {
            b.setup_iopoll();
        }
        if opts.sqthread_poll {
            b.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(cpu) = opts.sqthread_poll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        for q in &quiet {
            match q {
                Quiet::SubmitAll => b.setup_submit_all(),
                Quiet::CoopTaskrun => b.setup_coop_taskrun(),
                Quiet::DeferTaskrun => b.setup_single_issuer().setup_defer_taskrun(),
                Quiet::NoSqArray => b.setup_no_sqarray(),
            };
        }
        match b.build(entries) {
            Ok(ring) => return Ok((ring, quiet)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && !quiet.is_empty() => {
                quiet.pop();
            }
            Err(e) => return Err(ring_error(engine, e)),
        }
    }
}

/// The setup line: asked-for modes, then what iolab chose.
fn describe(opts: &EngineOptions, quiet: &[Quiet], registered_ring: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if opts.hipri {
        parts.push("iopoll".into());
    }
    if opts.sqthread_poll {
        parts.push(match opts.sqthread_poll_cpu {
            Some(cpu) => format!("sqpoll on cpu {cpu}"),
            None => "sqpoll".into(),
        });
    }
    for q in quiet {
        parts.push(
            match q {
                Quiet::SubmitAll => "submit all",
                Quiet::CoopTaskrun => "coop taskrun",
                Quiet::DeferTaskrun => "single issuer, defer taskrun",
                Quiet::NoSqArray => "no sq array",
            }
            .into(),
        );
    }
    if registered_ring {
        parts.push("registered ring fd".into());
    }
    if crate::syscall::INLINE {
        parts.push("inline enter".into());
    }
    if opts.fixedbufs {
        parts.push("fixed buffers".into());
    }
    if opts.registerfiles {
        parts.push("registered files".into());
    }
    parts.join(", ")
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
fn register<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
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

/// Whether this kernel takes polled I/O (IOPOLL) on a device without poll queues: one read of
/// `len` bytes at the start of the first file, polled to completion. Linux 6.1 clears the
/// polled flag and completes such I/O by interrupt (fio's job then runs); later kernels fail
/// it with EOPNOTSUPP (fio's job then fails on its first I/O). Slot 0's buffer is put back
/// as it was: its contents may be the job's write data.
pub(crate) fn polled_read_works<E: crate::IoEngine>(
    engine: &mut E,
    pool: &BufferPool,
    len: u32,
) -> Result<bool, EngineError> {
    let len = (len as usize).min(pool.slot_len()) as u32;
    let buf = pool.slot_ptr(0);
    // SAFETY: slot 0 holds slot_len() bytes and nothing is in flight on it yet.
    let kept = unsafe { std::slice::from_raw_parts(buf, len as usize) }.to_vec();
    let io = crate::IoUnit {
        slot: 0,
        file: 0,
        dir: crate::Direction::Read,
        offset: 0,
        len,
        buf,
        ioprio: 0,
        prio_index: 0,
    };
    let refused = -(libc::EOPNOTSUPP as i64);
    // SAFETY: the buffer is the pool's slot 0, which outlives the I/O (reaped below).
    let result = match unsafe { engine.queue(&io) }? {
        crate::QueueStatus::Completed(r) => Some(r),
        crate::QueueStatus::Busy => None,
        crate::QueueStatus::Queued => {
            engine.commit()?;
            let mut out = [Completion::default()];
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            loop {
                if engine.reap(1, &mut out)? > 0 {
                    break Some(out[0].result);
                }
                if std::time::Instant::now() > deadline {
                    break None;
                }
            }
        }
    };
    // SAFETY: the read has completed (or was never issued); slot 0 is free again.
    unsafe { std::ptr::copy_nonoverlapping(kept.as_ptr(), buf, kept.len()) };
    Ok(result != Some(refused))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setup_line_names_what_was_asked_and_chosen() {
        let mut o = EngineOptions {
            fixedbufs: true,
            ..Default::default()
        };
        let all = [Quiet::SubmitAll, Quiet::CoopTaskrun, Quiet::DeferTaskrun];
        let inline = if crate::syscall::INLINE {
            "inline enter, "
        } else {
            ""
        };
        assert_eq!(
            describe(&o, &all, true),
            format!(
                "submit all, coop taskrun, single issuer, defer taskrun, registered ring fd, \
                 {inline}fixed buffers"
            )
        );
        o.sqthread_poll = true;
        o.sqthread_poll_cpu = Some(1);
        assert_eq!(
            describe(&o, &[Quiet::SubmitAll], false),
            format!("sqpoll on cpu 1, submit all, {inline}fixed buffers")
        );
    }
}
