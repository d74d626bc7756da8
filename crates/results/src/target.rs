//! What a job ran against: the target's facts as probed before the run, and the counters of
//! the disk under it (fio's `disk_util`). Plain data; `iolab_sysinfo` probes and reads them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TargetKind {
    File,
    BlockDevice,
    /// An NVMe namespace's generic char device (`/dev/ngXnY`): NVMe commands only, through
    /// the `io_uring_cmd` engine.
    NvmeGeneric,
    /// A namespace of a controller SPDK's user-space driver holds, named by its transport id
    /// (`trtype=PCIe traddr=0000.01.00.0 ns=1`): the `spdk` engine only.
    SpdkNvme,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetFacts {
    pub path: PathBuf,
    pub kind: TargetKind,
    /// Bytes: the file's length, or the device's capacity.
    pub size_bytes: u64,
    /// The smallest unit O_DIRECT offsets and lengths must be multiples of.
    pub logical_block_size: u32,
    /// (major, minor) of the block device itself, or of the one holding the file.
    pub device: (u32, u32),
    /// sysfs name of the whole disk behind the target (e.g. `zram0`, `vda`), if known.
    pub disk_name: Option<String>,
    /// The disk has poll queues (`queue/io_poll` = 1): RWF_HIPRI / IOPOLL really poll.
    pub polled: bool,
}

/// One disk's cumulative counters (fields 4–14 of a /proc/diskstats line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskCounters {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_sectors: u64,
    pub read_ticks_ms: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_sectors: u64,
    pub write_ticks_ms: u64,
    pub in_flight: u64,
    /// Milliseconds during which the device had I/O in flight.
    pub io_ticks_ms: u64,
    /// Weighted milliseconds of I/O in flight (fio's `in_queue`).
    pub in_queue_ms: u64,
}

impl DiskCounters {
    /// Counters of two spans one after the other (`in_flight` is the later value).
    pub fn add(&mut self, later: &DiskCounters) {
        self.read_ios += later.read_ios;
        self.read_merges += later.read_merges;
        self.read_sectors += later.read_sectors;
        self.read_ticks_ms += later.read_ticks_ms;
        self.write_ios += later.write_ios;
        self.write_merges += later.write_merges;
        self.write_sectors += later.write_sectors;
        self.write_ticks_ms += later.write_ticks_ms;
        self.in_flight = later.in_flight;
        self.io_ticks_ms += later.io_ticks_ms;
        self.in_queue_ms += later.in_queue_ms;
    }

    /// What happened between `earlier` and `self` (`in_flight` is the later value).
    pub fn since(&self, earlier: &DiskCounters) -> DiskCounters {
        DiskCounters {
            read_ios: self.read_ios.saturating_sub(earlier.read_ios),
            read_merges: self.read_merges.saturating_sub(earlier.read_merges),
            read_sectors: self.read_sectors.saturating_sub(earlier.read_sectors),
            read_ticks_ms: self.read_ticks_ms.saturating_sub(earlier.read_ticks_ms),
            write_ios: self.write_ios.saturating_sub(earlier.write_ios),
            write_merges: self.write_merges.saturating_sub(earlier.write_merges),
            write_sectors: self.write_sectors.saturating_sub(earlier.write_sectors),
            write_ticks_ms: self.write_ticks_ms.saturating_sub(earlier.write_ticks_ms),
            in_flight: self.in_flight,
            io_ticks_ms: self.io_ticks_ms.saturating_sub(earlier.io_ticks_ms),
            in_queue_ms: self.in_queue_ms.saturating_sub(earlier.in_queue_ms),
        }
    }
}
