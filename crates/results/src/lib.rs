//! iolab's results: what a run measured, typed, in one crate at the bottom of the house.
//!
//! Two shapes, one conversion between them:
//! - **measured** ([`RunOutcome`], [`JobReport`], [`DirResult`]): what the runner hands back,
//!   histograms in clock ticks with the [`Timebase`] to convert them. fio's JSON and normal
//!   output, the review steps and the terminal tables read it; a multi-host run sends it.
//! - **records** ([`RunRecord`], [`JobRecord`]): what is kept — figures by name in ns,
//!   histograms whole, series, review steps, host. The store writes and reads them, `show`,
//!   `compare`, `export` and the report read them, `import` makes them (from iolab's export
//!   or fio's JSON). [`JobRecord::from_report`] is the one conversion.
//!
//! Every type is `serde`; this crate depends on nothing else of iolab's, so any crate can
//! read results without pulling in the runner, the engines or the store.

pub mod conclusions;
mod direction;
pub mod health;
pub mod histogram;
pub mod hosts;
pub mod iolog;
pub mod lenient;
pub mod machine;
pub mod measured;
pub mod ordered;
pub mod pts;
pub mod record;
pub mod repeats;
pub mod review;
pub mod setup;
pub mod split;
pub mod steady;
pub mod summary;
pub mod target;
pub mod timebase;

pub use conclusions::{About, Marks, Note, NoteKind, RowMark};
pub use direction::{per_direction, Direction};
pub use health::{
    celsius, health_lines, record_changed, record_lines, DriveHealth, HealthSample, HealthWord,
};
pub use histogram::LatencyHistogram;
pub use hosts::{HostOutcome, HostRow, MergeError, MultiHostOutcome};
pub use iolog::{
    fio_plat_index, HistEntry, IoEntry, IoLog, IoTrace, TraceEntry, WindowEntry, FIO_PLAT_BINS,
};
pub use machine::{MachineCheck, Verdict};
pub use measured::{
    carried_cell, Behind, Carried, CpuUsage, DepthCounts, DirResult, DiskUsage, ErrorCounts,
    JobError, JobReport, LatTargetResult, LatencyBuckets, LatencyWindow, OpenLoop, PooledRates,
    PooledStat, PrioLatency, RateStats, RunOutcome, Sample, Sampling,
};
pub use ordered::Metrics;
pub use record::{
    options_of, percentile_name, CpuRecord, HistogramRecord, HostRecord, JobRecord, MetaFacts,
    RunRecord, SeriesRecord, StepRecord, RECORD_FORMAT, RECORD_VERSION, SAMPLE_INTERVAL_NS,
    STORED_PERCENTILES,
};
pub use repeats::{Interval, RepeatFigures};
pub use setup::{
    JobSetup, LogSpec, NumberStyle, Recorded, RwReporting, DEFAULT_PERCENTILES,
    IOLAB_TAIL_PERCENTILE,
};
pub use split::{LatSplit, SplitWindow, TailAccount, TailShare};
pub use steady::SteadyResult;
pub use summary::LatencySummary;
pub use target::{DiskCounters, TargetFacts, TargetKind};
pub use timebase::{ClockSource, TickRate, Timebase};
