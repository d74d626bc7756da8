//! One job copy's side of a zoned target (fio's per-thread zbd state): the part of the
//! zones it works in, its open-zone count, the zone it holds for a write, its resets.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use iolab_engine::Direction;
use iolab_job::{JobSpec, Pattern, Region, ZbdSpec};

use super::{Adjusted, Busy, ZoneMap};

/// Each cursor's name as a zone's holder (0 is nobody).
static NEXT_ID: AtomicU32 = AtomicU32::new(1);

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
    /// This copy as a zone's holder.
    pub(super) me: u32,
    /// The zone of each write placed and not yet done (each holds its zone once).
    pub(super) held: Vec<u32>,
    /// Zone resets done (fio's `nr_zone_resets`).
    pub resets: u64,
    /// A write drawn and not placed until this copy's writes in flight are reaped: the
    /// direction, file, offset and length to place again.
    pub retry: Option<(Direction, u32, u64, u64)>,
    /// Where that write goes on (see [`super::write::Resume`]).
    pub(super) resume: Option<super::write::Resume>,
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
            me: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            held: Vec::with_capacity(spec.effective_iodepth() as usize),
            resets: 0,
            retry: None,
            resume: None,
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

    /// The write placed by [`Self::adjust`] at `offset` is over (`ok`: all of it written):
    /// a zone it filled is closed (fio's `zbd_end_zone_io()`) and its hold let go. Any other
    /// I/O is nothing to the zones.
    pub fn done(&mut self, dir: Direction, offset: u64, len: u64, ok: bool) {
        if dir != Direction::Write {
            return;
        }
        let i = self.map.index_of(offset);
        let Some(at) = self.held.iter().position(|&h| h == i) else {
            return;
        };
        self.held.swap_remove(at);
        let end = self.map.zones[i as usize].capacity_end();
        if ok && offset + len >= end {
            self.close(i);
        }
        self.give(i);
        self.map.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// The write placed at `offset` did not go after all (the engine was busy): its bytes
    /// are given back to the write pointer, which it was the last to move.
    pub fn cancel(&mut self, offset: u64, len: u64) {
        let i = self.map.index_of(offset);
        if let Some(z) = self.map.zones.get(i as usize) {
            let end = (offset + len).min(z.capacity_end());
            if self.held.contains(&i) && z.wp() == end {
                z.wp.store(offset, Ordering::Release);
                self.map.shared().with_data -= end - offset;
            }
        }
        self.done(Direction::Write, offset, len, false);
    }

    /// Takes zone `i`; where another copy holds it, waits only if this copy has no write in
    /// flight (else it could wait on a copy that waits on it).
    pub(super) fn take(&self, i: u32) -> Result<(), Busy> {
        match self.map.zones[i as usize]
            .lock
            .take(self.me, self.held.is_empty())
        {
            true => Ok(()),
            false => Err(Busy),
        }
    }

    pub(super) fn give(&self, i: u32) {
        self.map.zones[i as usize].lock.give(self.me);
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
    /// A copy that ends on an error with writes placed lets their zones go, so the others
    /// go on.
    fn drop(&mut self) {
        for i in std::mem::take(&mut self.held) {
            self.give(i);
            self.map.in_flight.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: u64 = 1 << 20;
    const BS: u64 = 64 << 10;

    fn cursor(map: &Arc<ZoneMap>, max_open: u32) -> ZbdCursor {
        let mut spec = JobSpec::new("z", "/tmp/z");
        spec.pattern = Pattern::Random;
        spec.block_size = [BS as u32; 3];
        spec.read_percent = 0;
        spec.zbd = Some(ZbdSpec {
            max_open_zones: max_open,
            ..ZbdSpec::default()
        });
        let region = Region {
            start: 0,
            len: 4 * Z,
        };
        ZbdCursor::new(map.clone(), -1, &spec, region)
    }

    fn at(a: Adjusted) -> (u64, u64) {
        match a {
            Adjusted::At { offset, len } => (offset, len),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn writes_go_to_the_write_pointer_and_a_full_zone_is_reset() {
        let map = Arc::new(ZoneMap::emulated(4 * Z, Z, Z, 0));
        let mut c = cursor(&map, 0);
        assert_eq!(at(c.adjust(Direction::Write, 5 * BS, BS)), (0, BS));
        c.done(Direction::Write, 0, BS, true);
        assert_eq!(
            at(c.adjust(Direction::Write, 9 * BS, BS)),
            (BS, BS),
            "at the pointer"
        );
        c.done(Direction::Write, BS, BS, true);
        for k in 2..16 {
            let (o, l) = at(c.adjust(Direction::Write, 0, BS));
            c.done(Direction::Write, o, l, true);
            assert_eq!(o, k * BS);
        }
        assert_eq!(map.zones[0].wp(), Z, "full");
        assert_eq!(
            at(c.adjust(Direction::Write, 3 * BS, BS)),
            (0, BS),
            "reset first"
        );
        c.done(Direction::Write, 0, BS, true);
        assert_eq!(c.resets, 1);
    }

    #[test]
    fn beyond_the_open_limit_a_write_goes_to_an_open_zone() {
        let map = Arc::new(ZoneMap::emulated(4 * Z, Z, Z, 1));
        let mut c = cursor(&map, 1);
        assert_eq!(at(c.adjust(Direction::Write, 0, BS)), (0, BS));
        c.done(Direction::Write, 0, BS, true);
        // Drawn in zone 2, which may not open: zone 0 takes it.
        assert_eq!(at(c.adjust(Direction::Write, 2 * Z, BS)), (BS, BS));
        c.done(Direction::Write, BS, BS, true);
        assert_eq!(map.shared().open, vec![0]);
    }

    #[test]
    fn reads_stay_below_the_write_pointers() {
        let map = Arc::new(ZoneMap::emulated(4 * Z, Z, Z, 0));
        let mut c = cursor(&map, 0);
        assert_eq!(
            c.adjust(Direction::Read, 0, BS),
            Adjusted::Eof,
            "nothing written"
        );
        let (o, l) = at(c.adjust(Direction::Write, Z, BS));
        c.done(Direction::Write, o, l, true);
        // Drawn in empty zone 0: the nearest zone with data, zone 1, within what it holds.
        assert_eq!(at(c.adjust(Direction::Read, 0, 4 * BS)), (Z, BS));
    }

    #[test]
    fn writes_in_flight_share_a_zone_and_another_copy_waits_its_turn() {
        let map = Arc::new(ZoneMap::emulated(4 * Z, Z, Z, 0));
        let (mut a, mut b) = (cursor(&map, 0), cursor(&map, 0));
        assert_eq!(at(a.adjust(Direction::Write, 0, BS)), (0, BS));
        assert_eq!(
            at(a.adjust(Direction::Write, 0, BS)),
            (BS, BS),
            "in flight together"
        );
        assert_eq!(at(b.adjust(Direction::Write, Z, BS)), (Z, BS));
        // b, with a write in flight, must reap it before waiting for a's zone.
        assert_eq!(b.adjust(Direction::Write, 0, BS), Adjusted::Busy);
        a.done(Direction::Write, 0, BS, true);
        a.done(Direction::Write, BS, BS, true);
        assert_eq!(at(b.adjust(Direction::Write, 0, BS)), (2 * BS, BS));
        b.done(Direction::Write, Z, BS, true);
        b.cancel(2 * BS, BS);
        assert_eq!(
            map.zones[0].wp(),
            2 * BS,
            "a cancelled write gives its bytes back"
        );
        assert_eq!(map.shared().with_data, 3 * BS);
    }
}
