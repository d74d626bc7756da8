//! `io_uring_cmd` (fio's name, `cmd_type=nvme`): NVMe read and write commands sent straight to
//! a namespace's generic char device (`/dev/ngXnY`) with `IORING_OP_URING_CMD`, past the block
//! layer's bio and request setup: the path the kernel's fastest published figures use. Big
//! SQEs (128 bytes, the command inline) and big CQEs (32 bytes). `hipri` sets up IOPOLL (the
//! device's poll queues), `sqthread_poll` SQPOLL, `fixedbufs` registered buffers
//! (`IORING_URING_CMD_FIXED`), `registerfiles` a registered file, as on `io_uring`.
//!
//! A command completes with 0 (the whole transfer) or a positive NVMe status; the worker
//! wants bytes or `-errno`, so a status becomes -EIO.

use std::marker::PhantomData;

use io_uring::{cqueue, opcode, squeue, types};
use iolab_sysinfo::nvme::{self, NvmeCommand, NVME_CMD_READ, NVME_CMD_WRITE, NVME_URING_CMD_IO};

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
    _pool: PhantomData<&'pool BufferPool>,
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
        let cmd = NvmeCommand {
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

    fn commit(&mut self) -> Result<(), EngineError> {
        self.ring.commit()
    }

    fn reap(&mut self, min: u32, out: &mut [Completion]) -> Result<usize, EngineError> {
        let lens = &self.lens;
        self.ring
            .reap_into(min, out, |slot, res| nvme_result(lens, slot, res))
    }

    fn reap_within(
        &mut self,
        out: &mut [Completion],
        timeout: std::time::Duration,
    ) -> Result<usize, EngineError> {
        let lens = &self.lens;
        self.ring
            .reap_within(out, timeout, |slot, res| nvme_result(lens, slot, res))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn setup(&self) -> Option<String> {
        Some(self.ring.setup().to_string())
    }
}

/// A passthrough command's result as the worker counts it: 0 is the whole I/O done, a
/// negative value the kernel's error, a positive one an NVMe status (an I/O error).
fn nvme_result(lens: &[u32], slot: u32, res: i32) -> i64 {
    match res {
        0 => lens[slot as usize] as i64,
        err if err < 0 => err as i64,
        _nvme_status => -(libc::EIO as i64),
    }
}
