//! iolab's runner: turns [`JobSpec`]s into worker threads, drives each worker's engine in a
//! tight submit/reap loop, and merges what the workers measured.
//!
//! The flow: [`prepare`] checks every job against its target (alignment, bounds, write
//! safety) and lays out files, before any I/O; [`run_jobs`] runs the jobs in phases (split
//! at each `stonewall`, see [`plan`]), starting one thread per job copy, lining them up at a
//! barrier and running them concurrently, and returns a [`RunOutcome`] holding per-job
//! histograms and counters (the types of `iolab_results`), merged per reporting group when
//! `group_reporting` asks for it.
//!
//! [`JobSpec`]: iolab_job::JobSpec

mod cgroup;
mod claim;
pub mod cpu;
pub mod error;
mod exits;
mod flow;
mod gate;
pub mod health;
pub mod iolog;
pub mod limits;
mod live;
mod locks;
mod numa;
mod peers;
pub mod plan;
mod polling;
pub mod prepare;
mod prepared;
pub mod progress;
mod rseq;
pub mod run;
pub mod signal;
mod split;
pub mod status;
mod steady;
mod watchdog;
mod worker;
mod zbd;

pub use error::RunError;
pub use iolab_results::{
    CpuUsage, DepthCounts, DirResult, DiskUsage, JobReport, LatencyWindow, RateStats, RunOutcome,
    Sample, SAMPLE_INTERVAL_NS,
};
pub use iolog::{IoEntry, IoLog, WindowEntry};
pub use live::{LiveCounters, LiveRates, RateMeter};
pub use peers::Peers;
pub use prepare::{prepare, PreparedJob};
pub use run::{run_jobs, RunOptions};
