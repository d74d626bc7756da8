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
use crate::tests::{Preconditioning, PtsTest, Rounds};

/// How fast the machine goes, as a plan counts it: the write rate preconditioning and write
/// saturation's bytes are timed at, and what each point (one element, one pre-write, one
/// preconditioning pass) costs beyond its running time: opening the target, starting the
/// threads, saving the result. Assumed before the run (the operator's `--rate` or 1 GB/s, no
/// cost); measured by the run itself once its first points are done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    pub write_bytes_per_sec: f64,
    pub per_point: Duration,
}

impl Timing {
    /// Writes at `write_bytes_per_sec`, points free of cost.
    pub fn assumed(write_bytes_per_sec: f64) -> Timing {
        Timing {
            write_bytes_per_sec,
            per_point: Duration::ZERO,
        }
    }
}

/// One test's planned time.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub name: &'static str,
    /// Elements a round (its pre-write included), those the target cannot run left out.
    pub elements: usize,
    /// Workload-independent preconditioning at the assumed rate.
    pub wipc: Duration,
    /// The test's own preconditioning loop, at the least and the most.
    pub preconditioning: (Duration, Duration),
    /// Rounds at the least and the most.
    pub rounds: (usize, usize),
    /// One round, its points' cost included.
    pub round: Duration,
    /// What follows the rounds (wait states, access groups, operating points).
    pub after: Duration,
    /// Points at the least and the most.
    pub points: (usize, usize),
    pub least: Duration,
    pub most: Duration,
    /// What the test is expected to take: halfway between its least and its most for a
    /// test to steady state (before its rounds, nothing tells where between them it stops),
    /// the least for a series (its bytes at the rate end it, or its fixed rounds).
    pub expected: Duration,
}

