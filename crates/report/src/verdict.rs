//! `compare`'s verdict on one figure of two runs with repeats: the ratio of their means with
//! a 95 % interval, and one word for it, as hyperfine says "1.08 ± 0.02 times faster".
//!
//! The interval is computed on the log scale, where a ratio is a difference: log(new/base)
//! has the two means' relative standard errors added in quadrature (the delta method), with
//! Welch–Satterthwaite's degrees of freedom since the runs' spreads need not be equal; its
//! ends taken back are the ratio's, never below zero, as wide above as a halving is below.
//!
//! The words, each claimed only where the interval shows it (the legend, [`legend`], says
//! the same rule wherever verdicts are printed):
//! - `no difference`: the whole interval lies within the threshold (±3 % unless given):
//!   any change the repeats allow is smaller than that;
//! - `faster` / `slower`: the interval excludes 1, on one side;
//! - `inconclusive`: neither (the interval holds 1 and reaches past the threshold), with
//!   how many repeats each run would need, at the noise these repeats showed, for the
//!   interval to decide one way or the other.
//!
//! An interval inside the threshold that also excludes 1 (a real change of 1 %) is `no
//! difference`: the threshold is the size of change the user called none.

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
    /// The whole interval lies within the threshold.
    NoDifference,
    /// The interval holds 1 and reaches past the threshold: the repeats cannot tell.
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

/// The most repeats an `inconclusive` reason asks for; beyond, it says "more than".
const MOST_REPEATS: usize = 1000;

/// The rule, as the header of every verdict table says it (`noise`: a share, 0.03).
pub fn legend(noise: f64) -> String {
    format!(
        "ratio = later / first, with its 95 % interval (from the repeats, on the log scale: \
         never below zero); no difference: the whole interval within ±{pct} %; faster / \
         slower: the interval excludes 1; inconclusive: neither, with the repeats each run \
         would need at this noise",
        pct = fmt_pct(noise * 100.0)
    )
}

