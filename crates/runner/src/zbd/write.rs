//! Writes at the write pointer (fio's `zbd_adjust_block()` for `DDIR_WRITE`,
//! `zbd_open_zone()`, `zbd_convert_to_open_zone()` and `zbd_reset_zone()`). A zone taken
//! here is given back before returning unless the write is placed in it; `Busy` gives back
//! everything taken on the way, and says in `resume` where the same write goes on once the
//! copy's writes in flight are reaped: fio waits for them in place (`io_u_quiesce()`) and
//! goes on from there, not from the start, so the zone it ends in is fio's.

use std::sync::atomic::Ordering;

use iolab_engine::Direction;

use super::{Adjusted, Busy, ZbdCursor};

/// Where a write that waited for the copy's writes in flight goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// fio's `retry:` in `zbd_convert_to_open_zone()`: open a zone after `from`.
    OpenAnother { from: u32, should_retry: bool },
    /// Zone `zone` is to be reset (full, or due an early reset), then written.
    Reset { zone: u32 },
    /// The write begins a new pass of a size-based job, which fio starts only once the
    /// last pass's writes are all done (`do_io()` returns, its in-flight I/O reaped).
    NewPass,
}

impl ZbdCursor {
    fn min_write(&self) -> u64 {
        self.min_bs[Direction::Write.index()]
    }

    pub(super) fn adjust_write(&mut self, offset: u64, len: u64) -> Adjusted {
        self.place_write(offset, len).unwrap_or(Adjusted::Busy)
    }

    fn place_write(&mut self, offset: u64, len: u64) -> Result<Adjusted, Busy> {
        if len > self.map.zone_size {
            return Ok(Adjusted::Eof);
        }
        let map = self.map.clone();
        if self.resume.is_some() && !self.held.is_empty() {
            // fio's io_u_quiesce(): every write of this copy in flight is done first.
            return Err(Busy);
        }
        let resume = self.resume.take();
        let (i, due) = match resume {
            Some(Resume::Reset { zone }) => {
                self.take_resuming(zone, resume)?;
                (zone, true)
            }
            Some(Resume::OpenAnother { from, should_retry }) => {
                self.take_resuming(from, resume)?;
                match self.open_another_from(from, should_retry)? {
                    Some(i) => (i, self.due(i)),
                    None => return Ok(Adjusted::Eof),
                }
            }
            None | Some(Resume::NewPass) => match self.zone_for_write(offset, len)? {
                Ok(i) => (i, self.due(i)),
                Err(done) => return Ok(done),
            },
        };
        // From here zone i is taken. A full zone, or one due an early reset, is reset before
        // it is written again, once this copy's writes in flight are done.
        if due && !self.held.is_empty() {
            self.give(i);
            self.resume = Some(Resume::Reset { zone: i });
            return Err(Busy);
        }
        if due && !self.reset_for_write(i) {
            return Ok(self.give_up(i));
        }
        let z = &map.zones[i as usize];
        let at = z.wp();
        let min = self.min_write();
        let new_len = len.min(z.capacity_end().saturating_sub(at)) / min * min;
        if !self.valid(at) || new_len < min {
            return Ok(self.give_up(i));
        }
        // The write pointer moves past the write now (fio's `zbd_queue_io()` at queue time):
        // this copy's next write there goes after it, in flight or not.
        map.shared().with_data += new_len;
        z.wp.store(at + new_len, Ordering::Release);
        self.held.push(i);
        map.in_flight.fetch_add(1, Ordering::AcqRel);
        Ok(Adjusted::At {
            offset: at,
            len: new_len,
        })
    }

    /// Takes zone `i` to go on from `resume`, which is kept for the next try where another
    /// copy holds the zone.
    fn take_resuming(&mut self, i: u32, resume: Option<Resume>) -> Result<(), Busy> {
        self.take(i).inspect_err(|_| self.resume = resume)
    }

    /// The next write begins a new pass (see [`Resume::NewPass`]).
    pub(crate) fn new_pass(&mut self) {
        self.resume = Some(Resume::NewPass);
    }

    /// The zone a write drawn at `offset` goes to, taken: its own where it may be opened,
    /// else one open or opened for it; or what becomes of the write where that is not a
    /// zone with a write pointer.
    fn zone_for_write(&mut self, offset: u64, len: u64) -> Result<Result<u32, Adjusted>, Busy> {
        let i = self.map.index_of(offset);
        let Some(zone) = self.map.zones.get(i as usize) else {
            return Ok(Err(Adjusted::Eof));
        };
        if !zone.has_wp {
            return Ok(Err(self.conventional_write(i, offset, len)));
        }
        self.take(i)?;
        if self.open_zone(i) {
            return Ok(Ok(i));
        }
        self.give(i);
        Ok(self.convert_to_open_zone(offset)?.ok_or(Adjusted::Eof))
    }

