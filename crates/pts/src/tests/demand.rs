//! Demand intensity, shared by the enterprise composite workload and the demand-intensity
//! test: one stimulus over a matrix of thread counts × queue depths (the outstanding I/O),
//! highest first, a round the whole matrix, the rule tracking IOPS at the highest
//! outstanding I/O. From the measurement window come the demand-intensity curves (IOPS
//! against average response time, one curve a thread count) and the operating points.

use crate::config::Config;
use crate::element::{Element, Measured};

/// Thread counts and queue depths, highest first: the specification's 32 … 1 each; with
/// `--quick`, 2 and 1 threads × 8 … 1.
pub fn matrix(c: &Config) -> (Vec<u32>, Vec<u32>) {
    match c.quick {
        true => (vec![2, 1], vec![8, 4, 2, 1]),
        false => (vec![32, 16, 8, 4, 2, 1], vec![32, 16, 8, 4, 2, 1]),
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

/// The operating points: the most IOPS, the least outstanding I/O (one thread, depth 1),
/// and between them the point whose IOPS is nearest their midpoint. With no data yet (the
/// plan), the highest and lowest outstanding I/O of the matrix.
pub fn operating_points(
    c: &Config,
    base: Element,
    avg: &[Averaged],
) -> [(&'static str, Element); 3] {
    let all = round(c, base);
    let fallback = (all[0], all[all.len() / 2], all[all.len() - 1]);
    let (max, mid, min) = match avg.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) {
        None => fallback,
        Some(max) => {
            let min = avg
                .iter()
                .min_by_key(|a| a.element.threads * a.element.depth)
                .unwrap_or(max);
            let half = (max.iops + min.iops) / 2.0;
            let mid = avg
                .iter()
                .filter(|a| a.element != max.element && a.element != min.element)
                .min_by(|a, b| (a.iops - half).abs().total_cmp(&(b.iops - half).abs()))
                .unwrap_or(max);
            (max.element, mid.element, min.element)
        }
    };
    [
        ("maximum IOPS", max),
        ("midpoint IOPS", mid),
        ("minimum outstanding I/O", min),
    ]
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
        }
    }

    /// Quick matrix: 2 × 4 elements, T2Q8 first and tracked; the operating points from the
    /// window's averages: most IOPS, T1Q1, and the one nearest halfway.
    #[test]
    fn the_matrix_and_its_operating_points() {
        let c = Config::new("/dev/x".into(), 1 << 30, None, false, true);
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
        let p = operating_points(&c, base, &avg);
        assert_eq!((p[0].1.threads, p[0].1.depth), (2, 8));
        assert_eq!((p[2].1.threads, p[2].1.depth), (1, 1));
        // Halfway between 160k and 10k is 85k: 80k (T2Q4 is 100k, T1Q8 is 80k).
        assert_eq!((p[1].1.threads, p[1].1.depth), (1, 8));
    }
}
