//! `libaio`: Linux native AIO through the raw io_setup/io_submit/io_getevents system calls
//! (no libaio.so needed). Only O_DIRECT I/O is truly asynchronous; buffered AIO completes
//! inside io_submit, as with fio.

use std::io;

use crate::{
    Capabilities, Completion, Direction, EngineError, EngineTarget, IoEngine, IoUnit, QueueStatus,
};

const ENGINE: &str = "libaio";
const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

/// `struct iocb` from <linux/aio_abi.h> (little-endian field order).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoCb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `IOCB_FLAG_IOPRIO` from <linux/aio_abi.h>: `aio_reqprio` holds the request's priority.
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct io_event` from <linux/aio_abi.h>.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// What `libaio` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Libaio,
    name: "libaio",
    synchronous: false,
    accepts: crate::Accepts::STORAGE,
    options: crate::CMDPRIO_OPTIONS,
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

pub struct Libaio {
    ctx: libc::c_ulong,
    fds: Vec<i32>,
    /// One control block per slot; the kernel reads them during io_submit.
    iocbs: Vec<IoCb>,
    /// Pointers to the control blocks queued since the last commit.
    pending: Vec<*mut IoCb>,
    events: Vec<IoEvent>,
    trimmer: crate::Trimmer,
    /// RWF_ATOMIC on writes (`atomic`), else 0.
    write_flags: i32,
}

impl Libaio {
    pub fn open(
        target: EngineTarget<'_>,
        depth: u32,
        opts: &crate::EngineOptions,
    ) -> Result<Libaio, EngineError> {
        let depth = depth.max(1);
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context id into ctx.
        let ret = unsafe { libc::syscall(libc::SYS_io_setup, depth as libc::c_long, &mut ctx) };
        if ret < 0 {
            return Err(EngineError::Setup {
                engine: ENGINE,
                op: "io_setup",
                source: io::Error::last_os_error(),
            });
        }
        Ok(Libaio {
            ctx,
            fds: target.fds.to_vec(),
            iocbs: vec![IoCb::default(); depth as usize],
            pending: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth as usize],
            trimmer: crate::Trimmer::new(target.fds),
            write_flags: if opts.atomic { libc::RWF_ATOMIC } else { 0 },
        })
    }
}

impl IoEngine for Libaio {
    fn capabilities(&self) -> Capabilities {
        Capabilities::ASYNCHRONOUS
    }

    #[inline(always)]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        if io.dir == Direction::Trim {
            // As fio's libaio: a trim is done at once, not through the kernel's AIO.
            let fd = self.fds[io.file as usize];
            let r = self.trimmer.trim(io.file as usize, fd, io.offset, io.len);
            return Ok(QueueStatus::Completed(r));
        }
        let Some(cb) = self.iocbs.get_mut(io.slot as usize) else {
            return Ok(QueueStatus::Busy);
        };
        *cb = IoCb {
            aio_data: io.slot as u64,
            aio_lio_opcode: match io.dir {
                Direction::Read => IOCB_CMD_PREAD,
                Direction::Write => IOCB_CMD_PWRITE,
                Direction::Trim => unreachable!("trims are done above"),
            },
            aio_fildes: self.fds[io.file as usize] as u32,
            aio_buf: io.buf as u64,
            aio_nbytes: io.len as u64,
            aio_offset: io.offset as i64,
            // A priority of the request's own (fio's cmdprio), else the thread's.
            aio_reqprio: io.ioprio as i16,
            aio_flags: if io.ioprio != 0 { IOCB_FLAG_IOPRIO } else { 0 },
            aio_rw_flags: match io.dir {
                Direction::Write => self.write_flags,
                _ => 0,
            },
            ..IoCb::default()
        };
        self.pending.push(cb);
        Ok(QueueStatus::Queued)
    }

    // Inlined into the worker's loop, as reap: no `ret` after the call (crate::syscall).
    #[inline(always)]
    fn commit(&mut self) -> Result<(), EngineError> {
        let mut done = 0;
        while done < self.pending.len() {
            let rest = &mut self.pending[done..];
            // SAFETY: every pointer in `pending` points into `iocbs`, alive and unmoved (the
            // Vec never grows after open) until the event for it has been reaped.
            // The inline instruction, as io_uring's enter (crate::syscall says why).
            let ret = unsafe {
                crate::syscall::syscall6(
                    libc::SYS_io_submit,
                    self.ctx as i64,
                    rest.len() as i64,
                    rest.as_mut_ptr() as i64,
                    0,
                    0,
                    0,
                )
            };
            if ret < 0 {
                let err = crate::syscall::error(ret);
                if err.raw_os_error() == Some(libc::EAGAIN) && done > 0 {
                    break;
                }
                if err.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(EngineError::Syscall {
                    engine: ENGINE,
                    op: "io_submit",
                    source: err,
                });
            }
            done += ret as usize;
        }
        self.pending.drain(..done);
        Ok(())
    }

    #[inline(always)]
    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        self.get_events(min, out, None)
    }

    fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
    ) -> Result<usize, EngineError> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        self.get_events(1, out, Some(ts))
    }
}

impl Libaio {
    /// io_getevents for at least `min` completions, waiting no longer than `timeout` if one
    /// is given (then returning what there is).
    #[inline(always)]
    fn get_events(
        &mut self,
        min: u32,
        out: &mut [Completion],
        timeout: Option<libc::timespec>,
    ) -> Result<usize, EngineError> {
        let max = out.len().min(self.events.len());
        let ts = timeout
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        let got = loop {
            // SAFETY: `events` has room for `max` events; a null timeout waits for `min`,
            // another points to a timespec that lives through the call.
            let ret = unsafe {
                crate::syscall::syscall6(
                    libc::SYS_io_getevents,
                    self.ctx as i64,
                    min as i64,
                    max as i64,
                    self.events.as_mut_ptr() as i64,
                    ts as i64,
                    0,
                )
            };
            if ret >= 0 {
                break ret as usize;
            }
            let err = crate::syscall::error(ret);
            if timeout.is_some() && err.raw_os_error() == Some(libc::EINTR) {
                // A timed wait returns what there is; the caller looks at the clock again.
                break 0;
            }
            if err.raw_os_error() != Some(libc::EINTR) {
                return Err(EngineError::Syscall {
                    engine: ENGINE,
                    op: "io_getevents",
                    source: err,
                });
            }
        };
        for (o, e) in out.iter_mut().zip(&self.events[..got]) {
            *o = Completion {
                slot: e.data as u32,
                result: e.res,
            };
        }
        Ok(got)
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        // SAFETY: ctx came from io_setup; io_destroy waits for in-flight I/O to finish, so the
        // buffers (owned by the worker, which outlives the engine) are no longer in use.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_struct_sizes_match_the_kernel() {
        assert_eq!(std::mem::size_of::<IoCb>(), 64);
        assert_eq!(std::mem::size_of::<IoEvent>(), 32);
    }
}
