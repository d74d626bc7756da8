//! `io_uring_cmd` (fio's name, `cmd_type=nvme`): NVMe read and write commands sent straight to
//! a namespace's generic char device (`/dev/ngXnY`) with `IORING_OP_URING_CMD`, past the block
//! layer's bio and request setup: the path the kernel's fastest published figures use. Big
//! SQEs (128 bytes, the command inline) and big CQEs (32 bytes). `hipri` sets up IOPOLL (the
//! device's poll queues), `sqthread_poll` SQPOLL, `fixedbufs` registered buffers
//! (`IORING_URING_CMD_FIXED`), `registerfiles` a registered file, as on `io_uring`.
//!
//! A command completes with 0 (the whole transfer) or a positive NVMe status; the worker
//! wants bytes or `-errno`, so a status becomes its negative, as fio reports it (`err=642`
//! for a guard check error), which no errno reaches. With protection information (fio
//! 3.42's `pi_act`, `pi_chk`, ...) each command carries PRINFO and, where the host moves
//! metadata, its own metadata buffer (`protection.rs`).

use std::cell::Cell;
use std::marker::PhantomData;

use io_uring::{cqueue, opcode, squeue, types};
use iolab_sysinfo::nvme::{self, NvmeCommand, NVME_CMD_READ, NVME_CMD_WRITE, NVME_URING_CMD_IO};

use crate::protection::{status_name, Format, Mismatch, PRCHK_APP, PRCHK_REF};
use crate::ring::Ring;
use crate::{
    BufferPool, Capabilities, Completion, Direction, EngineError, EngineOptions, EngineTarget,
    IoEngine, IoUnit, QueueStatus,
};

const ENGINE: &str = "io_uring_cmd";

/// What `io_uring_cmd` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::IoUringCmd,
    name: ENGINE,
    synchronous: false,
    accepts: crate::Accepts::NVME_GENERIC,
    options: &[
        "cmd_type",
        "hipri",
        "sqthread_poll",
        "sqthread_poll_cpu",
        "fixedbufs",
        "registerfiles",
        "fdp",
        "dataplacement",
        "plids",
        "plid_select",
        "dp_scheme",
        "pi_act",
        "pi_chk",
        "apptag",
        "apptag_mask",
        "md_per_io_size",
    ],
    moves_data: true,
    directions: &crate::Direction::ALL,
    read_write: false,
    extends_files: true,
    file_op: None,
};

/// The `'pool` lifetime ties the ring to the buffer pool whose buffers it may have registered.
pub struct UringCmd<'pool> {
    ring: Ring<squeue::Entry128, cqueue::Entry32>,
    fds: Vec<i32>,
    nsids: Vec<u32>,
    /// log2 of the namespace's logical block size: offsets and lengths become LBAs.
    lba_shift: u32,
    opts: EngineOptions,
    /// Each slot's transfer length: a command's success says 0, the worker wants bytes.
    lens: Vec<u32>,
    /// How the kernel serves what was asked, found at open (`hipri` without poll queues).
    notes: Vec<String>,
    /// Per file: where writes are placed (FDP, streams), when the job says.
    placers: Vec<Option<crate::placement::Placer>>,
    /// Per file: its namespace's protection information format.
    formats: Vec<Format>,
    /// Each slot's separate metadata buffer (`md_per_io_size` bytes), and what the slot's
    /// I/O was, for checking a read's protection information when it completes.
    md: Vec<u8>,
    inflight: Vec<Inflight>,
    /// Protection errors seen (the drive's statuses and iolab's own checks).
    pi_errors: PiErrors,
    _pool: PhantomData<&'pool BufferPool>,
}

/// What a slot's command was, for checking what a read brought back.
#[derive(Debug, Clone, Copy, Default)]
struct Inflight {
    len: u32,
    read: bool,
    file: u32,
    buf: usize,
    slba: u64,
}

/// Protection errors, counted in the completion path (which only reads the engine).
#[derive(Debug, Default)]
struct PiErrors {
    drive: Cell<u64>,
    host: Cell<u64>,
    first: Cell<Option<PiError>>,
}

