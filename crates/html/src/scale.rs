//! Axis scales and their ticks. Linear axes get "nice" 1-2-5 ticks; logarithmic axes get
//! powers of ten (with 2 and 5 between them when the range is short); the transfer-size axis
//! is log₂ with power-of-two ticks; the "nines" axis of latency percentiles maps p to
//! −log₁₀(1 − p/100), so 90, 99, 99.9 … are evenly spaced as in the PC Perspective charts.

/// How values map onto an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    Linear,
    Log10,
    Log2,
    /// Percentiles 0 < p < 100, spaced by their nines.
    Nines,
}

/// A scale from a data domain onto a pixel range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub kind: ScaleKind,
    /// The domain in transformed units (log10 of the value for Log10, ...).
    lo: f64,
    hi: f64,
    px0: f64,
    px1: f64,
}

/// A tick: where (data value) and its label.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub value: f64,
    pub label: String,
}

impl ScaleKind {
    /// The value in the axis' own units; `None` where the axis cannot show it (zero or
    /// negative on a log axis, p outside (0, 100) on the nines axis).
    pub fn transform(self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            ScaleKind::Linear => Some(v),
            ScaleKind::Log10 => (v > 0.0).then(|| v.log10()),
            ScaleKind::Log2 => (v > 0.0).then(|| v.log2()),
            ScaleKind::Nines => (v > 0.0 && v < 100.0).then(|| -(1.0 - v / 100.0).log10()),
        }
    }

    fn inverse(self, t: f64) -> f64 {
        match self {
            ScaleKind::Linear => t,
            ScaleKind::Log10 => 10f64.powf(t),
            ScaleKind::Log2 => 2f64.powf(t),
            ScaleKind::Nines => (1.0 - 10f64.powf(-t)) * 100.0,
        }
    }
}

impl Scale {
    /// A scale over the data values `values` (those the axis cannot show are ignored) onto
    /// `px0..px1`. An empty or single-valued domain is widened so it still has a width; a
    /// linear domain of non-negative values starts at zero.
    pub fn fit(
        kind: ScaleKind,
        values: impl IntoIterator<Item = f64>,
        px0: f64,
        px1: f64,
    ) -> Scale {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for t in values.into_iter().filter_map(|v| kind.transform(v)) {
            lo = lo.min(t);
            hi = hi.max(t);
        }
        if !lo.is_finite() {
            // No data: a unit domain the axis can still draw.
            (lo, hi) = match kind {
                ScaleKind::Linear => (0.0, 1.0),
                ScaleKind::Log10 | ScaleKind::Log2 => (0.0, 1.0),
                ScaleKind::Nines => (ScaleKind::Nines.transform(50.0).unwrap_or(0.3), 2.0),
            };
        }
        match kind {
            ScaleKind::Linear => {
                if lo >= 0.0 {
                    lo = 0.0;
                }
                if hi <= lo {
                    hi = if lo == 0.0 { 1.0 } else { lo + lo.abs() * 0.1 };
                }
                // Round outward to the tick step so the top tick is on the axis.
                let step = nice_step((hi - lo) / 5.0);
                lo = (lo / step).floor() * step;
                hi = (hi / step).ceil() * step;
            }
            ScaleKind::Log10 | ScaleKind::Log2 => {
                lo = lo.floor();
                hi = hi.ceil();
                if hi <= lo {
                    hi = lo + 1.0;
                }
            }
            ScaleKind::Nines => {
                // From the median (or lower) to the next whole nine above the data.
                lo = lo.min(ScaleKind::Nines.transform(50.0).unwrap_or(0.3));
                hi = hi.ceil().max(1.0);
            }
        }
        Scale {
            kind,
            lo,
            hi,
            px0,
            px1,
        }
    }

    /// Pixel position of a data value, `None` where the axis cannot show it.
    pub fn map(&self, v: f64) -> Option<f64> {
        let t = self.kind.transform(v)?;
        Some(self.px0 + (t - self.lo) / (self.hi - self.lo) * (self.px1 - self.px0))
    }

    /// The domain ends as data values.
    pub fn domain(&self) -> (f64, f64) {
        (self.kind.inverse(self.lo), self.kind.inverse(self.hi))
    }

