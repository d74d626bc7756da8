//! Demand intensity, shared by the composite block size workload and the demand-intensity
//! test, as PTS 2.0's public implementation runs them: the stimulus as 100 % writes at T32Q32
//! in preconditioning rounds until steady state; then rounds of a 5-minute T32Q32 pre-write
//! followed by the stimulus over the matrix of thread counts × queue depths (the outstanding
//! I/O), highest first, the rule tracking IOPS at the highest outstanding I/O. From the
//! measurement window come the demand-intensity curves (IOPS against average response time,
//! one curve a thread count) and the operating points: the most IOPS whose average response
//! time is under the ceiling, the one nearest halfway, and T1Q1; each is pre-written for 60
//! minutes, then measured for 10 with its response-time histogram.

use std::time::Duration;

use super::{Interval, Phase, Preconditioning, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

/// A demand-intensity test (the composite block size workload, DIRTH): its stimulus and the
/// response-time ceiling of its maximum-IOPS point, the rest as this module runs them.
pub struct DemandTest {
    pub name: &'static str,
    pub stage: &'static str,
    pub title: &'static str,
    /// The stimulus; the matrix sets threads and depth.
    pub base: fn(&Config) -> Element,
    pub ceiling: fn(&Config) -> Duration,
}

impl super::PtsTest for DemandTest {
    fn name(&self) -> &'static str {
        self.name
    }
    fn stage(&self) -> &'static str {
        self.stage
    }
    fn title(&self) -> &'static str {
        self.title
    }
    /// An enterprise test.
    fn in_profile(&self, client: bool) -> bool {
        !client
    }
    fn preconditioning(&self, c: &Config) -> Option<Preconditioning> {
        Some(preconditioning(c, (self.base)(c)))
    }
    fn pre_write(&self, c: &Config) -> Option<Step> {
        Some(pre_write(c, (self.base)(c)))
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        round(c, (self.base)(c))
    }
    fn tracked_labels(&self, c: &Config) -> Vec<String> {
        let (t, d) = highest(c);
        let b = (self.base)(c);
        let what = match b.composite {
            true => "composite".to_string(),
            false => format!(
                "{} random {}/{}",
                crate::element::size_name(b.bs),
                b.read_pct,
                100 - b.read_pct
            ),
        };
        vec![format!("{what} IOPS at T{t}Q{d}")]
    }
    fn tracked(&self, c: &Config, round: &[Measured]) -> Vec<f64> {
        vec![tracked(c, round)]
    }
    fn rounds(&self, _: &Config) -> super::Rounds {
        super::Rounds::ToSteadyState
    }
    fn after(
        &self,
        c: &Config,
        rounds: &[Vec<Measured>],
        window: Option<[usize; 2]>,
    ) -> Vec<Phase> {
        operating_phases(c, (self.base)(c), rounds, window, (self.ceiling)(c))
    }
}

/// Thread counts and queue depths, highest first: 32, 16, 8, 6, 4, 2, 1 each (a 7 × 7
/// grid); with `--quick`, 2 and 1 threads × 8 … 1.
pub fn matrix(c: &Config) -> (Vec<u32>, Vec<u32>) {
    match c.quick {
        true => (vec![2, 1], vec![8, 4, 2, 1]),
        false => (vec![32, 16, 8, 6, 4, 2, 1], vec![32, 16, 8, 6, 4, 2, 1]),
    }
}

/// The highest outstanding I/O of the matrix, as (threads, depth).
fn highest(c: &Config) -> (u32, u32) {
    let (t, d) = matrix(c);
    (t[0], d[0])
}

/// `base` as 100 % writes at the highest outstanding I/O: the preconditioning and pre-write
/// stimulus.
pub fn writes(c: &Config, base: Element) -> Element {
    let (threads, depth) = highest(c);
    Element {
        read_pct: 0,
        threads,
        depth,
        ..base
    }
}

/// The preconditioning loop: 30 one-minute intervals a round (`--quick`: 4), the first of
/// each tracked, as the 2.0 public implementation does.
pub fn preconditioning(c: &Config, base: Element) -> Preconditioning {
    Preconditioning {
        element: writes(c, base),
        per_round: if c.quick { 4 } else { 30 },
        tracked: Interval::First,
    }
}

