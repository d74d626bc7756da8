//! What a run of the chosen tests takes at the specification's durations, before it starts:
//! the purge, the workload-independent preconditioning (twice the active range, timed at the
//! write rate the operator gives or an assumed 1 GB/s), each test's own preconditioning loop
//! and rounds (5 at the least, the first window that can be steady, and the rule's 25 at the
//! most), what follows them, and the whole run's total. Write saturation runs 24 hours or
//! until four times the active range is written, whichever comes first: at the given rate
//! the second may come sooner. Capacities and rates are decimal (`2TB` is
//! 2,000,000,000,000 bytes), as the specification counts them.

use std::time::Duration;

use crate::config::Config;
use crate::tests::{PtsTest, Rounds};

/// One test's planned time.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub name: &'static str,
    /// Elements a round (its pre-write included).
    pub elements: usize,
    /// Workload-independent preconditioning at the assumed rate.
    pub wipc: Duration,
    /// The test's own preconditioning loop, at the least and the most.
    pub preconditioning: (Duration, Duration),
    /// Rounds at the least and the most.
    pub rounds: (usize, usize),
    /// What follows the rounds (wait states, access groups, operating points).
    pub after: Duration,
    pub least: Duration,
    pub most: Duration,
}

/// Seconds as a duration, `Duration::MAX` past what one holds (a plan at 1 byte/s of a
/// large drive): a plan says "longer than anyone waits", it does not panic.
fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX)
}

/// `d` times `n`, saturating.
fn times(d: Duration, n: usize) -> Duration {
    d.checked_mul(u32::try_from(n).unwrap_or(u32::MAX))
        .unwrap_or(Duration::MAX)
}

/// A sum of durations, saturating.
fn sum(ds: impl IntoIterator<Item = Duration>) -> Duration {
    ds.into_iter()
        .fold(Duration::ZERO, |a, d| a.saturating_add(d))
}

/// `tests` on `c`, writes timed at `write_bytes_per_sec`. Every sum and product saturates.
pub fn plan(tests: &[&dyn PtsTest], c: &Config, write_bytes_per_sec: f64) -> Vec<Planned> {
    let rate = write_bytes_per_sec.max(1.0);
    let twice = secs(2.0 * c.region as f64 / rate);
    let (least_rounds, most_rounds) = (c.rule.window, c.rule.max_rounds);
    tests
        .iter()
        .map(|t| {
            let wipc = if t.wipc(c).is_some() {
                twice
            } else {
                Duration::ZERO
            };
            let preconditioning =
                t.preconditioning(c)
                    .map_or((Duration::ZERO, Duration::ZERO), |p| {
                        let round = times(c.element_time, p.per_round);
                        (times(round, least_rounds), times(round, most_rounds))
                    });
            let after = sum(t.after(c, &[], None).iter().map(|p| p.duration()));
            let pre = t.pre_write(c);
            let elements = t.round(c).len() + usize::from(pre.is_some());
            let per_round = times(c.element_time, t.round(c).len())
                .saturating_add(pre.map_or(Duration::ZERO, |s| s.time));
            let (rounds, least_rounds_time) = match t.rounds(c) {
                Rounds::ToSteadyState => {
                    ((least_rounds, most_rounds), times(per_round, least_rounds))
                }
                // Whichever first: its rounds, or its bytes at the given rate.
                Rounds::Series { rounds, bytes } => {
                    let all = times(per_round, rounds);
                    let by_bytes = secs(bytes as f64 / rate);
                    (
                        (rounds, rounds),
                        all.min(by_bytes.max(times(per_round, c.rule.window))),
                    )
                }
            };
            let most_rounds_time = times(per_round, rounds.1);
            Planned {
                name: t.name(),
                elements,
                wipc,
                preconditioning,
                rounds,
                after,
                least: sum([wipc, preconditioning.0, least_rounds_time, after]),
                most: sum([wipc, preconditioning.1, most_rounds_time, after]),
            }
        })
        .collect()
}

/// The whole run, at the least and the most.
pub fn total(planned: &[Planned]) -> (Duration, Duration) {
    (
        sum(planned.iter().map(|p| p.least)),
        sum(planned.iter().map(|p| p.most)),
    )
}

/// `3 d 4 h`, `4 h 40 min`, `56 min`, `12 s`, `0.25 s`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60) {
        (0, 0, 0, 0) if !d.is_zero() => format!("{:.2} s", d.as_secs_f64()),
        (0, 0, 0, s) => format!("{s} s"),
        (0, 0, m, _) => format!("{m} min"),
        (0, h, 0, _) => format!("{h} h"),
        (0, h, m, _) => format!("{h} h {m} min"),
        (days, 0, _, _) => format!("{days} d"),
        (days, h, _, _) => format!("{days} d {h} h"),
    }
}