    /// Whether zone `i` is reset before this write: full, or due an early reset (which
    /// counts the write toward `zone_reset_frequency`, as fio's check does).
    fn due(&self, i: u32) -> bool {
        self.reset_due() || self.map.zones[i as usize].full(self.min_write())
    }

    /// Resets zone `i` (taken) for a write: false when the reset failed or the zone cannot
    /// take the smallest block even empty.
    fn reset_for_write(&mut self, i: u32) -> bool {
        self.reset_zone(i).is_ok() && self.map.zones[i as usize].capacity >= self.min_write()
    }

    fn give_up(&mut self, i: u32) -> Adjusted {
        self.give(i);
        Adjusted::Eof
    }

    /// A write in a conventional zone must not run into a sequential one.
    fn conventional_write(&self, i: u32, offset: u64, len: u64) -> Adjusted {
        let next = self.map.zone_end(i);
        let next_seq = self.map.zones.get(i as usize + 1).is_some_and(|z| z.has_wp);
        if !next_seq || offset + len <= next {
            return Adjusted::At { offset, len };
        }
        let min = self.min_write();
        let (offset, new_len) = if offset + min > next {
            let start = self.map.zones[i as usize].start;
            let at = start + next - offset;
            (at, len.min(next - at))
        } else {
            (offset, next - offset)
        };
        Adjusted::At {
            offset,
            len: new_len / min * min,
        }
    }

    /// Zone `i` (taken) is open for this copy's writes, or is opened now within the limits
    /// (fio's `zbd_open_zone()`); false: it may not be written now.
    pub(super) fn open_zone(&mut self, i: u32) -> bool {
        let z = &self.map.zones[i as usize];
        if z.offline {
            return false;
        }
        if self.map.max_open == 0 {
            return true;
        }
        let mut sh = self.map.shared();
        if z.open.load(Ordering::Acquire) {
            // Writes in flight that fill it make it a full zone, not an open one.
            return z.wp() < z.capacity_end();
        }
        let job_max = self.opts.job_max_open_zones;
        if (job_max > 0 && self.num_open >= job_max) || sh.open.len() >= self.map.max_open as usize
        {
            return false;
        }
        sh.open.push(i);
        self.num_open += 1;
        z.open.store(true, Ordering::Release);
        true
    }

    fn limited(&self) -> bool {
        self.map.max_open > 0 || self.opts.job_max_open_zones > 0
    }

    /// fio's `pick_random_zone_idx()`: an open zone chosen by where the drawn offset lies.
    fn pick_open(&self, offset: u64, open: usize) -> usize {
        ((offset.wrapping_sub(self.file_offset) as u128 * open as u128)
            / self.io_size.max(1) as u128) as usize
    }

    /// An open zone with room for a write drawn at `offset`, or a zone opened for it; the
    /// zone is returned taken (fio's `zbd_convert_to_open_zone()`).
    fn convert_to_open_zone(&mut self, offset: u64) -> Result<Option<u32>, Busy> {
        let mut i = {
            let sh = self.map.shared();
            match (
                self.limited(),
                sh.open.get(self.pick_open(offset, sh.open.len())),
            ) {
                (true, Some(&z)) => z,
                _ => self.map.index_of(offset),
            }
        };
        i = i.clamp(self.min_zone, self.max_zone.saturating_sub(1));
        match self.candidate(i, offset)? {
            None => Ok(None),
            Some(Found::Usable(i)) => Ok(Some(i)),
            Some(Found::Full(i)) => self.open_another(i),
        }
    }

    /// The first step of fio's search: the zone to start from, taken, with room (usable) or
    /// without; `None` when no open zone lies in the copy's part.
    fn candidate(&mut self, mut i: u32, offset: u64) -> Result<Option<Found>, Busy> {
        loop {
            self.take(i)?;
            let z = &self.map.zones[i as usize];
            let sh = self.map.shared();
            if z.has_wp && !z.offline && !self.limited() {
                drop(sh);
                return Ok(Some(self.examine(i)));
            }
            if sh.open.is_empty() {
                return Ok(Some(Found::Full(i)));
            }
            let n = sh.open.len();
            let first = self.pick_open(offset, n).min(n - 1);
            let pick = (0..n)
                .map(|k| sh.open[(first + k) % n])
                .find(|&o| self.min_zone <= o && o < self.max_zone);
            drop(sh);
            match pick {
                None => {
                    self.give(i);
                    return Ok(None);
                }
                Some(o) if o == i => return Ok(Some(self.examine(i))),
                Some(o) => {
                    self.give(i);
                    i = o;
                }
            }
        }
    }

