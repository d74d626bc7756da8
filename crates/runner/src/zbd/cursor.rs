//! One job copy's side of a zoned target (fio's per-thread zbd state): the part of the
//! zones it works in, its open-zone count, the zone it holds for a write, its resets.

use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use iolab_engine::Direction;
use iolab_job::{JobSpec, Pattern, Region, ZbdSpec};

use super::{Adjusted, ZoneMap};

pub(crate) struct ZbdCursor {
    pub(super) map: Arc<ZoneMap>,
    /// The copy's descriptor of the target, for the kernel's zone resets.
    pub(super) fd: RawFd,
    /// fio's `f->file_offset` and `f->io_size`, and the zones they cover.
    pub(super) file_offset: u64,
    pub(super) io_size: u64,
    pub(super) min_zone: u32,
    pub(super) max_zone: u32,
    /// The smallest block of each direction (fio's `min_bs`).
    pub(super) min_bs: [u64; Direction::COUNT],
    pub(super) random: bool,
    pub(super) mixed: bool,
    pub(super) opts: ZbdSpec,
    /// Zones this copy opened (fio's `td->num_open_zones`).
    pub(super) num_open: u32,
    /// The zone locked for the write on its way.
    pub(super) held: Option<u32>,
    /// Zone resets done (fio's `nr_zone_resets`).
    pub resets: u64,
}

impl ZbdCursor {
    pub fn new(map: Arc<ZoneMap>, fd: RawFd, spec: &JobSpec, region: Region) -> ZbdCursor {
        let opts = spec.zbd.unwrap_or_default();
        let write_cnt = match opts.reset_frequency {
            f if f > 0.0 => (1.0 / f).min(u32::MAX as f64) as u32,
            _ => u32::MAX,
        };
        map.shared().write_cnt = write_cnt;
        ZbdCursor {
            min_zone: map.index_of(region.start),
            max_zone: map.index_of(region.end()),
            map,
            fd,
            file_offset: region.start,
            io_size: region.len,
            min_bs: std::array::from_fn(|d| spec.min_block_size(Direction::ALL[d]).max(1) as u64),
            random: spec.pattern == Pattern::Random,
            mixed: spec.reads() && spec.writes(),
            opts,
            num_open: 0,
            held: None,
            resets: 0,
        }
    }

    /// fio's `zbd_adjust_ddir()`: a mixed job's first reads become writes while nothing
    /// on the target holds data, or it could never read.
    pub fn direction(&self, dir: Direction) -> Direction {
        if dir != Direction::Read || !self.mixed || self.opts.read_beyond_wp {
            return dir;
        }
        match self.map.shared().with_data {
            0 => Direction::Write,
            _ => Direction::Read,
        }
    }

    /// Where an I/O of `len` bytes drawn at `offset` goes (fio's `zbd_adjust_block()`). A
    /// write to a sequential zone leaves its zone locked until [`Self::done`].
    pub fn adjust(&mut self, dir: Direction, offset: u64, len: u64) -> Adjusted {
        match dir {
            Direction::Write => self.adjust_write(offset, len),
            Direction::Read => self.adjust_read(offset, len),
            _ => Adjusted::At { offset, len },
        }
    }

    /// The write placed by [`Self::adjust`] is over; `ok`: all of it was written. Its zone's
    /// write pointer moves past it (fio's `zbd_queue_io()`), a zone it filled is closed
    /// (`zbd_end_zone_io()`), and the zone is let go.
    pub fn done(&mut self, offset: u64, len: u64, ok: bool) {
        let Some(i) = self.held.take() else {
            return;
        };
        let map = self.map.clone();
        let z = &map.zones[i as usize];
        if ok {
            let end = (offset + len).min(z.capacity_end());
            let wp = z.wp();
            if wp <= end {
                map.shared().with_data += end - wp;
            }
            z.wp.store(end, Ordering::Release);
            if offset + len >= z.capacity_end() {
                self.close(i);
            }
        }
        z.lock.unlock();
        map.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Where a sequential write at `pos` goes on when `pos` is past its zone's capacity but
    /// short of its end: the zone's end (fio's jump from the capacity limit).
    pub fn capacity_skip(&self, pos: u64) -> Option<u64> {
        let i = self.map.index_of(pos);
        let z = self.map.zones.get(i as usize)?;
        let end = self.map.zone_end(i);
        (z.capacity < end - z.start && pos >= z.capacity_end() && pos < end).then_some(end)
    }

    /// fio's `is_valid_offset()`: within the copy's part of the target.
    pub(super) fn valid(&self, offset: u64) -> bool {
        offset.wrapping_sub(self.file_offset) < self.io_size
    }

    /// Removes zone `i` from the open list (fio's `zbd_close_zone()`).
    pub(super) fn close(&mut self, i: u32) {
        let map = self.map.clone();
        let z = &map.zones[i as usize];
        if !z.open.load(Ordering::Acquire) {
            return;
        }
        let mut sh = map.shared();
        if let Some(at) = sh.open.iter().position(|&o| o == i) {
            sh.open.remove(at);
            self.num_open = self.num_open.saturating_sub(1);
            z.open.store(false, Ordering::Release);
        }
    }
}

impl Drop for ZbdCursor {
    /// A copy that ends on an error mid-write lets its zone go, so the others go on.
    fn drop(&mut self) {
        self.done(0, 0, false);
    }
}
