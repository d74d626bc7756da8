//! Block-device counters from /proc/diskstats, read before and after a run so the run's
//! share can be reported as fio's `disk_util` (I/Os, merges, ticks, queue time, utilisation).

use std::collections::BTreeMap;

pub use iolab_results::DiskCounters;

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