    fn examine(&self, i: u32) -> Found {
        let z = &self.map.zones[i as usize];
        match z.wp() + self.min_write() <= z.capacity_end() {
            true => Found::Usable(i),
            false => Found::Full(i),
        }
    }

    /// Zone `i` (taken) is full: open the next zone that may be opened, or else use an open
    /// one with room, trying again while other writes may still close zones. Where the open
    /// limit is reached, this copy's own writes in flight are reaped first.
    fn open_another(&mut self, i: u32) -> Result<Option<u32>, Busy> {
        if !self.held.is_empty() && self.at_open_limit() {
            self.give(i);
            self.resume = Some(Resume::OpenAnother {
                from: i,
                should_retry: true,
            });
            return Err(Busy);
        }
        self.open_another_from(i, true)
    }

    /// fio's `retry:` loop from zone `i` (taken).
    fn open_another_from(
        &mut self,
        mut i: u32,
        mut should_retry: bool,
    ) -> Result<Option<u32>, Busy> {
        loop {
            for _ in 0..self.io_size / self.map.zone_size.max(1) {
                self.give(i);
                i += 1;
                if i as usize >= self.map.zones.len()
                    || !self.valid(self.map.zones[i as usize].start)
                {
                    i = self.min_zone;
                }
                self.take(i)?;
                let z = &self.map.zones[i as usize];
                if !z.has_wp || z.open.load(Ordering::Acquire) {
                    continue;
                }
                if self.open_zone(i) {
                    return Ok(Some(i));
                }
            }
            if let Some(o) = self.open_with_room(i)? {
                return Ok(Some(o));
            }
            // open_with_room gave zone i back and holds none.
            let in_flight = self.map.in_flight.load(Ordering::Acquire) > 0;
            if !(in_flight || should_retry) {
                return Ok(None);
            }
            if !self.held.is_empty() {
                self.resume = Some(Resume::OpenAnother {
                    from: i,
                    should_retry: in_flight,
                });
                return Err(Busy);
            }
            std::thread::yield_now();
            should_retry = in_flight;
            self.take(i)?;
        }
    }

    /// fio's `wait_zone_close`: as many zones open as the limits allow.
    fn at_open_limit(&self) -> bool {
        let open = self.map.shared().open.len() as u32;
        open == self.max_zone - self.min_zone
            || (self.map.max_open > 0 && open == self.map.max_open)
            || (self.opts.job_max_open_zones > 0 && self.num_open == self.opts.job_max_open_zones)
    }

    /// An open zone of the copy's part with room for a write, taken; zone `held` (taken on
    /// entry) is given back either way.
    fn open_with_room(&self, held: u32) -> Result<Option<u32>, Busy> {
        let open: Vec<u32> = self.map.shared().open.clone();
        self.give(held);
        for o in open {
            if o < self.min_zone || o >= self.max_zone {
                continue;
            }
            self.take(o)?;
            let z = &self.map.zones[o as usize];
            if z.wp() + self.min_write() <= z.capacity_end() {
                return Ok(Some(o));
            }
            self.give(o);
        }
        Ok(None)
    }

    /// Past `zone_reset_threshold`, one write in 1/`zone_reset_frequency` resets its zone
    /// first (fio's `zbd_dec_and_reset_write_cnt()`).
    fn reset_due(&self) -> bool {
        let freq = self.opts.reset_frequency;
        if freq <= 0.0 {
            return false;
        }
        let mut sh = self.map.shared();
        if (sh.with_data as f64) < self.io_size as f64 * self.opts.reset_threshold {
            return false;
        }
        sh.write_cnt = sh.write_cnt.saturating_sub(1);
        if sh.write_cnt > 0 {
            return false;
        }
        sh.write_cnt = (1.0 / freq).min(u32::MAX as f64) as u32;
        true
    }

    /// Resets zone `i` (taken): the kernel's reset on a zoned device, the write pointer
    /// alone on emulated zones (fio's `zbd_reset_zone()`).
    pub(super) fn reset_zone(&mut self, i: u32) -> std::io::Result<()> {
        let z = &self.map.zones[i as usize];
        let data = z.wp() - z.start;
        if data == 0 {
            return Ok(());
        }
        if self.map.device {
            let len = self.map.zone_end(i) - z.start;
            iolab_engine::zones::reset_zones(self.fd, z.start, len)?;
        }
        self.map.shared().with_data -= data;
        z.wp.store(z.start, Ordering::Release);
        self.resets += 1;
        Ok(())
    }
}

/// Where the search for a zone to write starts.
enum Found {
    Usable(u32),
    Full(u32),
}
