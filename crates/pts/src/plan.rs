//! What a run of the chosen tests takes at the specification's durations, before it starts:
//! rounds of one-minute elements, 5 rounds at the least (the first window that can be
//! steady) and the rule's 25 at the most, after a purge and twice the capacity of 128 KiB
//! writes (timed here at an assumed write rate, which the drive's own sets in practice);
//! write saturation 24 hours or four times the capacity.

use std::time::Duration;

use crate::config::Config;
use crate::tests::{PtsTest, Rounds};

/// One test's planned time.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub name: &'static str,
    pub elements: usize,
    /// Workload-independent preconditioning at the assumed rate.
    pub wipc: Duration,
    /// Rounds at the least and the most, and the time each takes in all.
    pub rounds: (usize, usize),
    /// What follows the rounds (wait states, access groups, operating points).
    pub after: Duration,
    pub least: Duration,
    pub most: Duration,
}

/// `tests` on `c`, preconditioning timed at `write_bytes_per_sec`.
pub fn plan(tests: &[&dyn PtsTest], c: &Config, write_bytes_per_sec: f64) -> Vec<Planned> {
    let wipc = Duration::from_secs_f64(2.0 * c.region as f64 / write_bytes_per_sec);
    tests
        .iter()
        .map(|t| {
            let wipc = if t.wipc() { wipc } else { Duration::ZERO };
            let after: Duration = t.after(c, &[], None).iter().map(|p| p.duration()).sum();
            let elements = t.round(c).len();
            let per_round = c.element_time * elements as u32;
            let rounds = match t.rounds(c) {
                Rounds::ToSteadyState => (c.rule.window, c.rule.max_rounds),
                Rounds::Series { rounds, .. } => (rounds, rounds),
            };
            Planned {
                name: t.name(),
                elements,
                wipc,
                rounds,
                after,
                least: wipc + per_round * rounds.0 as u32 + after,
                most: wipc + per_round * rounds.1 as u32 + after,
            }
        })
        .collect()
}

/// `4 h 40 min`, `56 min`, `12 s`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, _) => format!("{m} min"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 375 GB drive at the specification's durations: the IOPS test's 56 one-minute
    /// elements are 56 minutes a round, 5 to 25 rounds; latency's 9 are 9 minutes; write
    /// saturation is 24 hours of one-minute rounds. Preconditioning at 2 GB/s: 750 GB, 6 min
    /// 15 s.
    #[test]
    fn a_375_gb_drive_at_full_duration_plans_the_specs_hours() {
        let c = Config::new("/dev/x".into(), 375_000_000_000, None, false, false);
        let p = plan(&crate::tests::all(), &c, 2e9);
        let by = |n: &str| p.iter().find(|x| x.name == n).unwrap().clone();
        let iops = by("iops");
        assert_eq!((iops.elements, iops.rounds), (56, (5, 25)));
        assert_eq!(iops.wipc, Duration::from_secs(375));
        assert_eq!(iops.least, Duration::from_secs(375 + 5 * 56 * 60));
        assert_eq!(clock(iops.most - iops.wipc), "23 h 20 min");
        assert_eq!(by("lat").elements, 9);
        assert_eq!(clock(by("lat").least - iops.wipc), "45 min");
        assert_eq!(by("tp").elements, 4);
        let wsat = by("wsat");
        assert_eq!((wsat.elements, wsat.rounds), (1, (1440, 1440)));
        assert_eq!(clock(wsat.most - wsat.wipc), "24 h");
        assert_eq!(wsat.wipc, Duration::ZERO);
        // Host idle recovery: 5 to 25 one-minute rounds, then 15 h 30 min of wait states.
        let hir = by("hir");
        assert_eq!(clock(hir.after), "15 h 30 min");
        assert_eq!(clock(hir.least), "15 h 35 min");
        // Cross-stimulus recovery: three access groups of 8 hours.
        let xsr = by("xsr");
        assert_eq!(clock(xsr.most - xsr.wipc), "24 h");
        // Demand intensity: 36 elements a round; three ten-minute histograms after.
        let dirth = by("dirth");
        assert_eq!((dirth.elements, clock(dirth.after)), (36, "30 min".into()));
        assert_eq!(by("ecw").elements, 36);
    }
}
