//! iolab's methodology: what the seed reviews did to a fast SSD, as one unattended review.
//! Nine steps (see [`Step`]), each made of measured points. Every point is an ordinary
//! [`JobSpec`](iolab_job::JobSpec) run by the runner and saved to the results store as soon as
//! it finishes, and every step is saved with its own figures (the saturation point, the
//! floor split, ...) and its printed tables, so an interrupted review keeps what it measured
//! and `iolab show` can print it again.

pub mod effort;
pub mod exec;
pub mod load_plan;
pub mod plan;
pub mod progress;
pub mod purge;
pub mod ram_device;
pub mod served;
pub mod steps;
pub mod table;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

pub use effort::{Effort, PerStep, StepTiming};
pub use exec::{Executor, Point};
pub use steps::{
    default_qd1_paths, paths_on, run_review, run_step, step_impl, Findings, ReviewOutcome,
    ReviewStep, StepEnd,
};

/// The review's steps, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    Info,
    Precondition,
    Qd1Engines,
    QdSweep,
    Load,
    TransferSize,
    Profiles,
    Consistency,
    PollVsIrq,
    SoftwareFloor,
}

impl Step {
    pub const ALL: [Step; 10] = [
        Step::Info,
        Step::Precondition,
        Step::Qd1Engines,
        Step::QdSweep,
        Step::Load,
        Step::TransferSize,
        Step::Profiles,
        Step::Consistency,
        Step::PollVsIrq,
        Step::SoftwareFloor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Info => "info",
            Step::Precondition => "precondition",
            Step::Qd1Engines => "qd1-engines",
            Step::QdSweep => "qd-sweep",
            Step::Load => "load",
            Step::TransferSize => "transfer-size",
            Step::Profiles => "profiles",
            Step::Consistency => "consistency",
            Step::PollVsIrq => "poll-vs-irq",
            Step::SoftwareFloor => "software-floor",
        }
    }

    /// One line on what the step measures, for `--help` and the printed headings.
    pub fn title(self) -> &'static str {
        match self {
            Step::Info => "device and host facts",
            Step::Precondition => "deallocate, then full sequential writes",
            Step::Qd1Engines => "QD1 4 KiB random read/write through every I/O path",
            Step::QdSweep => "queue-depth sweep and saturation point",
            Step::Load => "latency under load, open loop: the curve, its knee, IOPS at an SLO",
            Step::TransferSize => "transfer size 512 B to 1 MiB at QD1",
            Step::Profiles => "the hosting review's profiles (4k QD1/16/128, 4M QD32)",
            Step::Consistency => "per-second latency over a longer run",
            Step::PollVsIrq => "QD1 read latency with polling vs interrupts",
            Step::SoftwareFloor => "QD1 latency split into harness, kernel and device",
        }
    }

    /// Long steps, whose drive health logs are read while they run (besides before and
    /// after each point): a drive heats and throttles over minutes. Never the latency
    /// cells, where a log read beside the I/O could disturb the drive being measured.
    pub fn samples_health(self) -> bool {
        matches!(self, Step::Precondition | Step::Load | Step::Consistency)
    }

    /// Steps that write to the target (software-floor only reads it; filling the RAM
    /// device it compares against is gated on its own).
    pub fn writes(self) -> bool {
        !matches!(self, Step::Info | Step::PollVsIrq | Step::SoftwareFloor)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Step {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Step::ALL
            .into_iter()
            .find(|st| st.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Step::ALL.iter().map(|s| s.name()).collect();
                format!("unknown step '{s}' (steps: {})", names.join(", "))
            })
    }
}