/// The pre-write before each round: 5 minutes at T32Q32 (`--quick`: 5 element times).
pub fn pre_write(c: &Config, base: Element) -> Step {
    let time = match c.quick {
        true => c.element_time * 5,
        false => Duration::from_secs(300),
    };
    Step {
        role: "pre-write",
        ..Step::plain(writes(c, base), time)
    }
}

/// A round: `base` at every thread count × queue depth, highest outstanding I/O first.
pub fn round(c: &Config, base: Element) -> Vec<Element> {
    let (threads, depths) = matrix(c);
    threads
        .iter()
        .flat_map(|&t| {
            depths.iter().map(move |&d| Element {
                threads: t,
                depth: d,
                ..base
            })
        })
        .collect()
}

/// The tracked variable: IOPS at the highest thread count and queue depth.
pub fn tracked(c: &Config, round: &[Measured]) -> f64 {
    let (threads, depths) = matrix(c);
    let (t, d) = (threads[0], depths[0]);
    super::figure_of(round, |e| e.threads == t && e.depth == d, |m| m.iops)
}

/// One element's figures averaged over the measurement window's rounds (the last round when
/// no window was found).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Averaged {
    pub element: Element,
    pub iops: f64,
    pub mean_ns: f64,
}

pub fn averaged(rounds: &[Vec<Measured>], window: Option<[usize; 2]>) -> Vec<Averaged> {
    let n = rounds.len();
    let [first, last] = window.unwrap_or([n, n]);
    let used = match n {
        0 => &rounds[..0],
        _ => &rounds[first.max(1) - 1..last.min(n)],
    };
    let Some(shape) = used.first() else {
        return Vec::new();
    };
    shape
        .iter()
        .map(|m| {
            let same: Vec<&Measured> = used
                .iter()
                .filter_map(|r| r.iter().find(|x| x.element == m.element))
                .collect();
            let k = same.len().max(1) as f64;
            Averaged {
                element: m.element,
                iops: same.iter().map(|x| x.iops).sum::<f64>() / k,
                mean_ns: same.iter().map(|x| x.mean_ns).sum::<f64>() / k,
            }
        })
        .collect()
}

/// The operating points: the most IOPS among the points whose average response time is
/// under `ceiling`, the least outstanding I/O (one thread, depth 1), and between them the
/// point under the ceiling whose IOPS is nearest halfway between the most and the least
/// IOPS under it. With no data yet (the plan), the highest, middle and lowest outstanding I/O
/// of the matrix. When no point is under the ceiling, all points are used, and the role says
/// so.
pub fn operating_points(
    c: &Config,
    base: Element,
    avg: &[Averaged],
    ceiling: Duration,
) -> [(&'static str, Element); 3] {
    let all = round(c, base);
    let under: Vec<&Averaged> = avg
        .iter()
        .filter(|a| a.mean_ns < ceiling.as_nanos() as f64)
        .collect();
    let (pool, max_role) = match under.is_empty() {
        true => (
            avg.iter().collect::<Vec<_>>(),
            "maximum IOPS (no point under the ceiling)",
        ),
        false => (under, "maximum IOPS"),
    };
    let min = all[all.len() - 1];
    let (max, mid) = match pool.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) {
        None => (all[0], all[all.len() / 2]),
        Some(max) => {
            let least = pool.iter().map(|a| a.iops).fold(f64::INFINITY, f64::min);
            let half = (max.iops + least) / 2.0;
            let mid = pool
                .iter()
                .filter(|a| a.element != max.element && a.element != min)
                .min_by(|a, b| (a.iops - half).abs().total_cmp(&(b.iops - half).abs()))
                .map_or(max.element, |a| a.element);
            (max.element, mid)
        }
    };
    [
        (max_role, max),
        ("midpoint IOPS", mid),
        ("minimum IOPS (T1Q1)", min),
    ]
}

