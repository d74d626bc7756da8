//! Cross-stimulus recovery: from the purged drive (no workload-independent preconditioning,
//! as PTS 2.0's public implementation runs it), three access groups of writes at T1Q32,
//! sampled once an element time: 1024 KiB sequential for 8 hours, then 8 KiB random for 6
//! hours, then 1024 KiB sequential again for 8 hours. How throughput moves across each change
//! of stimulus is the result; no steady state is claimed. `--quick`: 16, 12 and 16 samples at
//! T1Q8.

use super::{figure_of, Phase, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct CrossStimulusRecovery;

/// Each access group's hours at full duration.
pub const HOURS: [u64; 3] = [8, 6, 8];

impl CrossStimulusRecovery {
    fn samples(c: &Config, group: usize) -> usize {
        match c.quick {
            true => [16, 12, 16][group],
            false => (HOURS[group] * 3600 / c.element_time.as_secs().max(1)) as usize,
        }
    }
    fn group(c: &Config, bs: u32, random: bool) -> Element {
        Element {
            read_pct: 0,
            bs,
            random,
            threads: 1,
            depth: if c.quick { 8 } else { 32 },
            composite: false,
        }
    }
}

impl PtsTest for CrossStimulusRecovery {
    fn name(&self) -> &'static str {
        "xsr"
    }
    fn stage(&self) -> &'static str {
        "pts-xsr"
    }
    fn title(&self) -> &'static str {
        "Cross-stimulus recovery: sequential, random, sequential writes"
    }
    /// An enterprise test.
    fn in_profile(&self, client: bool) -> bool {
        !client
    }
    fn wipc(&self, _: &Config) -> Option<Element> {
        None
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        vec![Self::group(c, 1 << 20, false)]
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        vec!["1024 KiB sequential write throughput (access group 1)".into()]
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        vec![figure_of(round, |_| true, |m| m.bw_bytes)]
    }
    fn rounds(&self, c: &Config) -> Rounds {
        Rounds::Series {
            rounds: Self::samples(c, 0),
            bytes: u64::MAX,
        }
    }
    fn after(&self, c: &Config, _: &[Vec<Measured>], _: Option<[usize; 2]>) -> Vec<Phase> {
        let phase = |name: &str, e: Element, n: usize| Phase {
            name: name.into(),
            steps: vec![Step::plain(e, c.element_time); n],
        };
        vec![
            phase(
                "access group 2: 8 KiB random writes",
                Self::group(c, 8192, true),
                Self::samples(c, 1),
            ),
            phase(
                "access group 3: 1024 KiB sequential writes",
                Self::group(c, 1 << 20, false),
                Self::samples(c, 2),
            ),
        ]
    }
}
