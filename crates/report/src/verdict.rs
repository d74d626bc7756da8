//! `compare`'s verdict on one figure of two runs with repeats: the ratio of their means with
//! a 95 % interval, and one word for it, as hyperfine says "1.08 ± 0.02 times faster".
//!
//! The interval of a ratio of two means: the delta method (the relative standard errors add
//! in quadrature) with Welch–Satterthwaite's degrees of freedom, since the two runs' spreads
//! need not be equal. Where the interval holds 1, the runs do not differ beyond their own
//! noise, and the verdict says so. A difference the interval does show but smaller than a
//! noise threshold (criterion's `noise_threshold`) is no difference either: repeats inside one
//! run see less noise than lies between two runs (a machine's drift over minutes, a device's
//! state), so a 1 % "faster" between two runs of the same job would be a false verdict.

use iolab_results::repeats::{t95, Interval};
use serde::Serialize;

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// IOPS, bandwidth.
    Higher,
    /// Latencies.
    Lower,
}

/// What the interval says of the new run against the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Word {
    Faster,
    Slower,
    /// The interval holds 1: no difference the repeats can tell from noise.
    NoDifference,
    /// One run or both have fewer than two repeats: a ratio, but no interval to judge by.
    Unknown,
}

impl Word {
    pub fn as_str(self) -> &'static str {
        match self {
            Word::Faster => "faster",
            Word::Slower => "slower",
            Word::NoDifference => "no difference",
            Word::Unknown => "one run each: no interval",
        }
    }
}

/// The new run's figure against the base's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Verdict {
    /// new mean / base mean.
    pub ratio: f64,
    /// The ratio's 95 % interval (equal to `ratio` without repeats).
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub verdict: Word,
    pub base_repeats: usize,
    pub new_repeats: usize,
}

impl Verdict {
    /// The ratio's interval as "0.50 ± 0.01".
    pub fn ratio_text(&self) -> String {
        if self.verdict == Word::Unknown {
            return format!("{:.2}", self.ratio);
        }
        let half = (self.ci95_high - self.ci95_low) / 2.0;
        format!("{:.2} ± {:.2}", self.ratio, half)
    }

    /// How much worse the new run is, in percent of the base (negative: better); a latency
    /// twice as long and half the IOPS are both 100 % and 50 % worse respectively.
    pub fn worse_percent(&self, better: Better) -> f64 {
        match better {
            Better::Higher => (1.0 - self.ratio) * 100.0,
            Better::Lower => (self.ratio - 1.0) * 100.0,
        }
    }
}

/// The default noise threshold: changes under 3 % are no difference.
pub const NOISE_THRESHOLD: f64 = 0.03;

/// The verdict on a figure measured `base` (each repeat's value) then `new`, with changes
/// under `noise` (a share: 0.03) taken as none; `None` where either has no value or the
/// base's mean is 0.
pub fn verdict(base: &[f64], new: &[f64], better: Better, noise: f64) -> Option<Verdict> {
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let (ma, mb) = (mean(base)?, mean(new)?);
    if ma == 0.0 || !ma.is_finite() || !mb.is_finite() {
        return None;
    }
    let ratio = mb / ma;
    let (Some(ia), Some(ib)) = (Interval::of(base), Interval::of(new)) else {
        return Some(Verdict {
            ratio,
            ci95_low: ratio,
            ci95_high: ratio,
            verdict: Word::Unknown,
            base_repeats: base.len(),
            new_repeats: new.len(),
        });
    };
    // Relative variances of the two means.
    let va = (ia.sem() / ma).powi(2);
    let vb = if mb == 0.0 {
        0.0
    } else {
        (ib.sem() / mb).powi(2)
    };
    let df = match va * va / (ia.n - 1) as f64 + vb * vb / (ib.n - 1) as f64 {
        d if d > 0.0 => (va + vb).powi(2) / d,
        _ => f64::INFINITY,
    };
    let half = t95(df) * (va + vb).sqrt() * ratio;
    // A ratio of positive figures is positive, however wide its noise.
    let (low, high) = ((ratio - half).max(0.0), ratio + half);
    let word = if (low <= 1.0 && 1.0 <= high) || (ratio - 1.0).abs() < noise {
        Word::NoDifference
    } else if (ratio > 1.0) == (better == Better::Higher) {
        Word::Faster
    } else {
        Word::Slower
    };
    Some(Verdict {
        ratio,
        ci95_low: low,
        ci95_high: high,
        verdict: word,
        base_repeats: ia.n,
        new_repeats: ib.n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_the_iops_is_slower_at_a_ratio_of_a_half() {
        let v = verdict(
            &[4000.0, 4010.0, 3990.0, 4005.0, 3995.0],
            &[2000.0, 2003.0, 1998.0, 2001.0, 1999.0],
            Better::Higher,
            NOISE_THRESHOLD,
        )
        .unwrap();
        assert_eq!(v.verdict, Word::Slower);
        assert!((v.ratio - 0.5).abs() < 1e-3);
        assert!(v.ci95_low < 0.5 && 0.5 < v.ci95_high);
        assert!((v.worse_percent(Better::Higher) - 50.0).abs() < 0.1);
    }

    #[test]
    fn overlapping_noise_is_no_difference() {
        let v = verdict(
            &[100.0, 104.0, 97.0, 101.0, 99.0],
            &[101.0, 98.0, 103.0, 100.0, 97.0],
            Better::Higher,
            NOISE_THRESHOLD,
        )
        .unwrap();
        assert_eq!(v.verdict, Word::NoDifference, "{v:?}");
    }

    #[test]
    fn a_shorter_latency_is_faster() {
        let v = verdict(&[10.0, 10.2, 9.9], &[8.0, 8.1, 7.9], Better::Lower, 0.03).unwrap();
        assert_eq!(v.verdict, Word::Faster);
        assert!(v.worse_percent(Better::Lower) < 0.0);
    }

    #[test]
    fn single_runs_give_a_ratio_without_a_word() {
        let v = verdict(&[10.0], &[20.0], Better::Lower, 0.03).unwrap();
        assert_eq!(v.verdict, Word::Unknown);
        assert_eq!(v.ratio_text(), "2.00");
        assert!(verdict(&[], &[1.0], Better::Lower, 0.03).is_none());
    }

    #[test]
    fn a_tight_one_percent_change_is_within_the_noise_threshold() {
        let base = [254.0, 255.0, 253.5, 254.5, 254.0];
        let new = [256.5, 257.0, 256.0, 257.5, 256.5];
        let tight = verdict(&base, &new, Better::Higher, 0.0).unwrap();
        assert_eq!(tight.verdict, Word::Faster);
        let v = verdict(&base, &new, Better::Higher, NOISE_THRESHOLD).unwrap();
        assert_eq!(v.verdict, Word::NoDifference);
    }
}