#[derive(Debug, Clone, Copy)]
enum PiError {
    Status(u32),
    Host(Mismatch),
}

impl<'pool> UringCmd<'pool> {
    pub fn open(
        target: EngineTarget<'_>,
        depth: u32,
        opts: &EngineOptions,
        pool: &'pool BufferPool,
    ) -> Result<UringCmd<'pool>, EngineError> {
        let nsids = target
            .fds
            .iter()
            .map(|&fd| nvme::namespace_id(fd))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|source| EngineError::Setup {
                engine: ENGINE,
                op: "NVME_IOCTL_ID",
                source,
            })?;
        let placers = target
            .fds
            .iter()
            .map(|&fd| crate::placement::Placer::open(ENGINE, fd, &opts.placement))
            .collect::<Result<Vec<_>, _>>()?;
        let formats = target
            .fds
            .iter()
            .map(|&fd| protection_format(fd, opts, pool.slot_len()))
            .collect::<Result<Vec<_>, _>>()?;
        let ring = Ring::open(ENGINE, depth, opts, target.fds, pool)?;
        let mut engine = UringCmd {
            ring,
            fds: target.fds.to_vec(),
            nsids,
            lba_shift: target.logical_block_size.max(512).trailing_zeros(),
            opts: opts.clone(),
            lens: vec![0; pool.slots()],
            notes: Vec::new(),
            placers,
            formats,
            md: vec![0u8; pool.slots() * opts.protection.md_per_io as usize],
            inflight: vec![Inflight::default(); pool.slots()],
            pi_errors: PiErrors::default(),
            _pool: PhantomData,
        };
        if opts.hipri && !target.polled_device {
            let note = crate::uring::unpolled_hipri(&mut engine, ENGINE, &target, pool)?;
            engine.notes.push(note);
        }
        Ok(engine)
    }

    #[inline(always)]
    fn build_sqe(&mut self, io: &IoUnit) -> squeue::Entry128 {
        let lba = io.offset >> self.lba_shift;
        let (dtype, dspec) = match (io.dir, self.placers.get_mut(io.file as usize)) {
            (Direction::Write, Some(Some(p))) => p.directive(io.offset),
            _ => (0, 0),
        };
        let mut cmd = NvmeCommand {
            opcode: match io.dir {
                Direction::Read => NVME_CMD_READ,
                Direction::Write => NVME_CMD_WRITE,
                // JobSpec::validate refuses trims on this engine.
                Direction::Trim => unreachable!("io_uring_cmd does not trim"),
            },
            nsid: self.nsids[io.file as usize],
            addr: io.buf as u64,
            data_len: io.len,
            cdw10: lba as u32,
            cdw11: (lba >> 32) as u32,
            // Number of logical blocks, 0-based; a write's directive type above it.
            cdw12: (io.len >> self.lba_shift).saturating_sub(1) | dtype,
            cdw13: dspec,
            ..NvmeCommand::default()
        };
        self.protect(&mut cmd, io, lba);
        let bytes = cmd.to_sqe_bytes();
        let op = if self.opts.registerfiles {
            opcode::UringCmd80::new(types::Fixed(io.file), NVME_URING_CMD_IO)
        } else {
            opcode::UringCmd80::new(types::Fd(self.fds[io.file as usize]), NVME_URING_CMD_IO)
        };
        let op = op.cmd(bytes);
        let op = if self.opts.fixedbufs {
            op.buf_index(Some(io.slot as u16))
        } else {
            op
        };
        op.build().user_data(io.slot as u64)
    }
}