    pub fn ticks(&self, format: impl Fn(f64) -> String) -> Vec<Tick> {
        let values: Vec<f64> = match self.kind {
            ScaleKind::Linear => {
                let step = nice_step((self.hi - self.lo) / 5.0);
                let n = ((self.hi - self.lo) / step).round() as i64;
                (0..=n).map(|i| self.lo + i as f64 * step).collect()
            }
            ScaleKind::Log10 => {
                let decades = (self.hi - self.lo).round() as i64;
                let mut v = Vec::new();
                for d in 0..=decades {
                    let base = 10f64.powf(self.lo + d as f64);
                    v.push(base);
                    if decades <= 2 && d < decades {
                        v.push(base * 2.0);
                        v.push(base * 5.0);
                    }
                }
                v
            }
            ScaleKind::Log2 => {
                let n = (self.hi - self.lo).round() as i64;
                // At most ~12 labels: every other power when the range is wide.
                let every = if n > 12 { 2 } else { 1 };
                (0..=n)
                    .filter(|i| i % every == 0)
                    .map(|i| 2f64.powf(self.lo + i as f64))
                    .collect()
            }
            ScaleKind::Nines => {
                let mut v = vec![50.0];
                let mut nines = 1.0;
                while nines <= self.hi + 1e-9 {
                    v.push(self.kind.inverse(nines));
                    nines += 1.0;
                }
                v.retain(|p| self.kind.transform(*p).is_some_and(|t| t >= self.lo - 1e-9));
                v
            }
        };
        values
            .into_iter()
            .map(|value| Tick {
                label: match self.kind {
                    ScaleKind::Nines => nines_label(value),
                    _ => format(value),
                },
                value,
            })
            .collect()
    }
}

/// 1, 2 or 5 times a power of ten, the smallest at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * p
}

/// `99.999` for the nines axis (no float noise).
fn nines_label(p: f64) -> String {
    let s = format!("{p:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(s: &Scale) -> Vec<String> {
        s.ticks(|v| format!("{v}"))
            .into_iter()
            .map(|t| t.label)
            .collect()
    }

    #[test]
    fn linear_ticks_are_nice_and_cover_the_data() {
        let s = Scale::fit(ScaleKind::Linear, [3.0, 97.0], 0.0, 100.0);
        assert_eq!(s.domain(), (0.0, 100.0));
        assert_eq!(labels(&s), ["0", "20", "40", "60", "80", "100"]);
        assert_eq!(s.map(50.0), Some(50.0));
        let s = Scale::fit(ScaleKind::Linear, [0.0, 530_000.0], 0.0, 1.0);
        assert_eq!(s.domain(), (0.0, 600_000.0));
        assert_eq!(nice_step(0.13), 0.2);
        assert_eq!(nice_step(7.0), 10.0);
    }

    #[test]
    fn log_scales_use_decades_and_drop_non_positive_values() {
        let s = Scale::fit(ScaleKind::Log10, [0.0, 8.0, 12_000.0], 0.0, 500.0);
        assert_eq!(s.domain(), (1.0, 100_000.0));
        assert_eq!(labels(&s), ["1", "10", "100", "1000", "10000", "100000"]);
        assert_eq!(s.map(0.0), None);
        assert_eq!(s.map(1000.0), Some(300.0));
        // A short range gets 2 and 5 between the decades.
        let s = Scale::fit(ScaleKind::Log10, [15.0, 80.0], 0.0, 1.0);
        assert_eq!(labels(&s), ["10", "20", "50", "100"]);
        // Transfer sizes: powers of two from 512 B to 1 MiB.
        let s = Scale::fit(ScaleKind::Log2, [512.0, 1_048_576.0], 0.0, 110.0);
        assert_eq!(s.ticks(|v| v.to_string()).len(), 12);
        assert!((s.map(4096.0).unwrap() - 30.0).abs() < 1e-9);
    }

    #[test]
    fn the_nines_axis_spaces_percentiles_by_their_nines() {
        let s = Scale::fit(ScaleKind::Nines, [50.0, 99.0, 99.999], 0.0, 1000.0);
        assert_eq!(labels(&s), ["50", "90", "99", "99.9", "99.99", "99.999"]);
        let x = |p| s.map(p).unwrap();
        let step = x(99.0) - x(90.0);
        assert!((x(99.9) - x(99.0) - step).abs() < 1e-6);
        assert!((x(99.999) - 1000.0).abs() < 1e-6);
        assert_eq!(s.map(100.0), None);
    }

    #[test]
    fn empty_and_single_point_domains_still_have_width() {
        for kind in [
            ScaleKind::Linear,
            ScaleKind::Log10,
            ScaleKind::Log2,
            ScaleKind::Nines,
        ] {
            for data in [vec![], vec![7.0]] {
                let s = Scale::fit(kind, data.clone(), 0.0, 100.0);
                let (lo, hi) = s.domain();
                assert!(hi > lo, "{kind:?} {data:?}: {lo}..{hi}");
                assert!(!s.ticks(|v| v.to_string()).is_empty(), "{kind:?} {data:?}");
            }
        }
        let s = Scale::fit(ScaleKind::Linear, [7.0], 0.0, 100.0);
        assert!(s.map(7.0).unwrap() > 0.0 && s.map(7.0).unwrap() <= 100.0);
        let s = Scale::fit(ScaleKind::Log10, [7.0], 0.0, 100.0);
        assert_eq!(s.domain(), (1.0, 10.0));
    }
}
