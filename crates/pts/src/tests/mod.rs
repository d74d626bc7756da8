//! The specification's tests, one file each behind [`PtsTest`]: what a round is, which
//! figure the steady-state rule tracks, and how many rounds run.

use std::time::Duration;

use crate::config::Config;
use crate::element::{Element, Measured};

pub mod demand;
pub mod dirth;
pub mod ecw;
pub mod hir;
pub mod iops;
pub mod lat;
pub mod tp;
pub mod wsat;
pub mod xsr;

/// How a test's rounds end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// Until the steady-state rule holds, at most the rule's `max_rounds`.
    ToSteadyState,
    /// A fixed series (write saturation): at most `rounds`, or until `bytes` are written.
    Series { rounds: usize, bytes: u64 },
}

/// One test of the specification.
pub trait PtsTest: Sync {
    /// The JSON name (`iops`) and the store's stage (`pts-iops`).
    fn name(&self) -> &'static str;
    fn stage(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// One round's stimulus, in the specification's order.
    fn round(&self, c: &Config) -> Vec<Element>;
    /// What the steady-state rule tracks, in words.
    fn tracked_label(&self, c: &Config) -> String;
    /// The tracked variable of a round.
    fn tracked(&self, c: &Config, round: &[Measured]) -> f64;
    fn rounds(&self, c: &Config) -> Rounds;
    /// Workload-independent preconditioning (twice the region in 128 KiB writes) after the
    /// purge. The tests that start from the purged drive with their own random writes
    /// (write saturation "from fresh out of box", host idle recovery, demand intensity)
    /// have none.
    fn wipc(&self) -> bool {
        true
    }
    /// What runs after the rounds (recovery segments, operating points with their
    /// histograms), given the rounds and the measurement window's rounds (1-based): the
    /// steady one, else the last judged; the plan calls it with no rounds to count the time.
    fn after(
        &self,
        _c: &Config,
        _rounds: &[Vec<Measured>],
        _window: Option<[usize; 2]>,
    ) -> Vec<Phase> {
        Vec::new()
    }
}

/// A named stretch of steps after a test's rounds (a wait state, an access group).
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: String,
    pub steps: Vec<Step>,
}

/// One element run for `time`, then the host idle for `idle_after`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub element: Element,
    pub time: Duration,
    pub idle_after: Duration,
    /// Keep the element's response-time histogram.
    pub histogram: bool,
    /// What the step is, where it is more than one of a series ("maximum IOPS").
    pub role: &'static str,
}

impl Phase {
    /// Its time, idle included.
    pub fn duration(&self) -> Duration {
        self.steps.iter().map(|s| s.time + s.idle_after).sum()
    }
}

/// Every test of the specification, in the order a run takes them.
pub fn all() -> [&'static dyn PtsTest; 8] {
    [
        &iops::Iops,
        &tp::Throughput,
        &lat::Latency,
        &wsat::WriteSaturation,
        &hir::HostIdleRecovery,
        &xsr::CrossStimulusRecovery,
        &ecw::EnterpriseComposite,
        &dirth::DemandIntensity,
    ]
}

/// The test named `name`.
pub fn by_name(name: &str) -> Option<&'static dyn PtsTest> {
    all().into_iter().find(|t| t.name() == name)
}

/// Random I/O over every read/write mix × block size, in the specification's loop order
/// (mixes outer), at `threads` × `depth`.
pub(crate) fn random_matrix(mixes: &[u8], sizes: &[u32], threads: u32, depth: u32) -> Vec<Element> {
    mixes
        .iter()
        .flat_map(|&read_pct| {
            sizes.iter().map(move |&bs| Element {
                read_pct,
                bs,
                random: true,
                threads,
                depth,
                composite: false,
            })
        })
        .collect()
}

/// 4 KiB random writes at `threads` × `depth`: write saturation's, host idle recovery's and
/// demand intensity's stimulus.
pub(crate) fn random_writes_4k(threads: u32, depth: u32) -> Element {
    Element {
        read_pct: 0,
        bs: 4096,
        random: true,
        threads,
        depth,
        composite: false,
    }
}

/// The figure of the element matching `want` in a round (0 when the round lacks it).
pub(crate) fn figure_of(
    round: &[Measured],
    want: impl Fn(&Element) -> bool,
    figure: impl Fn(&Measured) -> f64,
) -> f64 {
    round.iter().find(|m| want(&m.element)).map_or(0.0, figure)
}
