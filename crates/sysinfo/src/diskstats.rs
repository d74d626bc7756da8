//! Block-device counters from /proc/diskstats, read before and after a run so the run's
//! share can be reported as fio's `disk_util` (I/Os, merges, ticks, queue time, utilisation).

use std::collections::BTreeMap;

/// One disk's cumulative counters (fields 4–14 of a /proc/diskstats line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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

/// Every disk's counters, by kernel name (`zram0`, `loop3`, `vda`).
pub fn read_diskstats() -> std::io::Result<BTreeMap<String, DiskCounters>> {
    Ok(parse_diskstats(&std::fs::read_to_string(
        "/proc/diskstats",
    )?))
}

/// Parses /proc/diskstats text; malformed lines are skipped.
pub fn parse_diskstats(text: &str) -> BTreeMap<String, DiskCounters> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 14 {
            continue;
        }
        let n: Vec<u64> = f[3..14].iter().filter_map(|v| v.parse().ok()).collect();
        if n.len() != 11 {
            continue;
        }
        out.insert(
            f[2].to_string(),
            DiskCounters {
                read_ios: n[0],
                read_merges: n[1],
                read_sectors: n[2],
                read_ticks_ms: n[3],
                write_ios: n[4],
                write_merges: n[5],
                write_sectors: n[6],
                write_ticks_ms: n[7],
                in_flight: n[8],
                io_ticks_ms: n[9],
                in_queue_ms: n[10],
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kernel_lines_and_differences() {
        let a = parse_diskstats(
            " 252       0 zram0 100 0 800 5 50 0 400 7 0 12 12 0 0 0 0 0 0\n\
             7       0 loop0 1 2 3 4 5 6 7 8 9 10 11\nbad line\n",
        );
        let b =
            parse_diskstats(" 252       0 zram0 160 0 1280 9 90 0 720 11 1 40 30 0 0 0 0 0 0\n");
        let z = b["zram0"].since(&a["zram0"]);
        assert_eq!((z.read_ios, z.write_ios, z.io_ticks_ms), (60, 40, 28));
        assert_eq!(
            (z.read_ticks_ms, z.write_ticks_ms, z.in_queue_ms),
            (4, 4, 18)
        );
        assert_eq!(a["loop0"].in_queue_ms, 11);
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn this_machine_has_diskstats() {
        assert!(!read_diskstats().unwrap().is_empty());
    }
}
