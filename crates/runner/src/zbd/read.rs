//! Reads of written data only (fio's `zbd_adjust_block()` for `DDIR_READ` and
//! `zbd_find_zone()`): a read stays below its zone's write pointer, and one drawn where
//! nothing is written moves to the next zone holding data (the nearest, for random reads).

use iolab_engine::Direction;

use super::{Adjusted, ZbdCursor};

impl ZbdCursor {
    pub(super) fn adjust_read(&mut self, offset: u64, len: u64) -> Adjusted {
        let orig = self.map.index_of(offset);
        let Some(zone) = self.map.zones.get(orig as usize) else {
            return Adjusted::Eof;
        };
        if !zone.has_wp || (!zone.offline && self.opts.read_beyond_wp) {
            return Adjusted::At { offset, len };
        }
        let min = self.min_bs[Direction::Read.index()];
        let mut i = orig;
        let mut offset = offset;
        let mut range = if zone.offline {
            0
        } else {
            zone.wp() - zone.start
        };
        if range < min || (!self.random && offset + min > zone.wp()) {
            let Some(found) = self.find_zone(orig, min) else {
                return Adjusted::Eof;
            };
            i = found;
            let z = &self.map.zones[i as usize];
            range = z.wp() - z.start;
            if !self.random {
                offset = z.start;
            }
        }
        let z = &self.map.zones[i as usize];
        if range <= len {
            offset = z.start;
        } else if self.random {
            let orig_start = self.map.zones[orig as usize].start;
            offset = z.start + ((offset - orig_start) % (range - len)) / min * min;
        }
        if !z.has_wp {
            return Adjusted::At { offset, len };
        }
        let new_len = len.min(z.wp().saturating_sub(offset)) / min * min;
        Adjusted::At {
            offset,
            len: new_len.min(len),
        }
    }

    /// The next zone after `from` with at least `min` bytes written (for random reads the
    /// nearest on either side), within the copy's part of the target.
    fn find_zone(&self, from: u32, min: u64) -> Option<u32> {
        let has = |i: u32| {
            let z = &self.map.zones[i as usize];
            !z.offline && z.start + min <= z.wp()
        };
        let (mut up, mut down) = (from as i64 + 1, from as i64 - 1);
        let (first, last) = (self.min_zone as i64, self.max_zone as i64);
        while up < last || down >= first {
            if up < last {
                if has(up as u32) {
                    return Some(up as u32);
                }
            } else if !self.random {
                break;
            }
            if self.random && down >= first && has(down as u32) {
                return Some(down as u32);
            }
            up += 1;
            down -= 1;
        }
        None
    }
}
