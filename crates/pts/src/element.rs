//! One element of a PTS round: a stimulus (read/write mix, block size, random or
//! sequential, threads × queue depth) run for the element's time, and what it measured.

use std::path::Path;
use std::time::Duration;

use iolab_engine::{Direction, EngineConfig, EngineKind};
use iolab_job::{JobSpec, Pattern, SizeSpec};
use iolab_results::JobReport;
use iolab_stats::Clock;
use serde::Serialize;

/// A stimulus, as the specification's tables name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Element {
    /// Reads in percent of the I/Os (the spec's "R/W mix": 65 is 65/35).
    pub read_pct: u8,
    /// Transfer size in bytes (512 for the spec's 0.5 KiB).
    pub bs: u32,
    pub random: bool,
    /// Thread count and queue depth per thread (the spec's T and Q; outstanding I/O T × Q).
    pub threads: u32,
    pub depth: u32,
}

impl Element {
    /// `4KiB 65/35 random T4Q32`.
    pub fn label(&self) -> String {
        let bs = match self.bs {
            512 => "0.5KiB".to_string(),
            b if b % (1 << 20) == 0 => format!("{}MiB", b >> 20),
            b => format!("{}KiB", b >> 10),
        };
        format!(
            "{bs} {}/{} {} T{}Q{}",
            self.read_pct,
            100 - self.read_pct,
            if self.random { "random" } else { "sequential" },
            self.threads,
            self.depth
        )
    }

    /// The job that runs the element on `target` for `time` over its first `region` bytes:
    /// direct, libaio, without fio's random map (the spec's random I/O may repeat offsets),
    /// the threads reported as one group.
    pub fn spec(&self, name: String, target: &Path, region: u64, time: Duration) -> JobSpec {
        let mut j = JobSpec::new(name, target);
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
        j.size = Some(SizeSpec::Bytes(region));
        j.time_based = true;
        j.runtime = Some(time);
        j.ramp_time = Duration::ZERO;
        j.random_map = false;
        j.lat_percentiles = true;
        j
    }
}

/// What one element measured: reads and writes together, as the spec's tables count them.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    pub element: Element,
    pub label: String,
    pub iops: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    /// Bytes per second, reads and writes together.
    pub bw_bytes: f64,
    /// Bytes written in the element (write saturation plots against them).
    pub write_bytes: u64,
    /// Response times (the spec's average, maximum and five-nines), reads and writes
    /// together, in ns.
    pub mean_ns: f64,
    pub max_ns: f64,
    pub p99999_ns: f64,
}

impl Measured {
    pub fn of(element: Element, r: &JobReport, clock: &Clock) -> Measured {
        let lat = r.mixed().lat.summarize(clock, &[99.999]);
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
            p99999_ns: lat.percentile(99.999).unwrap_or(0.0),
        }
    }
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
        };
        assert_eq!(e.label(), "0.5KiB 65/35 random T4Q32");
        let s = Element {
            read_pct: 0,
            bs: 1 << 20,
            random: false,
            ..e
        };
        assert_eq!(s.label(), "1MiB 0/100 sequential T4Q32");
        let j = s.spec(
            "x".into(),
            Path::new("/dev/null"),
            1 << 30,
            Duration::from_secs(60),
        );
        assert_eq!((j.numjobs, j.iodepth, j.read_percent), (4, 32, 0));
        assert!(j.group_reporting && j.direct && !j.random_map);
    }
}
