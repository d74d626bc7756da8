//! I/O engines for iolab, shaped after fio's `ioengines.h` contract but typed.
//!
//! An engine is told "queue this I/O" and answers [`QueueStatus::Completed`] (synchronous
//! engines finish inside `queue`), [`QueueStatus::Queued`] (asynchronous engines; the I/O is
//! issued at the next [`IoEngine::commit`] and reported by [`IoEngine::reap`]) or
//! [`QueueStatus::Busy`] (no room: reap first). Engines know nothing of jobs, offsets or
//! statistics. There is one file per engine, as in fio's `engines/`.
//!
//! Workers are generic over the engine, so every per-I/O call is a direct, inlinable call;
//! [`open_engine`] picks the concrete type once and hands it to an [`EngineVisitor`].

/// An engine's option names followed by fio's per-I/O priority options (`cmdprio*`), which
/// every engine that sets a request's priority takes: one list of those names for all.
macro_rules! with_cmdprio_options {
    ($($own:literal),* $(,)?) => {
        &[$($own,)* "cmdprio_percentage", "cmdprio_class", "cmdprio", "cmdprio_bssplit"]
    };
}

pub mod buffer;
pub mod cpuio;
pub mod dircreate;
pub mod dirdelete;
pub mod dirstat;
pub mod e4defrag;
pub mod error;
pub mod exec;
pub mod falloc;
pub mod filecreate;
pub mod filedelete;
pub mod fileops;
pub mod filestat;
pub mod ftruncate;
pub mod kind;
pub mod libaio;
pub mod memory;
pub mod mmap;
pub mod null;
mod open;
pub mod placement;
pub mod posixaio;
pub mod protection;
pub mod psync;
pub mod pvsync;
pub mod pvsync2;
mod registry;
mod ring;
pub mod rwf;
pub mod spdk;
pub mod splice;
pub mod sync;
mod syscall;
mod trim;
pub mod uring;
pub mod uring_cmd;
pub mod vsync;
pub mod zones;

use std::os::fd::RawFd;

pub use buffer::BufferPool;
pub use error::EngineError;
pub use kind::{EngineConfig, EngineKind, EngineOptions, StatType};
pub use open::{open_targets, OpenHow};
pub use registry::{engine_option, Accepts, EngineDef, FileOp, ENGINES};
pub use trim::Trimmer;

/// Data direction of one I/O (a result type: every figure is kept per direction).
pub use iolab_results::Direction;

/// One I/O to perform. `slot` names the in-flight slot (and its buffer) so completions can be
/// matched without any lookup structure.
#[derive(Debug, Clone, Copy)]
pub struct IoUnit {
    pub slot: u32,
    /// Which of the target's files (index into [`EngineTarget::fds`]).
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
    /// A priority of the request's own (fio's `cmdprio*`, engines that take one), as
    /// `ioprio_set` values (class << 13 | level); 0, no class: the thread's. (A u16, not an
    /// Option, keeps the unit in 32 bytes.)
    pub ioprio: u16,
    /// Which of the job's priorities the I/O's latency is reported under (0: the
    /// thread's; see `iolab_job::PrioTable`).
    pub prio_index: u8,
}

/// fio's per-I/O priority options, which the engines that set a request's priority take.
pub const CMDPRIO_OPTIONS: &[&str] = with_cmdprio_options!();

/// A finished I/O: its slot and the kernel's result (bytes transferred, or `-errno`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

/// What [`IoEngine::queue`] did with an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueStatus {
    /// Done already; the value is bytes transferred or `-errno`.
    Completed(i64),
    /// Accepted; it will be issued by `commit` and reported by `reap`.
    Queued,
    /// No room to accept it now: commit and reap, then try again.
    Busy,
}

/// What an engine can do, replacing fio's flag bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// `queue` always completes the I/O itself (psync, pvsync2, null): the worker can skip
    /// commit/reap, and submission and completion latency are one and the same.
    pub synchronous: bool,
    /// `reap` also submits what is queued, in the same system call (io_uring's one
    /// `io_uring_enter` submits and waits, as t/io_uring drives it). The worker then leaves
    /// out the commit just before a reap, where the job needs no issue time (no slat, no
    /// clat: fio's `gtod_reduce`), saving a system call per round.
    pub submits_on_reap: bool,
}

