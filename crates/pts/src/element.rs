//! One element of a PTS round: a stimulus (read/write mix, block size, random or
//! sequential, threads × queue depth) run for the element's time, and what it measured.

use std::time::Duration;

use iolab_engine::{Direction, EngineConfig, EngineKind};
use iolab_job::{BlockDist, JobSpec, Pattern, RandomDistribution, SizeSpec, Zone, ZonedSplit};
use iolab_results::JobReport;
use iolab_stats::Clock;

use crate::config::{Config, DataPattern};
pub use iolab_results::pts::{size_name, Element, Measured};
use std::sync::Arc;

/// The enterprise composite workload's transfer sizes and their shares of the I/Os, in
/// percent (sizes in bytes).
pub const COMPOSITE_SIZES: [(u32, u32); 12] = [
    (512, 4),
    (1024, 1),
    (1536, 1),
    (2048, 1),
    (2560, 1),
    (3072, 1),
    (3584, 1),
    (4096, 67),
    (8192, 10),
    (16384, 7),
    (32768, 3),
    (65536, 3),
];

/// Its access ranges: (percent of the I/Os, percent of the region), consecutive from the
/// region's start: half the I/Os to the first 5 %, 30 % to the next 15 %, 20 % to the rest.
pub const COMPOSITE_RANGES: [(u8, u64); 3] = [(50, 5), (30, 15), (20, 80)];

/// The composite sizes a target of `logical_block` bytes can take: a share below the block
/// goes to the block size itself.
pub fn composite_split(logical_block: u32) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (bs, pct) in COMPOSITE_SIZES {
        let bs = bs.max(logical_block);
        match out.iter_mut().find(|p| p.0 == bs) {
            Some(p) => p.1 += pct,
            None => out.push((bs, pct)),
        }
    }
    out
}

/// The job an element runs (the element itself is the stored document's
/// [`iolab_results::pts::Element`]).
pub trait ElementJob {
    fn spec(&self, c: &Config, name: String, time: Duration) -> JobSpec;
}

impl ElementJob for Element {
    /// The job that runs the element on the configured target for `time` over its active
    /// range: direct, libaio, without fio's random map (the spec's random I/O may repeat
    /// offsets), the threads reported as one group, and the data pattern the run writes.
    /// Sequential streams get disjoint shares of the range, each its own sequence (several
    /// streams from one offset would walk the same blocks together).
    fn spec(&self, c: &Config, name: String, time: Duration) -> JobSpec {
        let mut j = JobSpec::new(name, &c.target);
        j.direct = true;
        j.engine = EngineConfig::new(EngineKind::Libaio);
        j.pattern = if self.random {
            Pattern::Random
        } else {
            Pattern::Sequential
        };
        j.read_percent = self.read_pct as u32;
        j.block_size = [self.bs; 3];
        j.iodepth = self.depth;
        j.numjobs = self.threads;
        j.group_reporting = self.threads > 1;
        j.size = Some(SizeSpec::Bytes(c.region));
        if !self.random && self.threads > 1 {
            let share = c.region / u64::from(self.threads) / 1048576 * 1048576;
            j.size = Some(SizeSpec::Bytes(share.max(u64::from(self.bs))));
            j.offset_increment = SizeSpec::Bytes(share);
        }
        j.time_based = true;
        j.runtime = Some(time);
        j.ramp_time = Duration::ZERO;
        j.random_map = false;
        j.lat_percentiles = true;
        j.buffers.refill = c.data_pattern == DataPattern::Random;
        if self.composite {
            let split = composite_split(c.logical_block);
            let largest = split.iter().map(|p| p.0).max().unwrap_or(self.bs);
            j.block_size = [largest; 3];
            j.block_dist = std::array::from_fn(|_| BlockDist::Split(split.clone()));
            let zones: Vec<Zone> = COMPOSITE_RANGES
                .iter()
                .map(|&(access_percent, size)| Zone {
                    access_percent,
                    size,
                })
                .collect();
            j.distribution = RandomDistribution::Zoned(Arc::new(ZonedSplit {
                absolute: false,
                zones: std::array::from_fn(|_| zones.clone()),
            }));
        }
        j
    }
}

/// What an element measured, from its job's report (the figures are the stored document's
/// [`iolab_results::pts::Measured`]).
pub trait Measure: Sized {
    fn of(element: Element, r: &JobReport, clock: &Clock) -> Self;
    /// With the element's response-time histogram (see [`decade_bins`]).
    fn with_histogram(self, r: &JobReport, clock: &Clock) -> Self;
}

