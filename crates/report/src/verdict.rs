//! `compare`'s verdict on one figure of two runs with repeats: the ratio of their means with
//! a 95 % interval, and one word for it, as hyperfine says "1.08 ± 0.02 times faster".
//!
//! The interval is computed on the log scale, where a ratio is a difference: log(new/base)
//! has the two means' relative standard errors added in quadrature (the delta method), with
//! Welch–Satterthwaite's degrees of freedom since the runs' spreads need not be equal; its
//! ends taken back are the ratio's, never below zero, as wide above as a halving is below.
//!
//! The words. Where the interval spans more than a factor of two (high/low > 2), the repeats
//! are too noisy to say anything and the verdict is `inconclusive`, with the noisier run's
//! coefficient of variation as the reason: hyperfine and criterion do not call a change
//! they cannot see, and a factor of two is the widest span in which "no difference" still
//! rules out a halving or a doubling. Where the interval holds 1, the runs do not differ
//! beyond their noise. A difference the interval does show but smaller than a noise
//! threshold (criterion's `noise_threshold`) is no difference either: repeats inside one
//! run see less noise than lies between two runs (drift over minutes, a device's state).

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
    /// The interval spans more than a factor of two: the repeats cannot tell.
    Inconclusive,
    /// One run or both have fewer than two repeats: a ratio, but no interval to judge by.
    Unknown,
}

impl Word {
    pub fn as_str(self) -> &'static str {
        match self {
            Word::Faster => "faster",
            Word::Slower => "slower",
            Word::NoDifference => "no difference",
            Word::Inconclusive => "inconclusive",
            Word::Unknown => "one run each: no interval",
        }
    }
}

/// The widest interval (high / low) a verdict is given on; wider is `inconclusive`.
pub const MAX_SPAN: f64 = 2.0;

/// The new run's figure against the base's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// new mean / base mean.
    pub ratio: f64,
    /// The ratio's 95 % interval, from the log scale (equal to `ratio` without repeats).
    pub ci95_low: f64,
    pub ci95_high: f64,
    pub verdict: Word,
    pub base_repeats: usize,
    pub new_repeats: usize,
    /// The repeats' coefficients of variation (stddev / mean), where there are repeats.
    pub base_cv: Option<f64>,
    pub new_cv: Option<f64>,
    /// Why the verdict is `inconclusive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Verdict {
    /// The ratio and its interval as "0.50 [0.48, 0.52]".
    pub fn ratio_text(&self) -> String {
        if self.verdict == Word::Unknown {
            return format!("{:.2}", self.ratio);
        }
        format!(
            "{:.2} [{:.2}, {:.2}]",
            self.ratio, self.ci95_low, self.ci95_high
        )
    }

    /// The verdict's word, with its reason when it has one.
    pub fn word_text(&self) -> String {
        match &self.reason {
            Some(r) => format!("{} ({r})", self.verdict.as_str()),
            None => self.verdict.as_str().to_string(),
        }
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
            base_cv: None,
            new_cv: None,
            reason: None,
        });
    };
    let cv = |i: &Interval| match i.mean {
        m if m != 0.0 => i.stddev / m.abs(),
        _ => 0.0,
    };
    // Variances of the two means' logarithms (relative variances of the means).
    let va = (ia.sem() / ma).powi(2);
    let vb = match mb {
        0.0 => 0.0,
        _ => (ib.sem() / mb).powi(2),
    };
    let df = match va * va / (ia.n - 1) as f64 + vb * vb / (ib.n - 1) as f64 {
        d if d > 0.0 => (va + vb).powi(2) / d,
        _ => f64::INFINITY,
    };
    let half_log = t95(df) * (va + vb).sqrt();
    let (low, high) = match ratio > 0.0 {
        true => (ratio * (-half_log).exp(), ratio * half_log.exp()),
        false => (0.0, 0.0),
    };
    let (base_cv, new_cv) = (cv(&ia), cv(&ib));
    let mut reason = None;
    let word = if ratio <= 0.0 || high / low > MAX_SPAN {
        let (who, cv, n) = match new_cv > base_cv {
            true => ("new", new_cv, ib.n),
            false => ("base", base_cv, ia.n),
        };
        reason = Some(format!(
            "interval spans more than {MAX_SPAN}x: CV {:.0} % in the {who} run's {n} repeats",
            cv * 100.0
        ));
        Word::Inconclusive
    } else if (low <= 1.0 && 1.0 <= high) || (ratio - 1.0).abs() < noise {
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
        base_cv: Some(base_cv),
        new_cv: Some(new_cv),
        reason,
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
        assert_eq!(v.word_text(), "one run each: no interval");
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

    #[test]
    fn a_noisy_pair_is_inconclusive_with_its_reason_and_never_below_zero() {
        // The case: 28.8k ± 80.8k against 51.8k ± 17.3k over three repeats.
        let base = [5_000.0, 10_000.0, 71_400.0];
        let new = [45_000.0, 52_000.0, 58_400.0];
        let v = verdict(&base, &new, Better::Higher, NOISE_THRESHOLD).unwrap();
        assert_eq!(v.verdict, Word::Inconclusive, "{v:?}");
        assert!(v.ci95_low > 0.0, "{v:?}");
        assert!(
            v.word_text().contains("CV 128 %") && v.word_text().contains("base run's 3 repeats"),
            "{}",
            v.word_text()
        );
        // The interval is symmetric on the log scale: ratio / low == high / ratio.
        assert!(((v.ratio / v.ci95_low) - (v.ci95_high / v.ratio)).abs() < 1e-9);
    }
}
