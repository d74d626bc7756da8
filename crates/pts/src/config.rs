//! How a PTS run is set: the target, its test region, the profile (PTS-E or PTS-C), the
//! element time and outstanding I/O, and `--quick`'s scaling.

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

#[derive(Debug, Clone)]
pub struct Config {
    pub target: PathBuf,
    /// Bytes of the target the tests use (the spec's "user capacity"): all of it unless
    /// scaled down by `--quick` or set.
    pub region: u64,
    /// PTS-C (client) rather than PTS-E (enterprise).
    pub client: bool,
    /// Every duration and capacity scaled down: not comparable with a full run.
    pub quick: bool,
    /// Each element's time (the spec: one minute).
    pub element_time: Duration,
    /// The outstanding I/O of the tests that load the drive: threads × queue depth.
    pub threads: u32,
    pub depth: u32,
    pub rule: Rule,
    /// The target's logical block size: elements below it (0.5 KiB on a 4 KiB-formatted
    /// drive) cannot be run and are left out, said in the results.
    pub logical_block: u32,
}

impl Config {
    /// The specification's settings for `target` of `capacity` bytes (`region` to use less):
    /// one minute an element; T4Q32 for PTS-E, T2Q16 for PTS-C; with `quick`, a quarter
    /// second an element, T2Q8, at most [`QUICK_REGION`] and [`QUICK_MAX_ROUNDS`].
    pub fn new(
        target: PathBuf,
        capacity: u64,
        region: Option<u64>,
        client: bool,
        quick: bool,
    ) -> Config {
        let mut region = region.unwrap_or(capacity).min(capacity);
        if quick {
            region = region.min(QUICK_REGION);
        }
        let (threads, depth) = match (quick, client) {
            (true, _) => (2, 8),
            (false, false) => (4, 32),
            (false, true) => (2, 16),
        };
        Config {
            target,
            region,
            client,
            quick,
            element_time: if quick {
                Duration::from_millis(250)
            } else {
                Duration::from_secs(60)
            },
            threads,
            depth,
            rule: Rule {
                max_rounds: if quick { QUICK_MAX_ROUNDS } else { 25 },
                ..Rule::default()
            },
            logical_block: 512,
        }
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
        Ok(())
    }

    /// `PTS-E 2.0.2` or `PTS-C 2.0.2`.
    pub fn profile(&self) -> &'static str {
        match self.client {
            true => "PTS-C 2.0.2",
            false => "PTS-E 2.0.2",
        }
    }
}
