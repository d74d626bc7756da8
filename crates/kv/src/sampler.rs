//! Samples the block device under the database once a second from /proc/diskstats while
//! db_bench runs: IOPS, MB/s, average latency of the completed I/Os and the average queue
//! depth over each interval — the device's side of the application's figures.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use iolab_sysinfo::diskstats::{read_diskstats, DiskCounters};

/// One interval of the device.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DiskSample {
    /// End of the interval, from the start of sampling.
    pub t_ms: u64,
    pub iops: f64,
    pub mb_per_sec: f64,
    /// Mean time per completed I/O (read and write ticks over I/Os).
    pub latency_ms: f64,
    /// Time-weighted mean of I/Os in flight (in_queue ms over elapsed ms).
    pub queue_depth: f64,
}

/// The figures of one interval from two counter snapshots `ms` apart.
pub fn sample(before: &DiskCounters, after: &DiskCounters, t_ms: u64, ms: f64) -> DiskSample {
    let d = after.since(before);
    let ios = (d.read_ios + d.write_ios) as f64;
    let secs = (ms / 1000.0).max(1e-9);
    DiskSample {
        t_ms,
        iops: ios / secs,
        mb_per_sec: (d.read_sectors + d.write_sectors) as f64 * 512.0 / 1e6 / secs,
        latency_ms: if ios > 0.0 {
            (d.read_ticks_ms + d.write_ticks_ms) as f64 / ios
        } else {
            0.0
        },
        queue_depth: d.in_queue_ms as f64 / ms.max(1e-9),
    }
}

/// Samples `disk` every `every` until `stop`, then once more for the last partial interval.
pub fn sample_until(disk: &str, every: Duration, stop: &AtomicBool, out: &mut Vec<DiskSample>) {
    let start = Instant::now();
    let read = || read_diskstats().ok().and_then(|m| m.get(disk).copied());
    let Some(mut last) = read() else { return };
    let mut last_t = Instant::now();
    loop {
        // Sleep in short steps so the end is seen quickly; the last interval is partial.
        let until = last_t + every;
        while Instant::now() < until && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let stopping = stop.load(Ordering::Relaxed);
        let Some(now) = read() else { return };
        let ms = last_t.elapsed().as_secs_f64() * 1000.0;
        if ms >= 50.0 {
            out.push(sample(&last, &now, start.elapsed().as_millis() as u64, ms));
        }
        if stopping {
            return;
        }
        last = now;
        last_t = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_interval_of_counters() {
        let a = DiskCounters::default();
        let b = DiskCounters {
            read_ios: 600,
            write_ios: 400,
            read_sectors: 8 * 600,
            write_sectors: 8 * 400,
            read_ticks_ms: 300,
            write_ticks_ms: 200,
            in_queue_ms: 1500,
            ..DiskCounters::default()
        };
        let s = sample(&a, &b, 1000, 1000.0);
        assert_eq!(s.iops, 1000.0);
        assert!((s.mb_per_sec - 4.096).abs() < 1e-9);
        assert_eq!((s.latency_ms, s.queue_depth), (0.5, 1.5));
    }
}
