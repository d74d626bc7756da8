//! How a PTS run is set: the target and its active range, the profile (PTS-E or PTS-C), the
//! operator's choices the specification leaves to the test operator (threads and queue
//! depth, element time, active range, data pattern, DIRTH's stimulus and response-time
//! ceiling, the preconditioning rate the plan assumes) and `--quick`'s scaling.

use std::path::PathBuf;
use std::time::Duration;

use crate::steady::Rule;

/// The largest region a `--quick` run uses: the suite in minutes on a RAM device or the lab.
pub const QUICK_REGION: u64 = 256 << 20;

/// The rounds after which a `--quick` test stops without steady state (the specification's
/// 25 scaled down with everything else): under emulation a quarter-second element can stay
/// too noisy for the rule, and 25 rounds of the IOPS test's 56 elements would take the
/// suite past its minutes.
pub const QUICK_MAX_ROUNDS: usize = 10;

/// PTS-E or PTS-C: what the specification sets differently for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Enterprise,
    Client,
}

impl Profile {
    /// The active range the profile requires, in percent of the user capacity (PTS-E: all
    /// of it; PTS-C: 75 %).
    pub fn active_range_pct(self) -> u32 {
        match self {
            Profile::Enterprise => 100,
            Profile::Client => 75,
        }
    }

    /// The volatile write cache state the profile requires (PTS-E: disabled; PTS-C:
    /// enabled).
    pub fn write_cache_enabled(self) -> bool {
        self == Profile::Client
    }

    /// The outstanding I/O the public implementations default to (T4Q32, T2Q16).
    fn toio(self) -> (u32, u32) {
        match self {
            Profile::Enterprise => (4, 32),
            Profile::Client => (2, 16),
        }
    }
}

/// What is written: the specification requires random data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataPattern {
    /// Fresh random data in every write (fio's `refill_buffers`): the default.
    Random,
    /// Random buffers filled once and reused with a per-write stamp (fio's default
    /// `scramble_buffers`): cheaper for the host, and a drive that deduplicates or
    /// compresses can tell; departs from the specification's random data.
    Reused,
}

impl DataPattern {
    pub fn name(self) -> &'static str {
        match self {
            DataPattern::Random => "random, fresh in every write",
            DataPattern::Reused => "random buffers reused (departs: PTS requires random data)",
        }
    }
}

/// DIRTH's stimulus and response-time ceiling (operator's choices).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirthChoice {
    /// Reads in percent of the I/Os.
    pub read_pct: u8,
    /// Transfer size in bytes.
    pub bs: u32,
    /// The highest average response time the maximum-IOPS operating point may have.
    pub ceiling: Duration,
}

impl Default for DirthChoice {
    /// The 2.0 public implementation's default: random 8 KiB, 65 % reads, ART below 5 ms.
    fn default() -> DirthChoice {
        DirthChoice {
            read_pct: 65,
            bs: 8192,
            ceiling: Duration::from_millis(5),
        }
    }
}

/// Write saturation's stimulus: the required 4 KiB random writes, or one of PTS 2.0's
/// optional workloads (as the 2.0 public implementation names and defines them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WsatWorkload {
    /// Random 4 KiB, 100 % writes: the specification's required stimulus.
    #[default]
    WriteIntensive,
    /// Mixed or OLTP: random 8 KiB, 65 % reads.
    Oltp,
    /// Video on demand: sequential 128 KiB, 90 % reads.
    Vod,
    /// Metadata: sequential 0.5 KiB, 50 % reads.
    Metadata,
    /// The composite block-size workload (CBW's sizes and access ranges), 100 % writes.
    Composite,
}

