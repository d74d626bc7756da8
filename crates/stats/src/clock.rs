//! The clock every worker stamps I/Os with.
//!
//! On x86-64 with an invariant TSC (and a kernel that trusts it as its clocksource) a tick is
//! one TSC cycle, read with `rdtsc` in a few nanoseconds and without a system call. The tick rate
//! is calibrated once against `CLOCK_MONOTONIC`. Elsewhere the clock falls back to
//! `clock_gettime(CLOCK_MONOTONIC)` and a tick is one nanosecond. Either way the hot path sees
//! only `u64` ticks; [`Clock::ticks_to_ns`] converts when a report is made.

use std::time::Duration;

pub use iolab_results::{ClockSource, TickRate, Timebase};

/// A calibrated tick counter. `Copy`, so each worker holds its own and shares nothing.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// The source and rate; the clock adds only reading it.
    tb: Timebase,
}

/// Reads `CLOCK_MONOTONIC` in nanoseconds.
#[inline(always)]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86-64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rdtsc() -> u64 {
    monotonic_ns()
}

/// True when the TSC can time: the kernel times with it (its current clocksource is `tsc`: it
/// found the TSC stable across CPUs and states, or was told so with `tsc=reliable`), or, where
/// sysfs cannot say, the CPU declares it invariant (CPUID 0x8000_0007 EDX bit 8). The kernel's
/// verdict comes first both ways: a TSC it switched away from is not used, and one it trusts
/// is, even where the CPUID bit is missing (QEMU's software emulation never sets it, while
/// SPDK's perf times with the TSC regardless).
fn tsc_is_trustworthy() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        ) {
            Ok(s) => s.trim() == "tsc",
            Err(_) => {
                let max_ext = core::arch::x86_64::__cpuid(0x8000_0000).eax;
                // Leaf 0x8000_0007 exists when the maximum extended leaf reaches it.
                max_ext >= 0x8000_0007
                    && core::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Checks `IOLAB_CLOCK`: unset (or `auto`) picks the best source, `monotonic` forces
/// `clock_gettime`; anything else is a mistake worth saying before a run.
pub fn check_env() -> Result<(), String> {
    match std::env::var("IOLAB_CLOCK") {
        Err(std::env::VarError::NotPresent) => Ok(()),
        Ok(v) if v.is_empty() || v == "auto" || v == "monotonic" => Ok(()),
        Ok(v) => Err(format!(
            "IOLAB_CLOCK={v}: expected monotonic (force clock_gettime) or auto (the TSC when \
             it can be trusted)"
        )),
        Err(e) => Err(format!("IOLAB_CLOCK: {e}")),
    }
}

impl Clock {
    /// Picks the best source and calibrates it. Takes about `calibration` of wall time when
    /// the TSC is used (20 ms is plenty for four significant digits).
    pub fn calibrate(calibration: Duration) -> Clock {
        if std::env::var_os("IOLAB_CLOCK").is_some_and(|v| v == "monotonic")
            || !tsc_is_trustworthy()
        {
            return Clock::monotonic();
        }
        let (t0, n0) = (rdtsc(), monotonic_ns());
        std::thread::sleep(calibration);
        let (t1, n1) = (rdtsc(), monotonic_ns());
        let ticks_per_ns = (t1.wrapping_sub(t0)) as f64 / (n1 - n0) as f64;
        if !ticks_per_ns.is_finite() || ticks_per_ns < 0.05 {
            return Clock::monotonic();
        }
        Clock {
            tb: Timebase {
                source: ClockSource::Tsc,
                ticks_per_ns,
            },
        }
    }

    /// The fallback clock: `CLOCK_MONOTONIC`, one tick per nanosecond.
    pub fn monotonic() -> Clock {
        Clock {
            tb: Timebase::NANOSECONDS,
        }
    }

    /// A TSC clock with a known rate, for converting ticks recorded earlier (a stored
    /// histogram) back to time. Reading it is reading the TSC.
    pub fn with_ticks_per_ns(ticks_per_ns: f64) -> Clock {
        Clock {
            tb: Timebase::with_ticks_per_ns(ticks_per_ns),
        }
    }

    /// The current tick count. The match is on a value fixed for the whole run, so the branch
    /// predicts perfectly.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        match self.tb.source {
            ClockSource::Tsc => rdtsc(),
            ClockSource::Monotonic => monotonic_ns(),
        }
    }

    pub fn source(&self) -> ClockSource {
        self.tb.source
    }

    /// Ticks per nanosecond (1.0 for the monotonic clock).
    pub fn ticks_per_ns(&self) -> f64 {
        self.tb.ticks_per_ns
    }

    pub fn ticks_to_ns(&self, ticks: u64) -> f64 {
        self.tb.ticks_to_ns(ticks)
    }

    pub fn ns_to_ticks(&self, ns: u64) -> u64 {
        self.tb.ns_to_ticks(ns)
    }

    pub fn duration_to_ticks(&self, d: Duration) -> u64 {
        self.ns_to_ticks(d.as_nanos().min(u64::MAX as u128) as u64)
    }

    /// The source and rate a result recorded with this clock carries.
    pub fn timebase(&self) -> Timebase {
        self.tb
    }
}

impl TickRate for Clock {
    fn ticks_per_ns(&self) -> f64 {
        self.tb.ticks_per_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_clock_agrees_with_monotonic_over_a_sleep() {
        let clock = Clock::calibrate(Duration::from_millis(20));
        let (t0, n0) = (clock.now(), monotonic_ns());
        std::thread::sleep(Duration::from_millis(50));
        let (t1, n1) = (clock.now(), monotonic_ns());
        let by_clock = clock.ticks_to_ns(t1 - t0);
        let by_mono = (n1 - n0) as f64;
        let err = (by_clock - by_mono).abs() / by_mono;
        assert!(err < 0.01, "clock {by_clock} ns vs monotonic {by_mono} ns");
    }

    #[test]
    fn monotonic_clock_ticks_are_nanoseconds() {
        let c = Clock::monotonic();
        assert_eq!(c.ticks_to_ns(1234), 1234.0);
        assert_eq!(c.ns_to_ticks(1234), 1234);
        assert_eq!(c.source(), ClockSource::Monotonic);
    }
}
