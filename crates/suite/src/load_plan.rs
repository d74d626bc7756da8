//! The load curve's rules, as plain functions over numbers so they can be checked on
//! synthetic curves: the loads it visits, the knee, and the highest load meeting a latency
//! objective.

use std::str::FromStr;

/// The loads of a curve, as shares of the peak: 10 %, 20 %, … 100 %, and 110 % to show
/// what an overload looks like.
pub fn default_loads() -> Vec<f64> {
    (1..=11).map(|i| i as f64 / 10.0).collect()
}

/// The quick review's loads: enough to draw the hockey stick in seconds.
pub fn quick_loads() -> Vec<f64> {
    vec![0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0, 1.1]
}

/// Loads from a comma list of shares (`0.1,0.5,0.9`) or percentages (`10%,50%`), sorted;
/// an error naming the bad item.
pub fn parse_loads(s: &str) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let share = match item.strip_suffix('%') {
            Some(p) => p.parse::<f64>().map(|p| p / 100.0),
            None => item.parse::<f64>(),
        }
        .map_err(|_| format!("'{item}' is not a share of the peak (0.5 or 50%)"))?;
        if !(share > 0.0 && share <= 10.0) {
            return Err(format!(
                "'{item}': a load is above 0 and at most 10 times the peak"
            ));
        }
        v.push(share);
    }
    if v.is_empty() {
        return Err("no loads given".into());
    }
    v.sort_by(f64::total_cmp);
    v.dedup();
    Ok(v)
}

/// A curve's loads as one value (`--loads 10%,50%,110%`), parsed by [`parse_loads`].
#[derive(Debug, Clone, PartialEq)]
pub struct Loads(pub Vec<f64>);

impl FromStr for Loads {
    type Err = String;
    fn from_str(s: &str) -> Result<Loads, String> {
        parse_loads(s).map(Loads)
    }
}

/// A latency objective: at most `max_ns` at the `percentile` of response time
/// (`p99:100us`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slo {
    pub percentile: f64,
    pub max_ns: f64,
}

impl Slo {
    /// As the user wrote it: `p99:100us`.
    pub fn label(&self) -> String {
        format!(
            "p{}:{}",
            self.percentile,
            crate::load_plan::time_label(self.max_ns)
        )
    }
}

fn time_label(ns: f64) -> String {
    match ns {
        n if n >= 1e9 && n % 1e9 == 0.0 => format!("{}s", n / 1e9),
        n if n >= 1e6 && n % 1e6 == 0.0 => format!("{}ms", n / 1e6),
        n if n >= 1e3 && n % 1e3 == 0.0 => format!("{}us", n / 1e3),
        n => format!("{n}ns"),
    }
}

impl FromStr for Slo {
    type Err = String;
    fn from_str(s: &str) -> Result<Slo, String> {
        let bad = || format!("'{s}' is not an objective such as p99:100us or p99.9:2ms");
        let (p, t) = s.trim().split_once(':').ok_or_else(bad)?;
        let percentile: f64 = p
            .strip_prefix('p')
            .and_then(|p| p.parse().ok())
            .ok_or_else(bad)?;
        if !(percentile > 0.0 && percentile <= 100.0) {
            return Err(format!("'{s}': the percentile is above 0 and at most 100"));
        }
        let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
        let value: f64 = t[..split].parse().map_err(|_| bad())?;
        let scale = match &t[split..] {
            "ns" => 1.0,
            "us" | "µs" | "" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => return Err(bad()),
        };
        if value <= 0.0 {
            return Err(bad());
        }
        Ok(Slo {
            percentile,
            max_ns: value * scale,
        })
    }
}

/// The knee: the first point (in load order) whose response p99 exceeds `factor` times the
/// lightest load's. `p99s` are the points' response p99, lightest load first.
pub fn knee(p99s: &[f64], factor: f64) -> Option<usize> {
    let base = *p99s.first()?;
    p99s.iter().position(|&p| p > factor * base)
}

/// Where to look next for the highest load meeting an objective, given the points so far as
/// (load, met), in any order: halfway between the highest load that met it and the lowest
/// above that did not; `None` when no load met it, none above failed, or the two are within
/// `resolution` of each other.
pub fn bisect(points: &[(f64, bool)], resolution: f64) -> Option<f64> {
    let best = best_meeting(points)?;
    let above = points
        .iter()
        .filter(|(l, met)| *l > best && !met)
        .map(|(l, _)| *l)
        .min_by(f64::total_cmp)?;
    (above - best > resolution).then_some((best + above) / 2.0)
}

/// The highest load that met the objective, with no failing load below it (a noisy pass
/// above a failure is not the answer).
pub fn best_meeting(points: &[(f64, bool)]) -> Option<f64> {
    let first_fail = points
        .iter()
        .filter(|(_, met)| !met)
        .map(|(l, _)| *l)
        .min_by(f64::total_cmp)
        .unwrap_or(f64::INFINITY);
    points
        .iter()
        .filter(|(l, met)| *met && *l < first_fail)
        .map(|(l, _)| *l)
        .max_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_parse_as_written_and_bad_ones_say_why() {
        let s: Slo = "p99:100us".parse().unwrap();
        assert_eq!((s.percentile, s.max_ns), (99.0, 100_000.0));
        assert_eq!(s.label(), "p99:100us");
        let s: Slo = "p99.9:2ms".parse().unwrap();
        assert_eq!((s.percentile, s.max_ns), (99.9, 2e6));
        assert_eq!("p50:250".parse::<Slo>().unwrap().max_ns, 250_000.0);
        for bad in [
            "99:100us", "p99", "p101:1ms", "p99:fast", "p99:0us", "p99:5h",
        ] {
            assert!(bad.parse::<Slo>().is_err(), "{bad}");
        }
    }

    #[test]
    fn loads_parse_as_shares_or_percentages_sorted() {
        assert_eq!(parse_loads("50%,0.1, 1.1").unwrap(), vec![0.1, 0.5, 1.1]);
        assert!(parse_loads("0").is_err());
        assert!(parse_loads("half").unwrap_err().contains("half"));
        assert!(parse_loads("").is_err());
        assert_eq!(default_loads().len(), 11);
        assert!((default_loads()[10] - 1.1).abs() < 1e-9);
    }

    #[test]
    fn the_knee_is_the_first_load_past_k_times_the_lightest() {
        let p99 = [10.0, 11.0, 12.0, 19.0, 25.0, 90.0];
        assert_eq!(knee(&p99, 2.0), Some(4));
        assert_eq!(knee(&p99, 10.0), None);
        assert_eq!(knee(&[], 2.0), None);
    }

    #[test]
    fn bisection_narrows_between_the_last_pass_and_the_first_fail() {
        let pts = [(0.5, true), (0.6, true), (0.7, false), (0.8, false)];
        assert_eq!(best_meeting(&pts), Some(0.6));
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        assert!(near(bisect(&pts, 0.01), 0.65));
        let mut more = pts.to_vec();
        more.push((0.65, true));
        assert!(near(bisect(&more, 0.01), 0.675));
        assert_eq!(bisect(&more, 0.1), None);
        // A pass above a failure is noise: the answer stays below the failure.
        let noisy = [(0.5, true), (0.6, false), (0.7, true)];
        assert_eq!(best_meeting(&noisy), Some(0.5));
        assert_eq!(bisect(&[(0.5, false)], 0.01), None);
        assert_eq!(bisect(&[(0.5, true)], 0.01), None);
    }
}