/// A capacity or size as the specification counts them: decimal units (`2TB`, `375G`,
/// `500gb`: powers of 1000), binary only where said (`4TiB`, `16MiB`: powers of 1024); a
/// plain number is bytes.
pub fn parse_capacity(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("'{s}' is not a capacity (2TB, 375GB, 4TiB, bytes)"))?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix('b').unwrap_or(&unit);
    let (stem, base) = match unit.strip_suffix('i') {
        Some(stem) => (stem, 1024f64),
        None => (unit, 1000f64),
    };
    let power = match stem {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => {
            return Err(format!(
                "'{s}': unknown unit (k, M, G, T, P in 1000s; Ki, Mi, Gi, Ti in 1024s)"
            ))
        }
    };
    let bytes = n * base.powi(power);
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("'{s}' is no usable capacity"));
    }
    Ok(bytes as u64)
}

/// A write rate in decimal units a second (`2GB/s`, `1500MB/s`, `800M`).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix("/s").unwrap_or(t);
    parse_capacity(t).map(|b| b as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Choices, Profile};

    fn enterprise(capacity: u64) -> Config {
        Config::new(
            "/dev/x".into(),
            capacity,
            None,
            Profile::Enterprise,
            false,
            &Choices::default(),
        )
    }

    /// A 375 GB drive at the specification's durations: the IOPS test's 56 one-minute
    /// elements are 56 minutes a round, 5 to 25 rounds; latency's 9 are 9 minutes, then a
    /// 20-minute histogram; write saturation is 24 hours of one-minute rounds, or 4 × 375 GB
    /// at 2 GB/s (12 min 30 s) if that comes first. Preconditioning at 2 GB/s: 750 GB, 6 min
    /// 15 s.
    #[test]
    fn a_375_gb_drive_at_full_duration_plans_the_specs_hours() {
        let c = enterprise(375_000_000_000);
        let p = plan(&crate::tests::all(), &c, 2e9);
        let by = |n: &str| p.iter().find(|x| x.name == n).unwrap().clone();
        let iops = by("iops");
        assert_eq!((iops.elements, iops.rounds), (56, (5, 25)));
        assert_eq!(clock(iops.wipc), "6 min");
        assert_eq!(clock(iops.most - iops.wipc), "23 h 20 min");
        assert_eq!(by("lat").elements, 9);
        assert_eq!(clock(by("lat").least - iops.wipc), "1 h 5 min");
        assert_eq!(by("tp-128k").elements, 2);
        assert_eq!(by("tp-1024k").elements, 2);
        let wsat = by("wsat");
        assert_eq!((wsat.elements, wsat.rounds), (1, (1440, 1440)));
        assert_eq!(clock(wsat.most), "1 d");
        assert_eq!(wsat.wipc, Duration::ZERO);
        assert!(
            wsat.least < Duration::from_secs(13 * 60),
            "{:?}",
            wsat.least
        );
        // Host idle recovery: 5 to 25 rounds of 30 minutes, then 15 h 30 min of wait states.
        let hir = by("hir");
        assert_eq!(clock(hir.after), "15 h 30 min");
        assert_eq!(clock(hir.least), "18 h");
        // Cross-stimulus recovery: 8, 6 and 8 hours, from the purged drive.
        let xsr = by("xsr");
        assert_eq!(
            (clock(xsr.most), xsr.wipc),
            ("22 h".to_string(), Duration::ZERO)
        );
        // The composite and demand-intensity tests: 49 elements and a 5-minute pre-write a
        // round, a preconditioning loop of 30-minute rounds, 3 × 70 minutes after.
        let dirth = by("dirth");
        assert_eq!(
            (dirth.elements, clock(dirth.after)),
            (50, "3 h 30 min".into())
        );
        assert_eq!(clock(dirth.preconditioning.0), "2 h 30 min");
        assert_eq!(by("cbw").elements, 50);
        let (least, most) = total(&p);
        assert!(least < most);
        assert!(clock(most).contains(" d "), "{}", clock(most));
    }

    #[test]
    fn capacities_are_decimal_unless_said_binary() {
        assert_eq!(parse_capacity("2TB").unwrap(), 2_000_000_000_000);
        assert_eq!(parse_capacity("375g").unwrap(), 375_000_000_000);
        assert_eq!(parse_capacity("4TiB").unwrap(), 4 << 40);
        assert_eq!(parse_capacity("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_capacity("4096").unwrap(), 4096);
        assert!(parse_capacity("2 bananas").is_err());
        assert_eq!(parse_rate("2GB/s").unwrap(), 2e9);
    }
}
