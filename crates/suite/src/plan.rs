//! The shape of the sweeps and the saturation rule, as plain functions over numbers so they
//! can be checked on synthetic curves.

/// Queue depths the sweep visits: every depth from 1 to 16 (the region where a fast SSD
/// saturates, P4800X at 6–9), then 24, 32, 48, 64, 96, 128, cut at `max_qd` (which is
/// visited itself when it falls between two of those).
pub fn qd_points(max_qd: u32) -> Vec<u32> {
    let max_qd = max_qd.max(1);
    let mut v: Vec<u32> = (1..=16u32.min(max_qd)).collect();
    v.extend(
        [24, 32, 48, 64, 96, 128]
            .into_iter()
            .filter(|&q| q <= max_qd),
    );
    if v.last() != Some(&max_qd) {
        v.push(max_qd);
    }
    v
}

/// Transfer sizes of the transfer-size step: 512 B to 1 MiB in powers of two.
pub fn transfer_sizes() -> Vec<u32> {
    (9..=20).map(|s| 1u32 << s).collect()
}

/// The saturation point of a sweep: the smallest queue depth whose IOPS is within
/// `tolerance_pct` of the peak (depths beyond it buy latency, not throughput), read from a
/// fit rather than from the raw points, with how sure that is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Saturation {
    pub qd: u32,
    /// The fit's IOPS at `qd`.
    pub iops: f64,
    /// The smallest depth where the fit reaches its plateau, and the plateau.
    pub peak_qd: u32,
    pub peak_iops: f64,
    /// The depths the saturation could be at, given the points' scatter around the fit:
    /// the first whose fit is within the tolerance less two standard deviations of the
    /// plateau, to the first within it plus two.
    pub qd_range: (u32, u32),
    /// The points' scatter around the fit: a standard deviation, in percent of the plateau.
    pub noise_pct: f64,
}

/// A sweep's saturation, or why it cannot be told.
#[derive(Debug, Clone, PartialEq)]
pub enum SaturationFit {
    Found(Saturation),
    Undetermined(String),
}

/// The least-squares non-decreasing fit of `y` (pool adjacent violators): IOPS cannot fall
/// with a deeper queue except by noise (or an overloaded device, which then reads as
/// scatter), so the fit is the curve the points measure. Also returns how many distinct
/// levels the fit has (its degrees of freedom).
fn rising_fit(y: &[f64]) -> (Vec<f64>, usize) {
    // Blocks of (sum, count), merged while a block's mean falls below the one before.
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for &v in y {
        blocks.push((v, 1));
        while blocks.len() > 1 {
            let (s2, n2) = blocks[blocks.len() - 1];
            let (s1, n1) = blocks[blocks.len() - 2];
            if s1 / n1 as f64 <= s2 / n2 as f64 {
                break;
            }
            blocks.pop();
            *blocks.last_mut().expect("two blocks") = (s1 + s2, n1 + n2);
        }
    }
    let levels = blocks.len();
    let fit = blocks
        .into_iter()
        .flat_map(|(s, n)| std::iter::repeat_n(s / n as f64, n))
        .collect();
    (fit, levels)
}

/// `points` are (queue depth, IOPS), in any order. The saturation is read from a rising fit
/// of the points; it is undetermined where they are too few or scatter around the fit by
/// more than the tolerance can tell apart (two standard deviations beyond it): an argmax
/// of noise is no saturation.
pub fn saturation_fit(points: &[(u32, f64)], tolerance_pct: f64) -> SaturationFit {
    let mut pts: Vec<(u32, f64)> = points.iter().copied().filter(|p| p.1 > 0.0).collect();
    pts.sort_by_key(|p| p.0);
    if pts.len() < 3 {
        return SaturationFit::Undetermined(format!(
            "{} point(s) with IOPS: a fit needs three",
            pts.len()
        ));
    }
    let y: Vec<f64> = pts.iter().map(|p| p.1).collect();
    let (fit, levels) = rising_fit(&y);
    let plateau = fit.last().copied().unwrap_or(0.0);
    let ss: f64 = y.iter().zip(&fit).map(|(a, b)| (a - b).powi(2)).sum();
    let df = pts.len().saturating_sub(levels).max(1);
    let sd = (ss / df as f64).sqrt();
    let noise_pct = sd / plateau * 100.0;
    if 2.0 * noise_pct > tolerance_pct {
        return SaturationFit::Undetermined(format!(
            "the points scatter {noise_pct:.1}% (one standard deviation) around a rising fit, \
             more than the {tolerance_pct}% tolerance can tell from noise; longer points \
             (--runtime) or a quieter machine would tell"
        ));
    }
    let first = |share_pct: f64| {
        let floor = plateau * (1.0 - share_pct / 100.0);
        pts.iter()
            .zip(&fit)
            .find(|(_, f)| **f >= floor)
            .map_or(pts[pts.len() - 1].0, |(p, _)| p.0)
    };
    let at = |qd: u32| {
        pts.iter()
            .zip(&fit)
            .find(|(p, _)| p.0 == qd)
            .map_or(0.0, |(_, f)| *f)
    };
    let qd = first(tolerance_pct);
    SaturationFit::Found(Saturation {
        qd,
        iops: at(qd),
        peak_qd: first(0.0),
        peak_iops: plateau,
        qd_range: (
            first(tolerance_pct + 2.0 * noise_pct),
            first((tolerance_pct - 2.0 * noise_pct).max(0.0)),
        ),
        noise_pct,
    })
}

