//! The zones of one target: each zone's write pointer and lock, the open-zone list.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use iolab_engine::zones::{ReportedZone, ZoneCond, ZoneType};

/// A zone's lock: held by one job copy at a time, from choosing a write's offset until the
/// write is done (so taken in one call and let go in another, which `Mutex` guards cannot),
/// and taken again by the copy that holds it for each further write it puts in flight
/// there (fio's zone mutexes are recursive).
#[derive(Default)]
pub(crate) struct ZoneLock {
    /// The holder (0: none) and how many times it holds it.
    state: Mutex<(u32, u32)>,
    freed: Condvar,
}

impl ZoneLock {
    /// Takes the zone for copy `me`; where another copy holds it, waits if `wait`, else
    /// gives up (false).
    pub fn take(&self, me: u32, wait: bool) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if s.0 == 0 || s.0 == me {
                *s = (me, s.1 + 1);
                return true;
            }
            if !wait {
                return false;
            }
            s = self.freed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Lets go of one hold of copy `me`.
    pub fn give(&self, me: u32) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.0 != me || s.1 == 0 {
            return;
        }
        s.1 -= 1;
        if s.1 == 0 {
            s.0 = 0;
            drop(s);
            self.freed.notify_all();
        }
    }
}

/// One zone. `wp` and `open` change only under the zone's lock.
pub(crate) struct Zone {
    pub start: u64,
    pub capacity: u64,
    /// A sequential zone (conventional ones take any write).
    pub has_wp: bool,
    pub offline: bool,
    pub wp: AtomicU64,
    pub open: AtomicBool,
    pub lock: ZoneLock,
}

impl Zone {
    pub fn wp(&self) -> u64 {
        self.wp.load(Ordering::Acquire)
    }

    /// Where writes must stop (fio's `zbd_zone_capacity_end()`).
    pub fn capacity_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// Fewer than `required` bytes are left to write (fio's `zbd_zone_full()`).
    pub fn full(&self, required: u64) -> bool {
        self.has_wp && self.wp() + required > self.capacity_end()
    }
}

/// What every copy shares under the target's lock (fio's `zbd_info->mutex`).
#[derive(Default)]
pub(crate) struct Shared {
    /// Zones open for writing, in the order they were opened.
    pub open: Vec<u32>,
    /// Bytes below the write pointers (fio's `wp_sectors_with_data`).
    pub with_data: u64,
    /// Writes left before the next early reset (`zone_reset_frequency`).
    pub write_cnt: u32,
}

/// The zones of one target.
pub(crate) struct ZoneMap {
    pub zones: Vec<Zone>,
    pub zone_size: u64,
    /// Where the last zone ends (fio's sentinel zone).
    pub end: u64,
    /// A zoned device, whose write pointers the kernel resets; else emulated zones.
    pub device: bool,
    /// The most zones open at a time over every copy (0: no limit, none tracked).
    pub max_open: u32,
    pub shared: Mutex<Shared>,
    /// Writes between their zone's choice and their end, over every copy (fio's
    /// `any_io_in_flight()`).
    pub in_flight: AtomicU32,
}

impl std::fmt::Debug for ZoneMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoneMap")
            .field("zones", &self.zones.len())
            .field("zone_size", &self.zone_size)
            .field("device", &self.device)
            .field("max_open", &self.max_open)
            .finish()
    }
}

impl ZoneMap {
    /// The zones a device reported (fio's `parse_zone_info()`): a full zone's write
    /// pointer is its capacity's end.
    pub fn from_report(report: &[ReportedZone], max_open: u32) -> ZoneMap {
        let zones = report
            .iter()
            .map(|z| {
                let wp = match z.cond {
                    ZoneCond::NotWp | ZoneCond::Full => z.start + z.capacity,
                    _ => z.wp,
                };
                let sequential = z.kind == ZoneType::SequentialRequired;
                zone(
                    z.start,
                    z.capacity,
                    wp,
                    sequential,
                    z.cond == ZoneCond::Offline,
                )
            })
            .collect();
        let zone_size = report.first().map_or(0, |z| z.len);
        let end = report.last().map_or(0, |z| z.start + z.len);
        ZoneMap::new(zones, zone_size, end, true, max_open)
    }

    /// Zones emulated over a file of `bytes` that is not zoned (fio's `init_zone_info()`):
    /// every zone sequential and empty.
    pub fn emulated(bytes: u64, zone_size: u64, capacity: u64, max_open: u32) -> ZoneMap {
        let n = bytes.div_ceil(zone_size);
        let zones = (0..n)
            .map(|i| zone(i * zone_size, capacity, i * zone_size, true, false))
            .collect();
        ZoneMap::new(zones, zone_size, n * zone_size, false, max_open)
    }

    fn new(zones: Vec<Zone>, zone_size: u64, end: u64, device: bool, max_open: u32) -> ZoneMap {
        let with_data = zones
            .iter()
            .filter(|z| z.has_wp)
            .map(|z| z.wp() - z.start)
            .sum();
        ZoneMap {
            zones,
            zone_size,
            end,
            device,
            max_open,
            shared: Mutex::new(Shared {
                with_data,
                ..Shared::default()
            }),
            in_flight: AtomicU32::new(0),
        }
    }

    /// The zone holding `offset` (the count of zones past the end, as fio's sentinel).
    pub fn index_of(&self, offset: u64) -> u32 {
        ((offset / self.zone_size.max(1)) as usize).min(self.zones.len()) as u32
    }

    /// Where zone `i` ends (the next zone's start).
    pub fn zone_end(&self, i: u32) -> u64 {
        self.zones.get(i as usize + 1).map_or(self.end, |z| z.start)
    }

    pub fn shared(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A zone, not open, with its write pointer at `wp`.
fn zone(start: u64, capacity: u64, wp: u64, has_wp: bool, offline: bool) -> Zone {
    Zone {
        start,
        capacity,
        has_wp,
        offline,
        wp: AtomicU64::new(wp),
        open: AtomicBool::new(false),
        lock: ZoneLock::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulated_zones_cover_the_file_and_start_empty() {
        let m = ZoneMap::emulated(10 << 20, 4 << 20, 3 << 20, 0);
        assert_eq!(m.zones.len(), 3);
        assert_eq!(m.end, 12 << 20);
        assert_eq!((m.zones[2].start, m.zones[2].wp()), (8 << 20, 8 << 20));
        assert_eq!(m.zones[1].capacity_end(), (4 << 20) + (3 << 20));
        assert_eq!(m.index_of(5 << 20), 1);
        assert_eq!(m.index_of(100 << 20), 3, "past the end: the sentinel");
        assert!(!m.zones[0].full(1 << 20));
        assert_eq!(m.shared().with_data, 0);
    }

    #[test]
    fn a_zone_lock_is_one_copys_at_a_time_and_taken_again_by_it() {
        let l = std::sync::Arc::new(ZoneLock::default());
        assert!(l.take(1, true));
        assert!(l.take(1, false), "again by its holder");
        assert!(!l.take(2, false), "not by another");
        let l2 = l.clone();
        let t = std::thread::spawn(move || {
            l2.take(2, true);
            l2.give(2);
        });
        l.give(1);
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!t.is_finished(), "held once more");
        l.give(1);
        t.join().unwrap();
    }
}
