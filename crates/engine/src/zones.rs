//! The kernel's zone commands for a zoned block device: the zone report (`BLKREPORTZONE`)
//! and a zone's write pointer reset (`BLKRESETZONE`), as fio's `oslib/linux-blkzoned.c`
//! sends them. Positions are bytes here; the kernel counts 512-byte sectors.

use std::io;
use std::os::fd::RawFd;

/// `BLKREPORTZONE`: `_IOWR(0x12, 130, struct blk_zone_report)` (16 bytes).
const BLKREPORTZONE: libc::c_ulong = 0xC010_1282;
/// `BLKRESETZONE`: `_IOW(0x12, 131, struct blk_zone_range)` (16 bytes).
const BLKRESETZONE: libc::c_ulong = 0x4010_1283;
/// `BLK_ZONE_REP_CAPACITY`: the report carries each zone's capacity.
const REP_CAPACITY: u32 = 1;

/// `struct blk_zone` (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct BlkZone {
    start: u64,
    len: u64,
    wp: u64,
    kind: u8,
    cond: u8,
    non_seq: u8,
    reset: u8,
    resv: [u8; 4],
    capacity: u64,
    reserved: [u8; 24],
}

/// A zone's type (`BLK_ZONE_TYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneType {
    Conventional,
    SequentialRequired,
    SequentialPreferred,
}

/// A zone's condition (`BLK_ZONE_COND_*`), the ones the workload cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneCond {
    NotWp,
    Empty,
    ImplicitOpen,
    ExplicitOpen,
    Closed,
    ReadOnly,
    Full,
    Offline,
}

/// One zone as the device reports it, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportedZone {
    pub start: u64,
    pub len: u64,
    pub capacity: u64,
    pub wp: u64,
    pub kind: ZoneType,
    pub cond: ZoneCond,
}

/// Every zone of the zoned block device `fd`, in order.
pub fn report_zones(fd: RawFd) -> io::Result<Vec<ReportedZone>> {
    const BATCH: usize = 1024;
    let mut all = Vec::new();
    let mut sector = 0u64;
    loop {
        // The header and BATCH zones, in u64s so the buffer is aligned for both.
        let mut buf = vec![0u64; 2 + BATCH * 8];
        buf[0] = sector;
        buf[1] = BATCH as u64; // nr_zones (low 32 bits), flags 0
                               // SAFETY: buf holds the header and BATCH zones, as nr_zones tells the kernel.
        if unsafe { libc::ioctl(fd, BLKREPORTZONE, buf.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let n = (buf[1] & 0xFFFF_FFFF) as usize;
        let flags = (buf[1] >> 32) as u32;
        if n == 0 {
            return Ok(all);
        }
        // SAFETY: the kernel wrote n (≤ BATCH) `struct blk_zone`s after the 16-byte header.
        let zones = unsafe {
            std::slice::from_raw_parts(buf.as_ptr().add(2) as *const BlkZone, n.min(BATCH))
        };
        for z in zones {
            let capacity = if flags & REP_CAPACITY != 0 {
                z.capacity
            } else {
                z.len
            };
            all.push(ReportedZone {
                start: z.start << 9,
                len: z.len << 9,
                capacity: capacity << 9,
                wp: z.wp << 9,
                kind: match z.kind {
                    1 => ZoneType::Conventional,
                    3 => ZoneType::SequentialPreferred,
                    _ => ZoneType::SequentialRequired,
                },
                cond: match z.cond {
                    0 => ZoneCond::NotWp,
                    1 => ZoneCond::Empty,
                    2 => ZoneCond::ImplicitOpen,
                    3 => ZoneCond::ExplicitOpen,
                    4 => ZoneCond::Closed,
                    0xd => ZoneCond::ReadOnly,
                    0xe => ZoneCond::Full,
                    _ => ZoneCond::Offline,
                },
            });
        }
        let last = zones[zones.len() - 1];
        sector = last.start + last.len;
    }
}

/// Resets the write pointers of the zones in `len` bytes at `start` (whole zones).
pub fn reset_zones(fd: RawFd, start: u64, len: u64) -> io::Result<()> {
    let range: [u64; 2] = [start >> 9, len >> 9];
    // SAFETY: range is a `struct blk_zone_range` (sector, nr_sectors) the kernel only reads.
    match unsafe { libc::ioctl(fd, BLKRESETZONE, range.as_ptr()) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structures_are_the_kernels_size() {
        assert_eq!(std::mem::size_of::<BlkZone>(), 64);
    }

    #[test]
    fn a_file_that_is_not_zoned_gives_the_kernels_error() {
        let f = tempfile::tempfile().unwrap();
        use std::os::fd::AsRawFd;
        assert!(report_zones(f.as_raw_fd()).is_err());
        assert!(reset_zones(f.as_raw_fd(), 0, 1 << 20).is_err());
    }
}