impl Capabilities {
    pub const SYNCHRONOUS: Capabilities = Capabilities {
        synchronous: true,
        submits_on_reap: false,
    };
    pub const ASYNCHRONOUS: Capabilities = Capabilities {
        synchronous: false,
        submits_on_reap: false,
    };
}

/// The contract every engine fulfils.
pub trait IoEngine {
    fn capabilities(&self) -> Capabilities;

    /// Accepts one I/O. Synchronous engines perform it here.
    ///
    /// # Safety
    /// `io.buf` must point to at least `io.len` bytes that stay valid, and are neither read
    /// nor written by anyone else, until the I/O has completed: returned `Completed` here, or
    /// reaped by [`IoEngine::reap`] for `Queued`. The kernel reads or writes that memory in
    /// the meantime (the buffer pool's slot `io.slot` is such memory while its slot is busy).
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError>;

    /// Issues everything queued since the last commit.
    fn commit(&mut self) -> Result<(), EngineError> {
        Ok(())
    }

    /// Waits for at least `min` completions and writes up to `out.len()` of them into `out`,
    /// returning how many it wrote.
    fn reap(&mut self, _min: u32, _out: &mut [Completion]) -> Result<usize, EngineError> {
        Ok(0)
    }

    /// Waits at most `timeout` for a completion and writes up to `out.len()` of those there
    /// are into `out`, returning how many (0 when the time passed first). The open loop waits
    /// so: until the next I/O falls due, or sooner if one completes, so that neither the
    /// schedule nor a completion's clock read waits on the other. An engine without a timed
    /// wait looks without waiting (the default), and the loop looks again.
    fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
    ) -> Result<usize, EngineError> {
        let _ = timeout;
        self.reap(0, out)
    }

    /// Ways the kernel serves this engine differently from what was asked, found at open
    /// (for example `hipri` on a device without poll queues). Shown beside the results.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// How the engine was set up where it chose (the io_uring flags the kernel took), for
    /// the results: a figure is only comparable with one measured the same way.
    fn setup(&self) -> Option<String> {
        None
    }

    /// Why the I/O does not take the path asked for at all, when it does not (`hipri` whose
    /// RWF_HIPRI the kernel ignores: every completion is an interrupt). A figure so measured
    /// is not the asked path's: tables never mark it best.
    fn fallback(&self) -> Option<String> {
        None
    }

    /// Whether the I/O that just completed inside `queue` is to be timed. Always, but for an
    /// engine whose I/Os only count and whose one timed act is a file operation (filestat's
    /// I/Os between its stats, as fio's `FIO_FAKEIO`): the worker then counts the I/O and
    /// records no latency for it.
    #[inline(always)]
    fn timed(&self) -> bool {
        true
    }

    /// Work a synchronous engine leaves out of its timed call, done once the worker has
    /// read its clock after `queue` (filecreate closes the file it created, as fio closes a
    /// file outside its timed open). Nothing, for the rest.
    #[inline(always)]
    fn settle(&mut self) {}

    /// Whether a completed I/O moved its bytes. Always, but for an engine that does no I/O
    /// (cpuio, fio's `FIO_NOIO`): its I/Os count and are timed, and move zero bytes.
    #[inline(always)]
    fn transfers(&self) -> bool {
        true
    }

    /// The pause the engine asks for after the I/O that just completed, replacing the job's
    /// `thinktime` from then on (cpuio's qsort times its burn and pauses to keep its load).
    /// None, for the rest: the job's own pauses stand.
    #[inline(always)]
    fn think(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What an engine is opened against.
#[derive(Debug, Clone, Copy)]
pub struct EngineTarget<'a> {
    /// The job's open files (usually one; fio's `filename=a:b` gives several).
    pub fds: &'a [RawFd],
    /// Whether the file was opened with O_DIRECT.
    pub direct: bool,
    /// Whether the device behind the file has poll queues (sysfs `queue/io_poll` = 1).
    pub polled_device: bool,
    /// Name to use in messages (the path).
    pub name: &'a str,
    /// The target's logical block size (an NVMe namespace's LBA size for passthrough).
    pub logical_block_size: u32,
    /// How the job walks its files (fio's `fadvise_hint`), for engines that advise the
    /// kernel themselves (mmap's `madvise`).
    pub access: AccessHint,
    /// The job's files as checked (one per file, in order), for engines that work on a
    /// file's name rather than its descriptor (filecreate, filestat, filedelete).
    pub pins: &'a [iolab_sysinfo::Pin],
    /// Each file's bytes per pass (its region), where a file-operation engine does its
    /// operation again.
    pub pass_bytes: &'a [u64],
    /// e4defrag's donor file as the run checked (and made) it, and the end of the span to
    /// reserve in it (fio's `file_size_high`).
    pub donor: Option<(&'a iolab_sysinfo::Pin, u64)>,
}

/// How a job walks its files, as advice to the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AccessHint {
    /// No advice (`fadvise_hint=0`).
    #[default]
    None,
    Random,
    Sequential,
}

