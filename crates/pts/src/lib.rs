//! SNIA's Solid State Storage Performance Test Specification (PTS-E and PTS-C 2.0.2), the
//! industry's whole SSD test: purge, preconditioning, then each test's stimulus in rounds
//! until steady state, and its report pages.
//!
//! - [`steady`]: the steady-state rule every test shares, as a small pure module;
//! - [`tests`]: one file per test behind [`tests::PtsTest`] (its preconditioning, its round,
//!   its tracked variables, its rounds, what follows them);
//! - [`run`]: purge, preconditioning and rounds, each element a point of the review's
//!   executor and store; [`purge`]: whether the purge is one in the specification's sense;
//! - [`dut`]: the device under test's facts (serial, firmware, write cache) and the write
//!   cache set as the profile requires and restored after;
//! - [`plan`]: the time the chosen tests take at the specification's durations;
//!   [`estimate`]: that plan kept while the run goes, at the pace it measures;
//! - [`compare`]: two runs test by test and element by element, with `compare`'s verdicts.
//!
//! Every result is a PTS-style run by iolab, not a certified SNIA result.

pub mod compare;
pub mod config;
pub mod dut;
pub mod element;
pub mod estimate;
pub mod plan;
pub mod preflight;
pub mod purge;
pub mod run;
pub mod steady;
pub mod tests;
pub mod text;

pub use config::{Choices, Config, DataPattern, DirthChoice, Profile, WsatWorkload};
pub use run::{run_test, TestRun};

/// What every page and document of a PTS run says of itself.
pub const DISCLAIMER: &str = "PTS-style run by iolab: not a certified SNIA result";
