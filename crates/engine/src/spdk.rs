//! `spdk`: NVMe reads and writes through SPDK's user-space driver, as SPDK's fio plugin and
//! `spdk_nvme_perf` drive it. Each job copy gets its own I/O queue pair on the controller and
//! polls it on its own thread: no system call, no interrupt, and a thread that is busy all the
//! time (its CPU figures say so). The target is a namespace named in the plugin's syntax,
//! `trtype=PCIe traddr=0000.01.00.0 ns=1`, on a controller handed to a user-space driver
//! first (`iolab spdk bind`). The I/O buffers are SPDK's DMA memory (`MemKind::Dma`).
//!
//! Built only with the cargo feature `spdk`; without it the engine is known by name and
//! refused with how to build it.

use crate::{EngineError, EngineTarget};

const ENGINE: &str = "spdk";

/// What `spdk` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Spdk,
    name: "spdk",
    synchronous: false,
    accepts: crate::Accepts::USER_SPACE_NVME,
    options: &[],
    moves_data: true,
    directions: &[crate::Direction::Read, crate::Direction::Write],
    read_write: false,
    extends_files: false,
    file_op: None,
};

/// A namespace's size and logical block size, for checking a job against it before it runs
/// (this starts SPDK's environment and attaches the controller, once per process).
pub fn namespace_size(name: &str) -> Result<(u64, u32), String> {
    imp::namespace_size(name)
}

/// Whether this build has the engine.
pub const BUILT: bool = cfg!(feature = "spdk");

/// How to get a build that has it.
pub const HOW_TO_BUILD: &str = iolab_spdk::HOW_TO_BUILD;

#[cfg(not(feature = "spdk"))]
mod imp {
    pub fn namespace_size(_name: &str) -> Result<(u64, u32), String> {
        Err(iolab_spdk::HOW_TO_BUILD.into())
    }
}

#[cfg(not(feature = "spdk"))]
pub use crate::null::Null as Spdk;

#[cfg(not(feature = "spdk"))]
pub fn open(_target: EngineTarget<'_>, _depth: u32) -> Result<Spdk, EngineError> {
    Err(EngineError::Unsupported {
        engine: ENGINE,
        reason: iolab_spdk::HOW_TO_BUILD.into(),
    })
}

#[cfg(feature = "spdk")]
pub use imp::Spdk;

#[cfg(feature = "spdk")]
pub fn open(target: EngineTarget<'_>, depth: u32) -> Result<Spdk, EngineError> {
    imp::Spdk::open(target, depth)
}

#[cfg(feature = "spdk")]
mod imp {
    use std::time::{Duration, Instant};

    use iolab_spdk::driver::{self, QPair};
    use iolab_spdk::TransportId;

    use super::ENGINE;
    use crate::{
        Capabilities, Completion, Direction, EngineError, EngineTarget, IoEngine, IoUnit,
        QueueStatus,
    };

    /// The queue pair failed at the transport (`-errno` from a look for completions).
    fn transport(e: i32) -> EngineError {
        EngineError::Syscall {
            engine: ENGINE,
            op: "spdk_nvme_qpair_process_completions",
            source: std::io::Error::from_raw_os_error(-e),
        }
    }

    fn unsupported(reason: String) -> EngineError {
        EngineError::Unsupported {
            engine: ENGINE,
            reason,
        }
    }

    pub fn namespace_size(name: &str) -> Result<(u64, u32), String> {
        let trid: TransportId = name.parse()?;
        let ns = driver::namespace(&trid).map_err(|e| e.to_string())?;
        Ok((ns.size_bytes, ns.sector_size))
    }

    pub struct Spdk {
        qp: QPair,
        /// Each slot's length in flight: a completion reports the bytes moved.
        lens: Vec<u32>,
        trid: TransportId,
    }

    impl Spdk {
        pub fn open(target: EngineTarget<'_>, depth: u32) -> Result<Spdk, EngineError> {
            let trid: TransportId = target.name.parse().map_err(unsupported)?;
            let ns = driver::namespace(&trid).map_err(|e| unsupported(e.to_string()))?;
            let qp = QPair::new(&ns, depth).map_err(|e| unsupported(e.to_string()))?;
            Ok(Spdk {
                qp,
                lens: vec![0; depth.max(1) as usize],
                trid,
            })
        }

        /// Takes what completed into `out` (as many as fit).
        #[inline(always)]
        fn take(&mut self, out: &mut [Completion], from: usize) -> usize {
            let mut n = from;
            let lens = &self.lens;
            self.qp.drain(out.len() - from, |slot, ok| {
                out[n] = Completion {
                    slot,
                    result: if ok {
                        lens[slot as usize] as i64
                    } else {
                        -(libc::EIO as i64)
                    },
                };
                n += 1;
            });
            n
        }

        #[inline(always)]
        fn poll_into(&mut self, out: &mut [Completion], got: usize) -> Result<usize, EngineError> {
            let room = out.len() - got;
            let found = self.qp.found();
            if room > found {
                // At most what fits beside those a commit already found.
                self.qp.poll((room - found) as u32).map_err(transport)?;
            }
            Ok(self.take(out, got))
        }
    }

    impl IoEngine for Spdk {
        /// The queue pair rings its delayed submission doorbell whenever it looks for
        /// completions, so a reap submits what was queued, as io_uring's enter does.
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                synchronous: false,
                submits_on_reap: true,
            }
        }

        #[inline(always)]
        unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
            let write = match io.dir {
                Direction::Read => false,
                Direction::Write => true,
                Direction::Trim => return Ok(QueueStatus::Completed(-(libc::EOPNOTSUPP as i64))),
            };
            let Some(len) = self.lens.get_mut(io.slot as usize) else {
                return Ok(QueueStatus::Busy);
            };
            *len = io.len;
            // SAFETY: the buffer is the pool's slot, SPDK DMA memory (MemKind::Dma), idle
            // until this slot completes (the trait's contract).
            match unsafe { self.qp.submit(write, io.slot, io.buf, io.offset, io.len) } {
                Ok(()) => Ok(QueueStatus::Queued),
                Err(e) if e == -libc::ENOMEM => Ok(QueueStatus::Busy),
                Err(e) => Ok(QueueStatus::Completed(e as i64)),
            }
        }

        /// Rings the submission doorbell once for the batch queued since the last commit.
        fn commit(&mut self) -> Result<(), EngineError> {
            self.qp.ring().map_err(transport)
        }

        /// Polls until `min` have completed: the thread spins, as SPDK's perf does.
        fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
            let min = (min as usize)
                .min(out.len())
                .min(self.qp.in_flight() as usize);
            let mut got = self.poll_into(out, 0)?;
            while got < min {
                got = self.poll_into(out, got)?;
            }
            Ok(got)
        }

        fn reap_within(
            &mut self,
            out: &mut [Completion],
            timeout: Duration,
        ) -> Result<usize, EngineError> {
            let start = Instant::now();
            loop {
                let got = self.poll_into(out, 0)?;
                if got > 0 || self.qp.in_flight() == 0 || start.elapsed() >= timeout {
                    return Ok(got);
                }
            }
        }

        fn setup(&self) -> Option<String> {
            Some(format!(
                "{} user-space NVMe driver, {} ns {}, an I/O queue pair of {} entries, completions polled",
                driver::VERSION,
                self.trid.traddr,
                self.trid.ns,
                self.qp.entries
            ))
        }
    }
}