/// Summary of a latency series (one value per second): median, min, max, coefficient of
/// variation, and the seconds above `outlier_factor` × the median.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Standard deviation over mean, in percent.
    pub cv_pct: f64,
    /// Indices (seconds from the start, 0-based) of the outlier windows.
    pub outliers: Vec<usize>,
}

pub fn spread(values: &[f64], outlier_factor: f64) -> Option<Spread> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
    Some(Spread {
        median,
        min: sorted[0],
        max: sorted[n - 1],
        cv_pct: if mean > 0.0 {
            var.sqrt() * 100.0 / mean
        } else {
            0.0
        },
        outliers: values
            .iter()
            .enumerate()
            .filter(|(_, v)| **v > median * outlier_factor)
            .map(|(i, _)| i)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_steps_by_one_to_16_then_widens() {
        let p = qd_points(128);
        assert_eq!(&p[..16], &(1..=16).collect::<Vec<_>>()[..]);
        assert_eq!(&p[16..], &[24, 32, 48, 64, 96, 128]);
        assert_eq!(qd_points(32).last(), Some(&32));
        assert_eq!(qd_points(40), {
            let mut v: Vec<u32> = (1..=16).collect();
            v.extend([24, 32, 40]);
            v
        });
        assert_eq!(qd_points(4), vec![1, 2, 3, 4]);
        assert_eq!(qd_points(0), vec![1]);
    }

    #[test]
    fn transfer_sizes_span_512_bytes_to_1_mib() {
        let s = transfer_sizes();
        assert_eq!((s[0], s[s.len() - 1], s.len()), (512, 1 << 20, 12));
    }

    fn found(f: SaturationFit) -> Saturation {
        match f {
            SaturationFit::Found(s) => s,
            SaturationFit::Undetermined(why) => panic!("undetermined: {why}"),
        }
    }

    /// An Optane-like curve: IOPS rise with depth and flatten near QD 7; no scatter, so the
    /// range is the point itself.
    #[test]
    fn saturation_is_the_first_depth_within_tolerance_of_the_fits_plateau() {
        let curve: Vec<(u32, f64)> = qd_points(32)
            .into_iter()
            .map(|q| {
                let iops = 550_000.0 * (1.0 - (-(q as f64) / 2.0).exp());
                (q, iops)
            })
            .collect();
        let s = found(saturation_fit(&curve, 3.0));
        // 1 - e^(-q/2) >= 0.97 * (1 - e^-16): q = 8 is the first (0.9817), q = 7 is 0.9698.
        assert_eq!((s.qd, s.qd_range), (8, (8, 8)));
        assert_eq!(s.peak_qd, 32);
        assert!(s.noise_pct < 1e-9);
        // A wider tolerance saturates earlier; order of the points does not matter.
        let mut rev = curve.clone();
        rev.reverse();
        assert_eq!(found(saturation_fit(&rev, 10.0)).qd, 5);
    }

    /// The zig-zag (QD 1..9): its argmax said "saturation QD 8"; it scatters far
    /// more than a 3 % tolerance can resolve, so it is undetermined, with the reason.
    #[test]
    fn a_zig_zag_is_undetermined_and_a_dip_is_scatter() {
        let zig = [94.7, 76.6, 90.1, 185.0, 106.0, 95.7, 183.0, 224.0, 200.0];
        let pts: Vec<(u32, f64)> = zig
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32 + 1, v * 1e3))
            .collect();
        match saturation_fit(&pts, 3.0) {
            SaturationFit::Undetermined(why) => assert!(why.contains("scatter"), "{why}"),
            f => panic!("{f:?}"),
        }
        let dip = [(1, 100.0), (2, 190.0), (4, 302.0), (8, 310.0), (16, 250.0)];
        assert!(matches!(
            saturation_fit(&dip, 3.0),
            SaturationFit::Undetermined(_)
        ));
        assert!(matches!(
            saturation_fit(&[(1, 9.0), (2, 9.0)], 3.0),
            SaturationFit::Undetermined(_)
        ));
    }

    /// Flat from the start with a little noise: QD1 is already saturated, and the range
    /// says how sure.
    #[test]
    fn a_flat_curve_saturates_at_qd1() {
        let flat = [(1, 100.0), (2, 101.0), (4, 100.4), (8, 100.8), (16, 100.6)];
        let s = found(saturation_fit(&flat, 3.0));
        assert_eq!(s.qd, 1);
        assert!(s.noise_pct > 0.0 && s.noise_pct < 1.0, "{s:?}");
        assert_eq!(s.qd_range.0, 1);
        // The fit never falls: PAVA's levels are non-decreasing.
        let (fit, _) = rising_fit(&[3.0, 1.0, 2.0, 5.0, 4.0]);
        assert!(fit.windows(2).all(|w| w[0] <= w[1]), "{fit:?}");
        assert_eq!(fit, [2.0, 2.0, 2.0, 4.5, 4.5]);
    }

    #[test]
    fn spread_finds_outlier_seconds() {
        let v = [10.0, 11.0, 10.0, 35.0, 10.0];
        let s = spread(&v, 2.0).unwrap();
        assert_eq!((s.median, s.min, s.max), (10.0, 10.0, 35.0));
        assert_eq!(s.outliers, vec![3]);
        assert!(s.cv_pct > 50.0);
        assert_eq!(spread(&[], 2.0), None);
    }
}
