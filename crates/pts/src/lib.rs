//! SNIA's Solid State Storage Performance Test Specification (PTS-E and PTS-C 2.0.2), the
//! industry's whole SSD test: purge, preconditioning, then each test's stimulus in rounds
//! until steady state, and its report pages.
//!
//! So far this crate holds the part every test shares and that no open tool gets right: the
//! steady-state rule ([`steady`]). The tests, the `iolab pts` command and the report pages
//! are still to come (the issue "SNIA's PTS in one command").

pub mod steady;