/// What follows the rounds: each operating point pre-written for 60 minutes at its own
/// outstanding I/O (100 % writes), then measured for 10 minutes with its histogram
/// (`--quick`: 8 and 10 element times).
pub fn operating_phases(
    c: &Config,
    base: Element,
    rounds: &[Vec<Measured>],
    window: Option<[usize; 2]>,
    ceiling: Duration,
) -> Vec<Phase> {
    let avg = averaged(rounds, window);
    let (pre, measure) = match c.quick {
        true => (c.element_time * 8, c.element_time * 10),
        false => (Duration::from_secs(3600), Duration::from_secs(600)),
    };
    operating_points(c, base, &avg, ceiling)
        .into_iter()
        .map(|(role, element)| Phase {
            name: format!(
                "{role}: T{}Q{}, pre-written, then its response-time histogram",
                element.threads, element.depth
            ),
            steps: vec![
                Step {
                    role: "pre-write",
                    ..Step::plain(
                        Element {
                            read_pct: 0,
                            ..element
                        },
                        pre,
                    )
                },
                Step {
                    histogram: true,
                    role,
                    ..Step::plain(element, measure)
                },
            ],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(e: Element, iops: f64) -> Measured {
        Measured {
            element: e,
            label: e.label(),
            iops,
            read_iops: 0.0,
            write_iops: iops,
            bw_bytes: 0.0,
            write_bytes: 0,
            mean_ns: 1e9 * (e.threads * e.depth) as f64 / iops,
            max_ns: 0.0,
            p99_ns: 0.0,
            p9999_ns: 0.0,
            p99999_ns: 0.0,
            histogram: None,
            cpus: 0.0,
        }
    }

    /// Quick matrix: 2 × 4 elements, T2Q8 first and tracked; the operating points from the
    /// window's averages: most IOPS under the ceiling, T1Q1, and the one nearest halfway.
    #[test]
    fn the_matrix_and_its_operating_points() {
        let c = crate::config::test_config(true);
        let base = Element {
            bs: 4096,
            random: true,
            ..Element::default()
        };
        let r = round(&c, base);
        assert_eq!(r.len(), 8);
        assert_eq!((r[0].threads, r[0].depth), (2, 8));
        assert_eq!((r[7].threads, r[7].depth), (1, 1));
        let iops = |e: &Element| match (e.threads, e.depth) {
            (2, 4) => 100_000.0,
            (t, d) => 10_000.0 * (t * d) as f64,
        };
        let rounds: Vec<Vec<Measured>> = (0..6)
            .map(|k| r.iter().map(|e| m(*e, iops(e) + k as f64)).collect())
            .collect();
        assert_eq!(tracked(&c, &rounds[0]), 160_000.0);
        let avg = averaged(&rounds, Some([2, 6]));
        assert_eq!(avg.len(), 8);
        assert_eq!(avg[0].iops, 160_003.0); // rounds 2 to 6 add 1 to 5
        let ceiling = Duration::from_millis(5);
        let p = operating_points(&c, base, &avg, ceiling);
        assert_eq!((p[0].1.threads, p[0].1.depth), (2, 8));
        assert_eq!((p[2].1.threads, p[2].1.depth), (1, 1));
        // Halfway between 160k and 10k is 85k: 80k (T2Q4 is 100k, T1Q8 is 80k).
        assert_eq!((p[1].1.threads, p[1].1.depth), (1, 8));
        // A ceiling of 90 µs leaves out T2Q8 (16 I/Os at 160k: 100 µs): T2Q4's 100k is
        // the most IOPS under it.
        let p = operating_points(&c, base, &avg, Duration::from_micros(90));
        assert_eq!((p[0].1.threads, p[0].1.depth), (2, 4));
        assert_eq!(p[0].0, "maximum IOPS");
        let none = operating_points(&c, base, &avg, Duration::from_nanos(1));
        assert!(none[0].0.contains("no point under the ceiling"));
        // The full grid has 6 in it: 7 × 7.
        let full = crate::config::test_config(false);
        assert_eq!(round(&full, base).len(), 49);
        let ph = operating_phases(&full, base, &[], None, ceiling);
        assert_eq!(ph.len(), 3);
        assert_eq!(ph[0].duration(), Duration::from_secs(4200));
    }
}