/// What to review and how hard.
#[derive(Debug, Clone)]
pub struct ReviewConfig {
    /// The file or block device under test.
    pub target: PathBuf,
    /// Bytes of the target to use (`None`: all of it).
    pub size: Option<u64>,
    /// The user's consent to overwrite the target (`--allow-destroy`).
    pub consent: iolab_sysinfo::Consent,
    /// The user's consent to fill the floor device (`--allow-destroy-floor`): its own, as it
    /// is another device than the target.
    pub floor_consent: iolab_sysinfo::Consent,
    pub effort: Effort,
    /// Steps to run, in [`Step::ALL`] order.
    pub steps: Vec<Step>,
    pub runtime: PerStep,
    pub ramp: PerStep,
    pub max_qd: u32,
    pub precondition_passes: u32,
    /// Saturation tolerance of the sweep, in percent of the peak IOPS.
    pub tolerance_pct: f64,
    /// The RAM-backed block device of the software-floor step.
    pub floor_device: Option<PathBuf>,
    /// The load step: its loads (shares of the peak), the knee's factor over the lightest
    /// load's response p99, and the objective whose highest carried load it finds.
    pub loads: Vec<f64>,
    pub knee_factor: f64,
    pub slo: Option<load_plan::Slo>,
    /// The I/O paths of the QD1 step ([`default_qd1_paths`] in a review; the main job's
    /// `--engines`, null included, on its own).
    pub qd1_paths: Vec<iolab_engine::EngineConfig>,
    /// Split each point's latency into submit, device and completion (`lat_split`) in the
    /// QD1, polling and consistency steps; on in a review where the kernel allows it.
    pub lat_split: bool,
    /// How many times the QD1 step measures each cell (`--repeat`), all cells once per
    /// round so drift hits every path alike; each cell's figures pool the rounds and carry
    /// their 95 % intervals. 1: once.
    pub repeat: u32,
    /// Whether `repeat` was asked for. Without it the QD1 step still measures each cell in
    /// [`DEFAULT_QD1_ROUNDS`] rounds, sharing the step's runtime between them: a mark is a
    /// claim, and one run of each cell gives no interval to stand on (see `qd1_rounds`).
    pub repeat_asked: bool,
    /// Columns of the QD1 table measured elsewhere (`--with RUN`).
    pub with_qd1: Vec<steps::qd1::ImportedCell>,
    /// A namespace SPDK drives (`--spdk`), named by its transport id: the `spdk` path among
    /// `qd1_paths` measures it, where the kernel's paths measure `target`.
    pub spdk: Option<PathBuf>,
}

/// How many times each point of `step` is measured with `--repeat` `repeat`: that, except in
/// the steps that are not measurements to repeat (the device facts, preconditioning, which
/// writes the device into a state once, and consistency, whose point is one long series).
pub fn repeats_of(step: Step, repeat: u32) -> u32 {
    match step {
        Step::Info | Step::Precondition | Step::Consistency => 1,
        _ => repeat.max(1),
    }
}

/// Rounds of the QD1 table when `--repeat` is not given. Two consecutive cells of one run
/// drift apart by more than one cell's own noise (on zram, psync 91.1k against pvsync2 77.1k
/// in one run, 105k against 106k in the next, the same kernel path); only rounds taken
/// across the paths see that drift. Three is the fewest that give an interval with a spread
/// to speak of, and they share the step's runtime, so the default costs a ramp per round.
pub const DEFAULT_QD1_ROUNDS: u32 = 3;

impl ReviewConfig {
    /// How many times each point of `step` is measured (see [`repeats_of`]).
    pub fn repeats_of(&self, step: Step) -> u32 {
        match step {
            Step::Qd1Engines => self.qd1_rounds().0,
            _ => repeats_of(step, self.repeat),
        }
    }

    /// The QD1 step's rounds and one round's timing: `--repeat N` rounds of the step's whole
    /// runtime each; without it, [`DEFAULT_QD1_ROUNDS`] rounds sharing it (a round no
    /// shorter than 100 ms; a runtime shorter than that is one round).
    pub fn qd1_rounds(&self) -> (u32, StepTiming) {
        let t = self.timing(Step::Qd1Engines);
        if self.repeat_asked {
            return (self.repeat.max(1), t);
        }
        let n = DEFAULT_QD1_ROUNDS;
        let share = t.runtime / n;
        match share >= std::time::Duration::from_millis(100) {
            true => (
                n,
                StepTiming {
                    ramp: t.ramp,
                    runtime: share,
                },
            ),
            false => (1, t),
        }
    }

    pub fn timing(&self, step: Step) -> StepTiming {
        effort::timing(self.effort, &self.runtime, &self.ramp, step)
    }
}

/// Why a review stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("interrupted")]
    Interrupted,
    #[error("{0}")]
    Store(#[from] iolab_store::StoreError),
    #[error("{0}")]
    Run(#[from] iolab_runner::RunError),
    #[error("writing results: {0}")]
    Output(#[from] std::io::Error),
    #[error("{0}")]
    Other(String),
}