impl Measure for Measured {
    fn of(element: Element, r: &JobReport, clock: &Clock) -> Measured {
        let lat = r.mixed().lat.summarize(clock, &[99.0, 99.99, 99.999]);
        Measured {
            element,
            label: element.label(),
            iops: r.iops(Direction::Read) + r.iops(Direction::Write),
            read_iops: r.iops(Direction::Read),
            write_iops: r.iops(Direction::Write),
            bw_bytes: r.bw_bytes_per_sec(Direction::Read) + r.bw_bytes_per_sec(Direction::Write),
            write_bytes: r.dir(Direction::Write).map_or(0, |d| d.bytes),
            mean_ns: lat.mean_ns,
            max_ns: lat.max_ns,
            p99_ns: lat.percentile(99.0).unwrap_or(0.0),
            p9999_ns: lat.percentile(99.99).unwrap_or(0.0),
            p99999_ns: lat.percentile(99.999).unwrap_or(0.0),
            histogram: None,
            cpus: r.cpu.total_ns() as f64 / r.runtime_ns.max(1) as f64,
        }
    }

    fn with_histogram(mut self, r: &JobReport, clock: &Clock) -> Measured {
        self.histogram = Some(decade_bins(&r.mixed().lat.bins_ns(clock)));
        self
    }
}

/// Fine bins (value in ns, count) regrouped into ten log-spaced bins a decade, each named by
/// its upper edge (rounded to the ns): a histogram a page can draw.
pub fn decade_bins(fine: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(ns, n) in fine {
        let step = ((ns.max(1) as f64).log10() * 10.0).ceil();
        let edge = 10f64.powf(step / 10.0).round() as u64;
        match out.last_mut() {
            Some(last) if last.0 == edge => last.1 += n,
            _ => out.push((edge, n)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_stimulus_as_the_spec_tables_do() {
        let e = Element {
            read_pct: 65,
            bs: 512,
            random: true,
            threads: 4,
            depth: 32,
            composite: false,
        };
        assert_eq!(e.label(), "0.5KiB 65/35 random T4Q32");
        let s = Element {
            read_pct: 0,
            bs: 1 << 20,
            random: false,
            ..e
        };
        assert_eq!(s.label(), "1024KiB 0/100 sequential T4Q32");
        let c = Config::new(
            "/dev/null".into(),
            1 << 30,
            None,
            crate::config::Profile::Enterprise,
            false,
            &Default::default(),
        );
        let j = s.spec(&c, "x".into(), Duration::from_secs(60));
        assert_eq!((j.numjobs, j.iodepth, j.read_percent), (4, 32, 0));
        assert!(j.group_reporting && j.direct && !j.random_map && j.buffers.refill);
        // Four sequential streams, each on its own quarter of the range.
        assert_eq!(j.size, Some(SizeSpec::Bytes(256 << 20)));
        assert_eq!(j.offset_increment, SizeSpec::Bytes(256 << 20));
    }

    /// The composite workload on a 4 KiB-formatted drive: the 10 % of I/Os below 4 KiB go to
    /// 4 KiB (77 % in all), the shares still add up to 100, the largest size is 64 KiB.
    #[test]
    fn the_composite_workload_folds_sizes_below_the_logical_block() {
        assert_eq!(COMPOSITE_SIZES.iter().map(|p| p.1).sum::<u32>(), 100);
        assert_eq!(composite_split(512).len(), 12);
        let four = composite_split(4096);
        assert_eq!(four[0], (4096, 77));
        assert_eq!(four.iter().map(|p| p.1).sum::<u32>(), 100);
        let e = Element {
            read_pct: 40,
            bs: 65536,
            random: true,
            threads: 2,
            depth: 8,
            composite: true,
        };
        assert_eq!(e.label(), "composite 40/60 random T2Q8");
        let mut c = Config::new(
            "/dev/null".into(),
            1 << 30,
            None,
            crate::config::Profile::Enterprise,
            false,
            &Default::default(),
        );
        c.logical_block = 4096;
        let j = e.spec(&c, "x".into(), Duration::from_secs(1));
        assert_eq!(j.block_size, [65536; 3]);
        assert!(matches!(j.distribution, RandomDistribution::Zoned(_)));
    }

    /// Ten bins a decade: 1000 ns and 1100 ns fall in the bin up to 1259 ns, 1300 ns in the
    /// next (up to 1585 ns).
    #[test]
    fn decade_bins_regroup_fine_bins() {
        let b = decade_bins(&[(1000, 2), (1100, 3), (1300, 4)]);
        assert_eq!(b, vec![(1000, 2), (1259, 3), (1585, 4)]);
    }
}