impl UringCmd<'_> {
    /// The command's protection information fields (every command carries PRINFO, as fio's),
    /// its metadata buffer, and on a write without PRACT the PI iolab computes.
    #[inline(always)]
    fn protect(&mut self, cmd: &mut NvmeCommand, io: &IoUnit, lba: u64) {
        let p = &self.opts.protection;
        cmd.cdw12 |= p.io_flags();
        let f = self.formats[io.file as usize];
        if f.pi_type == 0 {
            return;
        }
        if p.check & PRCHK_REF != 0 && matches!(f.pi_type, 1 | 2) {
            cmd.cdw14 = lba as u32;
        }
        if p.check & PRCHK_APP != 0 {
            cmd.cdw15 = (p.apptag_mask as u32) << 16 | p.apptag as u32;
        }
        if f.ms == 0 {
            return;
        }
        let blocks = (io.len >> self.lba_shift) as usize;
        let per = p.md_per_io as usize;
        let md = &mut self.md[io.slot as usize * per..][..blocks * f.ms as usize];
        cmd.metadata = md.as_mut_ptr() as u64;
        cmd.metadata_len = md.len() as u32;
        if io.dir == Direction::Write && !p.act {
            // SAFETY: the worker's buffer for this I/O, io.len bytes, not in flight yet.
            let data = unsafe { std::slice::from_raw_parts(io.buf, io.len as usize) };
            f.generate(p, data, md, lba);
        }
        self.inflight[io.slot as usize] = Inflight {
            len: io.len,
            read: io.dir == Direction::Read,
            file: io.file,
            buf: io.buf as usize,
            slba: lba,
        };
    }
}

/// A namespace's protection information format as the job uses it: the metadata the host
/// moves (none where PRACT leaves all of an 8-byte PI to the drive). Refused, with the
/// reason, where iolab cannot do what fio 3.42 does: metadata inside each block (extended
/// LBAs), a PI format other than the 16-bit guard, or too small a metadata buffer.
fn protection_format(
    fd: i32,
    opts: &EngineOptions,
    max_block: usize,
) -> Result<Format, EngineError> {
    let setup = |op: &'static str, source: std::io::Error| EngineError::Setup {
        engine: ENGINE,
        op,
        source,
    };
    // SAFETY: the worker's descriptor, borrowed for the identify commands and not closed.
    let file = std::mem::ManuallyDrop::new(unsafe {
        <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd)
    });
    let ns = nvme::identify(&file).map_err(|e| setup("Identify Namespace", e))?;
    let refuse = |why: String| setup("protection information", std::io::Error::other(why));
    if ns.meta_bytes == 0 {
        return Ok(Format {
            lba_bytes: ns.lba_bytes,
            ms: 0,
            pi_type: 0,
            pi_first: false,
        });
    }
    if ns.extended {
        return Err(refuse(format!(
            "the namespace's {} metadata bytes travel inside each block (an extended LBA \
             format), which iolab does not do yet",
            ns.meta_bytes
        )));
    }
    if ns.pi_type > 0 && !nvme::pi_is_16b_guard(&file, &ns).map_err(|e| setup("Identify", e))? {
        return Err(refuse(
            "the namespace's protection information is not the 16-bit guard format (a \
             storage tag or a 32- or 64-bit guard), which iolab does not do yet"
                .into(),
        ));
    }
    let p = &opts.protection;
    let pi_only = ns.pi_type > 0 && ns.meta_bytes as usize == crate::protection::PI_BYTES;
    let ms = if p.act && pi_only {
        0
    } else {
        ns.meta_bytes as u32
    };
    let need = (max_block / ns.lba_bytes as usize) * ms as usize;
    if ms > 0 && (p.md_per_io as usize) < need {
        return Err(refuse(format!(
            "md_per_io_size should be at least {need} bytes (the namespace has {ms} bytes \
             of metadata per {}-byte block)",
            ns.lba_bytes
        )));
    }
    Ok(Format {
        lba_bytes: ns.lba_bytes,
        ms,
        pi_type: ns.pi_type,
        pi_first: ns.pi_first,
    })
}

