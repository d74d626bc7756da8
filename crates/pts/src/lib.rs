//! SNIA's Solid State Storage Performance Test Specification (PTS-E and PTS-C 2.0.2), the
//! industry's whole SSD test: purge, preconditioning, then each test's stimulus in rounds
//! until steady state, and its report pages.
//!
//! - [`steady`]: the steady-state rule every test shares, as a small pure module;
//! - [`tests`]: one file per test behind [`tests::PtsTest`] (its round, its tracked
//!   variable, its rounds): IOPS, throughput, latency and write saturation so far;
//! - [`run`]: purge, preconditioning and rounds, each element a point of the review's
//!   executor and store;
//! - [`plan`]: the time the chosen tests take at the specification's durations;
//! - [`compare`]: two runs test by test and element by element, with `compare`'s verdicts.
//!
//! Every result is a PTS-style run by iolab, not a certified SNIA result.

pub mod compare;
pub mod config;
pub mod element;
pub mod plan;
pub mod run;
pub mod steady;
pub mod tests;
pub mod text;

pub use config::Config;
pub use run::{run_test, TestRun};

/// What every page and document of a PTS run says of itself.
pub const DISCLAIMER: &str = "PTS-style run by iolab: not a certified SNIA result";