/// Receives the concrete engine chosen by [`open_engine`]; lets a worker be monomorphised per
/// engine without the engine crate knowing about workers.
pub trait EngineVisitor {
    type Output;
    fn visit<E: IoEngine>(self, engine: E) -> Self::Output;
}

/// Opens the engine `config` names on `target` with room for `depth` I/Os in flight, using the
/// buffers of `pool` (registered with the kernel where the engine supports it), and passes it
/// to `visitor`.
pub fn open_engine<V: EngineVisitor>(
    config: &EngineConfig,
    target: EngineTarget<'_>,
    depth: u32,
    pool: &BufferPool,
    visitor: V,
) -> Result<V::Output, EngineError> {
    Ok(match config.kind {
        EngineKind::Sync => visitor.visit(sync::Sync::open(target)?),
        EngineKind::Psync => visitor.visit(psync::Psync::open(target)?),
        EngineKind::Vsync => visitor.visit(vsync::Vsync::open(target)?),
        EngineKind::Pvsync => visitor.visit(pvsync::Pvsync::open(target)?),
        EngineKind::Pvsync2 => visitor.visit(pvsync2::Pvsync2::open(target, &config.options)?),
        EngineKind::Mmap => visitor.visit(mmap::Mmap::open(target, &config.options)?),
        EngineKind::Libaio => visitor.visit(libaio::Libaio::open(target, depth, &config.options)?),
        EngineKind::Posixaio => visitor.visit(posixaio::Posixaio::open(target, depth)?),
        EngineKind::IoUring => {
            visitor.visit(uring::Uring::open(target, depth, &config.options, pool)?)
        }
        EngineKind::IoUringCmd => visitor.visit(uring_cmd::UringCmd::open(
            target,
            depth,
            &config.options,
            pool,
        )?),
        EngineKind::Null => visitor.visit(null::Null::open()),
        EngineKind::Falloc => visitor.visit(falloc::Falloc::open(target)?),
        EngineKind::Ftruncate => visitor.visit(ftruncate::Ftruncate::open(target)?),
        EngineKind::Filecreate => visitor.visit(filecreate::open(target)?),
        EngineKind::Filestat => visitor.visit(filestat::open(target, config.options.stat_type)?),
        EngineKind::Filedelete => visitor.visit(filedelete::open(target)?),
        EngineKind::Dircreate => visitor.visit(dircreate::open(target)?),
        EngineKind::Dirstat => visitor.visit(dirstat::open(target, config.options.stat_type)?),
        EngineKind::Dirdelete => visitor.visit(dirdelete::open(target)?),
        EngineKind::Splice => visitor.visit(splice::Splice::open(target)?),
        EngineKind::Cpuio => visitor.visit(cpuio::Cpuio::open(config.options.cpu)?),
        EngineKind::Exec => visitor.visit(exec::Exec::open(&config.options.exec)?),
        EngineKind::E4defrag => visitor.visit(e4defrag::E4defrag::open(
            target,
            config.options.defrag.inplace,
        )?),
        EngineKind::Spdk => visitor.visit(spdk::open(target, depth)?),
    })
}

/// Converts a libc return value (`-1` + errno) into the `-errno` convention of completions.
#[inline(always)]
pub(crate) fn syscall_result(ret: isize) -> i64 {
    if ret < 0 {
        -(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        ret as i64
    }
}
