//! How clock ticks turn into time. Workers stamp I/Os with raw ticks (TSC cycles or
//! nanoseconds, see `iolab_stats::Clock`); every figure a person reads is in nanoseconds. A
//! result carries its [`Timebase`] so it can be converted wherever it is read — after the
//! run, from the database, or on another host.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which hardware or kernel counter the ticks came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockSource {
    /// The CPU's time-stamp counter, calibrated against `CLOCK_MONOTONIC`.
    Tsc,
    /// `clock_gettime(CLOCK_MONOTONIC)`, one tick per nanosecond.
    Monotonic,
}

impl fmt::Display for ClockSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClockSource::Tsc => "tsc",
            ClockSource::Monotonic => "clock_gettime(CLOCK_MONOTONIC)",
        })
    }
}

/// Anything that knows how many ticks make a nanosecond: the live clock or a [`Timebase`].
pub trait TickRate {
    /// Ticks per nanosecond (1.0 for the monotonic clock).
    fn ticks_per_ns(&self) -> f64;

    fn ticks_to_ns(&self, ticks: u64) -> f64 {
        ticks as f64 / self.ticks_per_ns()
    }
}

/// The source and rate of the ticks a result was recorded in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timebase {
    pub source: ClockSource,
    pub ticks_per_ns: f64,
}

impl Timebase {
    /// One tick per nanosecond.
    pub const NANOSECONDS: Timebase = Timebase {
        source: ClockSource::Monotonic,
        ticks_per_ns: 1.0,
    };

    /// The timebase of ticks recorded at `ticks_per_ns` (a stored histogram's rate): 1.0 (or
    /// anything unusable) is the monotonic clock, anything else the TSC.
    pub fn with_ticks_per_ns(ticks_per_ns: f64) -> Timebase {
        if (ticks_per_ns - 1.0).abs() < f64::EPSILON
            || !ticks_per_ns.is_finite()
            || ticks_per_ns <= 0.0
        {
            return Timebase::NANOSECONDS;
        }
        Timebase {
            source: ClockSource::Tsc,
            ticks_per_ns,
        }
    }

    pub fn source(&self) -> ClockSource {
        self.source
    }

    pub fn ticks_per_ns(&self) -> f64 {
        self.ticks_per_ns
    }

    pub fn ticks_to_ns(&self, ticks: u64) -> f64 {
        ticks as f64 / self.ticks_per_ns
    }

    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        (ns as f64 * self.ticks_per_ns) as u64
    }
}

impl TickRate for Timebase {
    fn ticks_per_ns(&self) -> f64 {
        self.ticks_per_ns
    }
}