impl WsatWorkload {
    /// Every workload, by the name `--wsat-workload` takes.
    pub const ALL: [(&'static str, WsatWorkload); 5] = [
        ("write-intensive", WsatWorkload::WriteIntensive),
        ("oltp", WsatWorkload::Oltp),
        ("vod", WsatWorkload::Vod),
        ("metadata", WsatWorkload::Metadata),
        ("cbw", WsatWorkload::Composite),
    ];

    /// The workload `name` stands for.
    pub fn named(name: &str) -> Option<WsatWorkload> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, w)| *w)
    }

    /// Its element at `threads` × `depth`.
    pub fn element(self, threads: u32, depth: u32) -> crate::element::Element {
        let (read_pct, bs, random, composite) = match self {
            WsatWorkload::WriteIntensive => (0, 4096, true, false),
            WsatWorkload::Oltp => (65, 8192, true, false),
            WsatWorkload::Vod => (90, 128 << 10, false, false),
            WsatWorkload::Metadata => (50, 512, false, false),
            WsatWorkload::Composite => (0, 4096, true, true),
        };
        crate::element::Element {
            read_pct,
            bs,
            random,
            threads,
            depth,
            composite,
        }
    }

    /// What its tracked IOPS are called on the pages: `4 KiB random write IOPS`.
    pub fn tracked(self) -> &'static str {
        match self {
            WsatWorkload::WriteIntensive => "4 KiB random write IOPS",
            WsatWorkload::Oltp => "8 KiB random 65/35 IOPS (OLTP)",
            WsatWorkload::Vod => "128 KiB sequential 90/10 IOPS (video on demand)",
            WsatWorkload::Metadata => "0.5 KiB sequential 50/50 IOPS (metadata)",
            WsatWorkload::Composite => "composite block size write IOPS (CBW)",
        }
    }
}

/// The operator's choices, each `None` for the specification's (or the profile's) default.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    pub threads: Option<u32>,
    pub depth: Option<u32>,
    pub element_time: Option<Duration>,
    /// Percent of the user capacity the tests use.
    pub active_range_pct: Option<u32>,
    pub data_pattern: Option<DataPattern>,
    pub dirth: Option<DirthChoice>,
    /// Write saturation's stimulus (the required one unless named).
    pub wsat: Option<WsatWorkload>,
    /// Leave the drive's volatile write cache as it is instead of setting the profile's.
    pub keep_write_cache: bool,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub target: PathBuf,
    pub profile: Profile,
    /// The target's user capacity in bytes.
    pub capacity: u64,
    /// Bytes of the target the tests use: the active range, from the start of the target
    /// (scaled down by `--quick` or set by `--size`).
    pub region: u64,
    /// The active range in percent of the user capacity (`region` as the specification
    /// counts it).
    pub active_range_pct: f64,
    /// Every duration and capacity scaled down: not comparable with a full run.
    pub quick: bool,
    /// Each element's time (the spec: one minute).
    pub element_time: Duration,
    /// The outstanding I/O of the tests that load the drive: threads × queue depth.
    pub threads: u32,
    pub depth: u32,
    pub data_pattern: DataPattern,
    pub dirth: DirthChoice,
    pub wsat: WsatWorkload,
    pub keep_write_cache: bool,
    pub rule: Rule,
    /// The target's logical block size: elements below it (0.5 KiB on a 4 KiB-formatted
    /// drive) cannot be run and are left out, said in the results.
    pub logical_block: u32,
}

impl Config {
    /// The specification's settings for `target` of `capacity` bytes, with the operator's
    /// `choices`: one minute an element; the profile's outstanding I/O and active range;
    /// `size` to use less of the target; with `quick`, a quarter second an element, T2Q8,
    /// at most [`QUICK_REGION`] and [`QUICK_MAX_ROUNDS`].
    pub fn new(
        target: PathBuf,
        capacity: u64,
        size: Option<u64>,
        profile: Profile,
        quick: bool,
        choices: &Choices,
    ) -> Config {
        let ar = choices
            .active_range_pct
            .unwrap_or(profile.active_range_pct())
            .clamp(1, 100);
        let mut region = (capacity as u128 * ar as u128 / 100) as u64;
        if let Some(s) = size {
            region = region.min(s);
        }
        if quick {
            region = region.min(QUICK_REGION);
        }
        // Whole MiB: every transfer size divides it, and each stream's share stays aligned.
        region = (region >> 20 << 20).max(region.min(1 << 20));
        let (t, d) = match quick {
            true => (2, 8),
            false => profile.toio(),
        };
        Config {
            target,
            profile,
            capacity,
            region,
            active_range_pct: match capacity {
                0 => 0.0,
                c => 100.0 * region as f64 / c as f64,
            },
            quick,
            element_time: choices.element_time.unwrap_or(match quick {
                true => Duration::from_millis(250),
                false => Duration::from_secs(60),
            }),
            threads: choices.threads.unwrap_or(t),
            depth: choices.depth.unwrap_or(d),
            data_pattern: choices.data_pattern.unwrap_or(DataPattern::Random),
            dirth: choices.dirth.unwrap_or_default(),
            wsat: choices.wsat.unwrap_or_default(),
            keep_write_cache: choices.keep_write_cache,
            rule: Rule {
                max_rounds: if quick { QUICK_MAX_ROUNDS } else { 25 },
                ..Rule::default()
            },
            logical_block: 512,
        }
    }

