//! Measurement primitives for iolab: a cheap clock that counts integer ticks. The histograms
//! that record those ticks in O(1), and the summaries that turn ticks into nanoseconds only
//! when a report asks for them, are results and live in `iolab_results` (re-exported here so
//! the hot path names one crate).
//!
//! The split follows SPDK's `perf`: the hot path stamps each I/O with the TSC and records raw
//! ticks; conversion, percentiles and formatting happen once, at the end.

pub mod clock;

pub use clock::Clock;
pub use iolab_results::{ClockSource, LatencyHistogram, LatencySummary, TickRate, Timebase};
