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
/// `tolerance_pct` of the peak (depths beyond it buy latency, not throughput).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Saturation {
    pub qd: u32,
    pub iops: f64,
    pub peak_qd: u32,
    pub peak_iops: f64,
}

/// `points` are (queue depth, IOPS), in any order; `None` when there are none with IOPS.
pub fn saturation_point(points: &[(u32, f64)], tolerance_pct: f64) -> Option<Saturation> {
    let &(peak_qd, peak_iops) = points
        .iter()
        .filter(|p| p.1 > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let floor = peak_iops * (1.0 - tolerance_pct / 100.0);
    let &(qd, iops) = points.iter().filter(|p| p.1 >= floor).min_by_key(|p| p.0)?;
    Some(Saturation {
        qd,
        iops,
        peak_qd,
        peak_iops,
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

    /// An Optane-like curve: IOPS rise with depth, flatten near QD 7, wobble after.
    #[test]
    fn saturation_is_the_first_depth_within_tolerance_of_the_peak() {
        let curve: Vec<(u32, f64)> = qd_points(32)
            .into_iter()
            .map(|q| {
                let iops = 550_000.0 * (1.0 - (-(q as f64) / 2.0).exp());
                (q, iops)
            })
            .collect();
        let s = saturation_point(&curve, 3.0).unwrap();
        // 1 - e^(-q/2) >= 0.97 * (1 - e^-16): q = 8 is the first (0.9817), q = 7 is 0.9698.
        assert_eq!(s.qd, 8);
        assert_eq!(s.peak_qd, 32);
        // A wider tolerance saturates earlier; order of the points does not matter.
        let mut rev = curve.clone();
        rev.reverse();
        assert_eq!(saturation_point(&rev, 10.0).unwrap().qd, 5);
    }

    #[test]
    fn a_peak_in_the_middle_and_a_dip_after_it() {
        // 302 is within 3 % of 310 (the bar is 300.7); 250 after the peak does not matter.
        let curve = [(1, 100.0), (2, 190.0), (4, 302.0), (8, 310.0), (16, 250.0)];
        let s = saturation_point(&curve, 3.0).unwrap();
        assert_eq!((s.qd, s.peak_qd), (4, 8));
        assert_eq!(saturation_point(&[], 3.0), None);
        assert_eq!(saturation_point(&[(1, 0.0)], 3.0), None);
        // Flat from the start: QD1 is already saturated.
        assert_eq!(
            saturation_point(&[(1, 100.0), (2, 101.0)], 3.0).unwrap().qd,
            1
        );
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