/// The rounds a test to steady state is expected to take before any is run: halfway
/// between the first window that can be steady and the rule's last round.
pub fn expected_rounds(c: &Config) -> f64 {
    (c.rule.window + c.rule.max_rounds) as f64 / 2.0
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

/// `tests` on `c` at `timing`: the durations the run itself uses (the elements the target
/// can run, each element time, each pre-write and phase step), each point's cost, writes at
/// the rate. Every sum and product saturates.
pub fn plan(tests: &[&dyn PtsTest], c: &Config, timing: Timing) -> Vec<Planned> {
    tests.iter().map(|t| plan_one(*t, c, timing)).collect()
}

fn plan_one(t: &dyn PtsTest, c: &Config, timing: Timing) -> Planned {
    let rate = timing.write_bytes_per_sec.max(1.0);
    let cost = |points: usize| times(timing.per_point, points);
    let (least_rounds, most_rounds) = (c.rule.window, c.rule.max_rounds);
    let wipc = match t.wipc(c) {
        Some(_) => secs(2.0 * c.region as f64 / rate).saturating_add(cost(1)),
        None => Duration::ZERO,
    };
    let (preconditioning, pc_points) =
        t.preconditioning(c)
            .map_or(((Duration::ZERO, Duration::ZERO), (0, 0)), |p| {
                let round = times(c.element_time, p.per_round).saturating_add(cost(p.per_round));
                (
                    (times(round, least_rounds), times(round, most_rounds)),
                    (p.per_round * least_rounds, p.per_round * most_rounds),
                )
            });
    let phases = t.after(c, &[], None);
    let after_points: usize = phases.iter().map(|p| p.steps.len()).sum();
    let after = sum(phases.iter().map(|p| p.duration())).saturating_add(cost(after_points));
    let pre = t.pre_write(c);
    let runnable = t
        .round(c)
        .into_iter()
        .filter(|e| e.bs >= c.logical_block)
        .count();
    let elements = runnable + usize::from(pre.is_some());
    let round = sum([
        times(c.element_time, runnable),
        pre.map_or(Duration::ZERO, |s| s.time),
        cost(elements),
    ]);
    let rounds = match t.rounds(c) {
        Rounds::ToSteadyState => (least_rounds, most_rounds),
        // Whichever first: its rounds, or its bytes at the rate (a window's rounds at the
        // least, as the run does).
        Rounds::Series { rounds, bytes } => {
            let by_bytes = (bytes as f64 / rate / round.as_secs_f64().max(1e-9)).ceil();
            let least = (by_bytes.min(rounds as f64) as usize).max(least_rounds.min(rounds));
            (least, rounds)
        }
    };
    let fixed = usize::from(t.wipc(c).is_some()) + after_points;
    let least = sum([wipc, preconditioning.0, times(round, rounds.0), after]);
    let most = sum([wipc, preconditioning.1, times(round, rounds.1), after]);
    Planned {
        name: t.name(),
        elements,
        wipc,
        preconditioning,
        rounds,
        round,
        after,
        points: (
            fixed + pc_points.0 + elements * rounds.0,
            fixed + pc_points.1 + elements * rounds.1,
        ),
        least,
        most,
        expected: match t.rounds(c) {
            Rounds::ToSteadyState => least + most.saturating_sub(least) / 2,
            Rounds::Series { .. } => least,
        },
    }
}

/// One round of `t`'s rounds with each point costing `per_point`: what a round past the plan
/// adds to it.
pub fn test_round(t: &dyn PtsTest, c: &Config, per_point: Duration) -> Duration {
    let timing = Timing {
        write_bytes_per_sec: 1e9,
        per_point,
    };
    plan_one(t, c, timing).round
}

/// One round of a preconditioning loop `p` with each point costing `per_point`.
pub fn precondition_round(c: &Config, p: &Preconditioning, per_point: Duration) -> Duration {
    times(c.element_time.saturating_add(per_point), p.per_round)
}

/// The whole run, at the least and the most.
pub fn total(planned: &[Planned]) -> (Duration, Duration) {
    (
        sum(planned.iter().map(|p| p.least)),
        sum(planned.iter().map(|p| p.most)),
    )
}

/// The whole run as expected.
pub fn expected(planned: &[Planned]) -> Duration {
    sum(planned.iter().map(|p| p.expected))
}

pub use iolab_results::pts::clock;

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
        let p = plan(&crate::tests::all(), &c, Timing::assumed(2e9));
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
        // 24 hours of one-minute rounds, or 4 × 375 GB at 2 GB/s (12 min 30 s: 13 rounds).
        assert_eq!((wsat.elements, wsat.rounds), (1, (13, 1440)));
        // Then 2.0's 20-minute response-time histogram.
        assert_eq!(clock(wsat.after), "20 min");
        assert_eq!(wsat.most, Duration::from_secs(24 * 3600 + 20 * 60));
        assert_eq!(wsat.wipc, Duration::ZERO);
        // Whole rounds: the 13th ends the series.
        assert_eq!(wsat.least, Duration::from_secs(13 * 60 + 20 * 60));
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

    /// The measured pace counts: each point's cost once per point, at the least and the
    /// most; the elements a 4 KiB drive cannot run are not planned.
    #[test]
    fn a_plan_at_the_measured_pace_counts_every_point() {
        let mut c = enterprise(375_000_000_000);
        let free = plan(&crate::tests::all(), &c, Timing::assumed(2e9));
        let paced = Timing {
            write_bytes_per_sec: 2e9,
            per_point: Duration::from_millis(10),
        };
        let costly = plan(&crate::tests::all(), &c, paced);
        for (f, p) in free.iter().zip(&costly) {
            assert_eq!(f.points, p.points, "{}", f.name);
            assert_eq!(
                p.least - f.least,
                paced.per_point * p.points.0 as u32,
                "{}",
                f.name
            );
            assert_eq!(
                p.most - f.most,
                paced.per_point * p.points.1 as u32,
                "{}",
                f.name
            );
        }
        let iops = &free[0];
        // A WIPC, 56 elements a round, 5 to 25 rounds.
        assert_eq!(iops.points, (1 + 56 * 5, 1 + 56 * 25));
        c.logical_block = 4096;
        let four_k = plan(&crate::tests::all(), &c, Timing::assumed(2e9));
        assert_eq!(four_k[0].elements, 49, "the 0.5 KiB elements left out");
        assert_eq!(
            test_round(crate::tests::all()[0], &c, Duration::ZERO),
            c.element_time * 49
        );
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