    pub fn client(&self) -> bool {
        self.profile == Profile::Client
    }

    /// The smallest region the tests can run on: each of the loaded tests' streams holds two
    /// of the largest transfers (1024 KiB).
    pub fn min_region(&self) -> u64 {
        u64::from(self.threads.max(1)) * (2 << 20)
    }

    /// What makes the settings unusable before anything is written, in a sentence.
    pub fn check(&self) -> Result<(), String> {
        if self.region < self.min_region() {
            return Err(format!(
                "the test region of {} bytes is too small: the tests need at least {} bytes \
                 ({} stream(s) of two 1024 KiB transfers); give a larger --size or target",
                self.region,
                self.min_region(),
                self.threads
            ));
        }
        if self.element_time < Duration::from_millis(100) {
            return Err("--element-time: at least 100ms".into());
        }
        Ok(())
    }

    /// `PTS-E 2.0.2` or `PTS-C 2.0.2`.
    pub fn profile_name(&self) -> &'static str {
        match self.profile {
            Profile::Client => "PTS-C 2.0.2",
            Profile::Enterprise => "PTS-E 2.0.2",
        }
    }

    /// Where the settings depart from the specification's, each in a sentence (empty: they
    /// do not): the operator's choices the specification does not leave open.
    pub fn departures(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.quick {
            out.push(
                "--quick: every duration and capacity scaled down; not comparable with a full run"
                    .into(),
            );
        }
        let want = self.profile.active_range_pct() as f64;
        // --quick's own line says its region is scaled down.
        if (self.active_range_pct - want).abs() > 0.5 && !self.quick {
            out.push(format!(
                "active range {:.1} % of the user capacity, where {} requires {want:.0} %",
                self.active_range_pct,
                self.profile_name()
            ));
        }
        if self.data_pattern != DataPattern::Random {
            out.push(format!("data pattern: {}", self.data_pattern.name()));
        }
        if !self.quick && self.element_time != Duration::from_secs(60) {
            out.push(format!(
                "elements of {:.2} s, where the specification runs one minute",
                self.element_time.as_secs_f64()
            ));
        }
        if self.rule.max_rounds < 25 && !self.quick {
            out.push(format!(
                "at most {} rounds, fewer than the specification's 25",
                self.rule.max_rounds
            ));
        }
        out
    }
}

/// PTS-E's settings for a 1 GiB target at `/dev/x`, full length or `--quick`: for the
/// crate's unit tests.
#[cfg(test)]
pub(crate) fn test_config(quick: bool) -> Config {
    Config::new(
        "/dev/x".into(),
        1 << 30,
        None,
        Profile::Enterprise,
        quick,
        &Choices::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTS-C tests 75 % of the user capacity (whole MiB), PTS-E all of it.
    #[test]
    fn the_profiles_active_ranges_and_outstanding_io() {
        let e = Config::new(
            "/dev/x".into(),
            2_000_000_000_000,
            None,
            Profile::Enterprise,
            false,
            &Choices::default(),
        );
        assert_eq!(e.region, 2_000_000_000_000 >> 20 << 20);
        assert_eq!((e.threads, e.depth), (4, 32));
        assert!(e.departures().is_empty(), "{:?}", e.departures());
        let c = Config::new(
            "/dev/x".into(),
            1 << 40,
            None,
            Profile::Client,
            false,
            &Choices::default(),
        );
        assert_eq!(c.region, 3 << 38);
        assert_eq!(c.active_range_pct, 75.0);
        assert_eq!((c.threads, c.depth), (2, 16));
        assert!(c.departures().is_empty());
        let small = Config::new(
            "/dev/x".into(),
            1 << 40,
            Some(1 << 30),
            Profile::Enterprise,
            false,
            &Choices::default(),
        );
        assert!(small.departures()[0].contains("active range"));
    }
}
