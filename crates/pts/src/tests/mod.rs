//! The specification's tests, one file each behind [`PtsTest`]: how the test prepares the
//! drive (workload-independent preconditioning, a preconditioning loop of its own), what a
//! round is, which figures the steady-state rule tracks, how many rounds run and what
//! follows them.

use std::time::Duration;

use crate::config::Config;
use crate::element::{Element, Measured};

pub mod cbw;
pub mod demand;
pub mod dirth;
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
    /// A fixed series (write saturation, cross-stimulus recovery's first access group): at
    /// most `rounds`, or until `bytes` are written. The specification sets no steady-state
    /// criterion for it, and none is claimed.
    Series { rounds: usize, bytes: u64 },
}

/// Which interval of a preconditioning round the rule tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    First,
    Last,
}

/// A workload-dependent preconditioning loop before the test's own rounds (host idle
/// recovery, the composite and demand-intensity tests): rounds of `per_round` intervals of
/// one stimulus (30 one-minute intervals in the 2.0 public implementation), the rule
/// tracking one interval's IOPS a round, until steady state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preconditioning {
    pub element: Element,
    pub per_round: usize,
    pub tracked: Interval,
}

/// One test of the specification.
pub trait PtsTest: Sync {
    /// The JSON name (`iops`, `tp-128k`) and the store's stage (`pts-iops`).
    fn name(&self) -> &'static str;
    fn stage(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// Whether the profile's test set has it (PTS-C runs fewer tests).
    fn in_profile(&self, _client: bool) -> bool {
        true
    }
    /// Workload-independent preconditioning after the purge: the stimulus that writes the
    /// active range twice (128 KiB sequential writes, T1Q32); `None` for the tests that start
    /// from the purged drive (write saturation, host idle recovery, cross-stimulus recovery).
    fn wipc(&self, c: &Config) -> Option<Element> {
        Some(wipc_element(c, 128 << 10))
    }
    /// A workload-dependent preconditioning loop of its own before the rounds.
    fn preconditioning(&self, _c: &Config) -> Option<Preconditioning> {
        None
    }
    /// Run before each round, its figures kept but not tracked (the 5-minute T32Q32
    /// pre-writes of the composite and demand-intensity tests).
    fn pre_write(&self, _c: &Config) -> Option<Step> {
        None
    }
    /// One round's stimulus, in the specification's order.
    fn round(&self, c: &Config) -> Vec<Element>;
    /// What the steady-state rule tracks, in words, one entry per variable.
    fn tracked_labels(&self, c: &Config) -> Vec<String>;
    /// The tracked variables of a round, in `tracked_labels`' order.
    fn tracked(&self, c: &Config, round: &[Measured]) -> Vec<f64>;
    fn rounds(&self, c: &Config) -> Rounds;
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

/// The workload-independent preconditioning stimulus at `bs`: sequential writes at T1Q32
/// (`--quick`: T1Q8), the public implementations' outstanding I/O for it.
pub fn wipc_element(c: &Config, bs: u32) -> Element {
    Element {
        read_pct: 0,
        bs,
        random: false,
        threads: 1,
        depth: if c.quick { 8 } else { 32 },
        composite: false,
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

impl Step {
    /// `element` for `time`, no idle, no histogram.
    pub fn plain(element: Element, time: Duration) -> Step {
        Step {
            element,
            time,
            idle_after: Duration::ZERO,
            histogram: false,
            role: "",
        }
    }
}

impl Phase {
    /// Its time, idle included.
    pub fn duration(&self) -> Duration {
        self.steps.iter().map(|s| s.time + s.idle_after).sum()
    }
}

/// Every test of the specification, in the order a run takes them.
pub fn all() -> [&'static dyn PtsTest; 9] {
    [
        &iops::Iops,
        &tp::TP_128K,
        &tp::TP_1024K,
        &lat::Latency,
        &wsat::WriteSaturation,
        &hir::HostIdleRecovery,
        &xsr::CrossStimulusRecovery,
        &cbw::CBW,
        &dirth::DIRTH,
    ]
}

/// The tests a name given to `--tests` stands for: a test's own name, `tp` for both
/// throughput tests, `ecw` for the composite test (its PTS-E 1.1 name).
pub fn by_name(name: &str) -> Vec<&'static dyn PtsTest> {
    let name = match name {
        "ecw" => "cbw",
        n => n,
    };
    all()
        .into_iter()
        .filter(|t| t.name() == name || (name == "tp" && t.name().starts_with("tp-")))
        .collect()
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

/// 4 KiB random writes at `threads` × `depth`: write saturation's and host idle recovery's
/// stimulus.
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

/// The response-time histogram the latency test and PTS 2.0's write saturation end with:
/// 4 KiB random writes at T1Q1 for 20 minutes (`--quick`: 20 element times).
pub(crate) fn histogram_phase(c: &Config) -> Phase {
    let time = match c.quick {
        true => c.element_time * 20,
        false => Duration::from_secs(20 * 60),
    };
    Phase {
        name: "response-time histogram: 4 KiB random writes at T1Q1".into(),
        steps: vec![Step {
            histogram: true,
            role: "histogram",
            ..Step::plain(random_writes_4k(1, 1), time)
        }],
    }
}

/// One figure of the element of `round` that `want` picks (0 when absent).
pub(crate) fn figure_of(
    round: &[Measured],
    want: impl Fn(&Element) -> bool,
    figure: impl Fn(&Measured) -> f64,
) -> f64 {
    round.iter().find(|m| want(&m.element)).map_or(0.0, figure)
}
