//! Measurement primitives for iolab: a cheap clock that counts integer ticks, latency
//! histograms that record those ticks in O(1), and summaries that turn ticks into nanoseconds
//! only when a report asks for them.
//!
//! The split follows SPDK's `perf`: the hot path stamps each I/O with the TSC and records raw
//! ticks; conversion, percentiles and formatting happen once, at the end.

pub mod clock;
pub mod histogram;
pub mod summary;

pub use clock::{Clock, ClockSource};
pub use histogram::LatencyHistogram;
pub use summary::LatencySummary;