impl IoEngine for UringCmd<'_> {
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            submits_on_reap: true,
            ..Capabilities::ASYNCHRONOUS
        }
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let sqe = self.build_sqe(io);
        // SAFETY: the buffer behind io.buf belongs to the worker's pool and stays untouched
        // until this I/O's completion is reaped; the command carries its address.
        if unsafe { self.ring.push(&sqe) } {
            self.lens[io.slot as usize] = io.len;
            Ok(QueueStatus::Queued)
        } else {
            Ok(QueueStatus::Busy)
        }
    }

    #[inline(always)]
    fn commit(&mut self) -> Result<(), EngineError> {
        self.ring.commit()
    }

    #[inline(always)]
    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        let c = checker!(self);
        self.ring
            .reap_into(min, out, |slot, res| c.result(slot, res))
    }

    fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
    ) -> Result<usize, EngineError> {
        let c = checker!(self);
        self.ring
            .reap_within(out, timeout, |slot, res| c.result(slot, res))
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        let e = &self.pi_errors;
        if let Some(first) = e.first.get() {
            let first = match first {
                PiError::Status(s) => format!(
                    "NVMe status {s:#x}, {}",
                    status_name(s).unwrap_or("a protection error")
                ),
                PiError::Host(m) => format!("iolab's check: {m}"),
            };
            notes.push(format!(
                "protection information errors: {} reported by the drive, {} found by iolab's \
                 check of what reads brought back; the first: {first}",
                e.drive.get(),
                e.host.get()
            ));
        }
        notes
    }

    fn setup(&self) -> Option<String> {
        Some(self.ring.setup().to_string())
    }
}

/// The engine's fields the completion path reads, borrowed apart from its ring.
macro_rules! checker {
    ($e:expr) => {
        Checker {
            lens: &$e.lens,
            inflight: &$e.inflight,
            formats: &$e.formats,
            md: &$e.md,
            opts: &$e.opts,
            errors: &$e.pi_errors,
        }
    };
}
use checker;

/// What the completion path reads of the engine.
struct Checker<'a> {
    lens: &'a [u32],
    inflight: &'a [Inflight],
    formats: &'a [Format],
    md: &'a [u8],
    opts: &'a EngineOptions,
    errors: &'a PiErrors,
}

impl Checker<'_> {
    /// A passthrough command's result as the worker counts it: 0 is the whole I/O done (a
    /// read checked first where iolab checks protection information), a negative value the
    /// kernel's error, a positive one an NVMe status (an I/O error; a protection one
    /// counted).
    #[inline(always)]
    fn result(&self, slot: u32, res: i32) -> i64 {
        match res {
            0 if self.host_checks() => self.check_read(slot),
            0 => self.lens[slot as usize] as i64,
            err if err < 0 => err as i64,
            status => {
                if status_name(status as u32).is_some() {
                    self.note(&self.errors.drive, PiError::Status(status as u32));
                }
                // fio's io_uring_cmd reports the status itself as the error (642 for a
                // guard check error); no errno is that large.
                -(status as i64)
            }
        }
    }

    /// iolab checks a read's PI itself where fio does: without PRACT, with a metadata buffer.
    #[inline(always)]
    fn host_checks(&self) -> bool {
        let p = &self.opts.protection;
        !p.act && p.md_per_io > 0 && p.check != 0
    }

    #[cold]
    fn check_read(&self, slot: u32) -> i64 {
        let len = self.lens[slot as usize] as i64;
        let io = self.inflight[slot as usize];
        let f = self.formats[io.file as usize];
        if !io.read || f.pi_type == 0 || f.ms == 0 {
            return len;
        }
        let per = self.opts.protection.md_per_io as usize;
        let blocks = (io.len / f.lba_bytes) as usize;
        let md = &self.md[slot as usize * per..][..blocks * f.ms as usize];
        // SAFETY: the slot's buffer, which the drive has finished writing into.
        let data = unsafe { std::slice::from_raw_parts(io.buf as *const u8, io.len as usize) };
        match f.verify(&self.opts.protection, data, md, io.slba) {
            Ok(()) => len,
            Err(m) => {
                self.note(&self.errors.host, PiError::Host(m));
                -(libc::EIO as i64)
            }
        }
    }

    #[cold]
    fn note(&self, count: &Cell<u64>, e: PiError) {
        count.set(count.get() + 1);
        if self.errors.first.get().is_none() {
            self.errors.first.set(Some(e));
        }
    }
}