/// A percentage without needless decimals: 3, 2.5.
pub fn fmt_pct(p: f64) -> String {
    let s = format!("{p:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

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
    /// The runs' noise, for what more repeats would decide.
    #[serde(skip)]
    spread: Option<Spread>,
}

impl Verdict {
    /// The ratio and its interval as "0.50 [0.48, 0.52]"; a ratio under 0.1 keeps two
    /// significant digits ("0.016 [0.0031, 0.089]"), so a bound above zero never reads 0.00.
    pub fn ratio_text(&self) -> String {
        let r = |x: f64| match x.abs() {
            a if a > 0.0 && a < 0.1 => {
                let digits = (1 - a.log10().floor() as i32).clamp(2, 12) as usize;
                format!("{x:.digits$}")
            }
            _ => format!("{x:.2}"),
        };
        if self.verdict == Word::Unknown {
            return r(self.ratio);
        }
        format!(
            "{} [{}, {}]",
            r(self.ratio),
            r(self.ci95_low),
            r(self.ci95_high)
        )
    }

    /// The verdict's word, with its reason when it has one.
    pub fn word_text(&self) -> String {
        match &self.reason {
            Some(r) => format!("{} ({r})", self.verdict.as_str()),
            None => self.verdict.as_str().to_string(),
        }
    }

    /// The repeats each run would need, at this noise, for the interval to exclude `bound`
    /// (a ratio: 0.9 for a 10 % loss of IOPS); `None` without repeats, or beyond
    /// [`MOST_REPEATS`].
    pub fn repeats_to_exclude(&self, bound: f64) -> Option<usize> {
        let s = self.spread.as_ref()?;
        let gap = (self.ratio.ln() - bound.ln()).abs();
        s.repeats_within(gap)
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
            spread: None,
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
    let spread = Spread {
        base: (va, ia.n),
        new: (vb, ib.n),
    };
    let half_log = spread.half_log_at(ia.n, ib.n);
    let (low, high) = match ratio > 0.0 {
        true => (ratio * (-half_log).exp(), ratio * half_log.exp()),
        false => (0.0, 0.0),
    };
    let (base_cv, new_cv) = (cv(&ia), cv(&ib));
    let mut reason = None;
    let word = if ratio <= 0.0 {
        reason = Some("the later run's mean is zero".to_string());
        Word::Inconclusive
    } else if low >= 1.0 - noise && high <= 1.0 + noise {
        Word::NoDifference
    } else if low > 1.0 || high < 1.0 {
        match (ratio > 1.0) == (better == Better::Higher) {
            true => Word::Faster,
            false => Word::Slower,
        }
    } else {
        let (who, cv, n) = match new_cv > base_cv {
            true => ("new", new_cv, ib.n),
            false => ("base", base_cv, ia.n),
        };
        let noisier = format!("CV {:.0} % in the {who} run's {n} repeats", cv * 100.0);
        reason = Some(spread.deciding(ratio, noise, &noisier));
        Word::Inconclusive
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
        spread: Some(spread),
    })
}

/// The two runs' noise: each mean's relative variance and its number of repeats.
#[derive(Debug, Clone, PartialEq)]
struct Spread {
    base: (f64, usize),
    new: (f64, usize),
}

impl Spread {
    /// The interval's half-width on the log scale with `a` repeats in the base run and `b`
    /// in the new, at the noise these repeats showed (each relative variance scales as
    /// 1/n): the two relative variances added, Welch–Satterthwaite's degrees of freedom.
    fn half_log_at(&self, a: usize, b: usize) -> f64 {
        let ((va, na), (vb, nb)) = (self.base, self.new);
        let (va, vb) = (va * na as f64 / a as f64, vb * nb as f64 / b as f64);
        let df = match va * va / (a - 1) as f64 + vb * vb / (b - 1) as f64 {
            d if d > 0.0 => (va + vb).powi(2) / d,
            _ => f64::INFINITY,
        };
        t95(df) * (va + vb).sqrt()
    }

    /// The fewest repeats each (from as many as the runs have) whose interval's half-width
    /// on the log scale is under `gap`; `None` beyond [`MOST_REPEATS`].
    fn repeats_within(&self, gap: f64) -> Option<usize> {
        let from = self.base.1.max(self.new.1).max(2);
        (from..=MOST_REPEATS).find(|&n| self.half_log_at(n, n) < gap)
    }

    /// What would decide an inconclusive ratio: the repeats each run would need for its
    /// interval to exclude 1 or to fit within the threshold, whichever comes first, at
    /// this noise (the ratio itself taken as it stands).
    fn deciding(&self, ratio: f64, noise: f64, noisier: &str) -> String {
        let r = ratio.ln();
        let exclude = r.abs();
        let within = ((1.0 + noise).ln() - r).min(r - (1.0 - noise).max(1e-9).ln());
        let need = self.repeats_within(exclude.max(within));
        match need {
            Some(n) => format!(
                "the interval holds 1 and more than a {} % change ({noisier}): about {n} \
                 repeats each would decide at this noise",
                fmt_pct(noise * 100.0)
            ),
            None => format!(
                "the interval holds 1 and more than a {} % change ({noisier}): more than \
                 {MOST_REPEATS} repeats each would be needed at this noise",
                fmt_pct(noise * 100.0)
            ),
        }
    }
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
    fn no_difference_only_where_the_whole_interval_is_within_the_threshold() {
        let base = [100.0, 100.4, 99.7, 100.1, 99.9];
        let same = [100.1, 99.8, 100.3, 100.0, 99.7];
        let v = verdict(&base, &same, Better::Higher, NOISE_THRESHOLD).unwrap();
        assert_eq!(v.verdict, Word::NoDifference, "{v:?}");
        assert!(v.ci95_low >= 0.97 && v.ci95_high <= 1.03, "{v:?}");
        // The same means, ten times the noise: the interval holds 1 and a 3 % change.
        let base = [100.0, 104.0, 97.0, 101.0, 99.0];
        let noisy = [101.0, 98.0, 103.0, 100.0, 97.0];
        let v = verdict(&base, &noisy, Better::Higher, NOISE_THRESHOLD).unwrap();
        assert_eq!(v.verdict, Word::Inconclusive, "{v:?}");
        assert!(v.ci95_low < 0.97 && v.ci95_high > 1.0, "{v:?}");
        let why = v.reason.clone().unwrap();
        let n: usize = why
            .split_once("about ")
            .and_then(|(_, r)| r.split_once(' '))
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("{why}"));
        // More repeats than these 5, and with that many the interval fits the threshold.
        assert!(n > 5 && n < 40, "{why}");
        let spread = |k: usize| {
            let rep = |v: &[f64]| v.iter().cycle().take(k).copied().collect::<Vec<f64>>();
            verdict(&rep(&base), &rep(&noisy), Better::Higher, NOISE_THRESHOLD).unwrap()
        };
        assert_eq!(spread(n + 5).verdict, Word::NoDifference, "{why}");
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
        // 28.8k ± 80.8k against 51.8k ± 17.3k over three repeats.
        let base = [5_000.0, 10_000.0, 71_400.0];
        let new = [45_000.0, 52_000.0, 58_400.0];
        let v = verdict(&base, &new, Better::Higher, NOISE_THRESHOLD).unwrap();
        assert_eq!(v.verdict, Word::Inconclusive, "{v:?}");
        assert!(v.ci95_low > 0.0, "{v:?}");
        assert!(v.word_text().contains("repeats each"), "{}", v.word_text());
        assert!(
            v.word_text()
                .contains("CV 128 % in the base run's 3 repeats"),
            "{}",
            v.word_text()
        );
        // The interval is symmetric on the log scale: ratio / low == high / ratio.
        assert!(((v.ratio / v.ci95_low) - (v.ci95_high / v.ratio)).abs() < 1e-9);
    }

    #[test]
    fn every_word_agrees_with_its_own_interval() {
        // Pseudo-random pairs of noisy repeats at every scale of change and noise.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..2000 {
            let n = 2 + case % 7;
            let change = 0.8 + 0.4 * next();
            let cv = [0.001, 0.01, 0.05, 0.3][case % 4];
            let base: Vec<f64> = (0..n)
                .map(|_| 1000.0 * (1.0 + cv * (next() - 0.5)))
                .collect();
            let new: Vec<f64> = (0..n)
                .map(|_| 1000.0 * change * (1.0 + cv * (next() - 0.5)))
                .collect();
            for better in [Better::Higher, Better::Lower] {
                let v = verdict(&base, &new, better, NOISE_THRESHOLD).unwrap();
                let (lo, hi) = (v.ci95_low, v.ci95_high);
                match v.verdict {
                    Word::NoDifference => assert!(lo >= 0.97 && hi <= 1.03, "{v:?}"),
                    Word::Faster | Word::Slower => assert!(lo > 1.0 || hi < 1.0, "{v:?}"),
                    Word::Inconclusive => {
                        assert!(lo <= 1.0 && hi >= 1.0 && (lo < 0.97 || hi > 1.03), "{v:?}")
                    }
                    Word::Unknown => panic!("{v:?}"),
                }
                let higher = v.ratio > 1.0;
                match v.verdict {
                    Word::Faster => assert_eq!(higher, better == Better::Higher),
                    Word::Slower => assert_eq!(higher, better == Better::Lower),
                    _ => {}
                }
            }
        }
    }
}
