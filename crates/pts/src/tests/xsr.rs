//! Cross-stimulus recovery: after the purge and preconditioning, three access groups of
//! writes, each 8 hours at T1 and the test's queue depth, sampled once an element time:
//! 1024 KiB sequential, then 8 KiB random, then 1024 KiB sequential again. How throughput
//! moves across each change of stimulus is the result. The first group is the test's
//! series (the rule's verdict on it is reported beside it); the other two follow it.
//! `--quick`: 16 samples a group.

use super::{figure_of, Phase, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct CrossStimulusRecovery;

impl CrossStimulusRecovery {
    fn samples(c: &Config) -> usize {
        match c.quick {
            true => 16,
            false => (8 * 3600 / c.element_time.as_secs().max(1)) as usize,
        }
    }
    fn group(c: &Config, bs: u32, random: bool) -> Element {
        Element {
            read_pct: 0,
            bs,
            random,
            threads: 1,
            depth: c.depth,
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
    fn round(&self, c: &Config) -> Vec<Element> {
        vec![Self::group(c, 1 << 20, false)]
    }
    fn tracked_label(&self, _: &Config) -> String {
        "1024 KiB sequential write throughput (access group 1)".into()
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> f64 {
        figure_of(round, |_| true, |m| m.bw_bytes)
    }
    fn rounds(&self, c: &Config) -> Rounds {
        Rounds::Series {
            rounds: Self::samples(c),
            bytes: u64::MAX,
        }
    }
    fn after(&self, c: &Config, _: &[Vec<Measured>], _: Option<[usize; 2]>) -> Vec<Phase> {
        let n = Self::samples(c);
        let phase = |name: &str, e: Element| Phase {
            name: name.into(),
            steps: vec![
                Step {
                    element: e,
                    time: c.element_time,
                    idle_after: std::time::Duration::ZERO,
                    histogram: false,
                    role: "",
                };
                n
            ],
        };
        vec![
            phase(
                "access group 2: 8 KiB random writes",
                Self::group(c, 8192, true),
            ),
            phase(
                "access group 3: 1024 KiB sequential writes",
                Self::group(c, 1 << 20, false),
            ),
        ]
    }
}
