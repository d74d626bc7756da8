//! `compare` of PTS runs, test by test and element by element, with `compare`'s verdict rules
//! (`iolab_report::verdict`): each figure's values over the measurement window's rounds (5
//! when steady) are the repeats of its mean, so a ratio carries a 95 % interval and a word:
//! faster, slower, no difference or inconclusive. A test that reached no steady state is
//! compared on its last five rounds and says so.

use iolab_report::verdict::{verdict, Better, Verdict};
use serde::Serialize;
use serde_json::Value;

/// One element's figure in two runs.
#[derive(Debug, Clone, Serialize)]
pub struct ElementVerdict {
    pub element: String,
    pub figure: &'static str,
    pub base: f64,
    pub new: f64,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// One test of two runs.
#[derive(Debug, Clone, Serialize)]
pub struct TestVerdict {
    pub name: String,
    pub tracked: String,
    /// The tracked variable over each run's window.
    pub steady: ElementVerdict,
    /// Whether each run reached steady state (a window that did not is compared anyway).
    pub base_steady: bool,
    pub new_steady: bool,
    pub elements: Vec<ElementVerdict>,
}

/// The rounds a run's test is judged on: its steady window, else its last five.
fn window(t: &Value) -> (usize, usize) {
    let w = &t["steady_state"]["window_rounds"];
    let n = t["rounds"].as_array().map_or(0, Vec::len);
    match (w[0].as_u64(), w[1].as_u64()) {
        (Some(a), Some(b)) => (a as usize, b as usize),
        _ => (n.saturating_sub(4).max(1), n),
    }
}

/// Each element's `key` over the window's rounds, by element label, in round order.
fn window_values(t: &Value, key: &str) -> Vec<(String, Vec<f64>)> {
    let (a, b) = window(t);
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    for r in t["rounds"].as_array().into_iter().flatten() {
        let n = r["round"].as_u64().unwrap_or(0) as usize;
        if !(a..=b).contains(&n) {
            continue;
        }
        for e in r["elements"].as_array().into_iter().flatten() {
            let label = e["label"].as_str().unwrap_or("").to_string();
            let v = e[key].as_f64().unwrap_or(0.0);
            match out.iter_mut().find(|(l, _)| *l == label) {
                Some((_, vs)) => vs.push(v),
                None => out.push((label, vec![v])),
            }
        }
    }
    out
}

/// What is compared of each test's elements: the figure and which way is better.
fn figures(test: &str) -> &'static [(&'static str, &'static str, Better)] {
    match test {
        "lat" => &[
            ("mean_ns", "average response time", Better::Lower),
            ("p99999_ns", "99.999 % response time", Better::Lower),
        ],
        t if t.starts_with("tp") || t == "xsr" => &[("bw_bytes", "throughput", Better::Higher)],
        _ => &[("iops", "IOPS", Better::Higher)],
    }
}

/// `new` against `base` (each a PTS run's document: `{"pts", "tests"}`), test by test.
pub fn compare(base: &Value, new: &Value, noise: f64) -> Vec<TestVerdict> {
    let tests = |d: &Value| d["tests"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for b in tests(base) {
        let name = b["name"].as_str().unwrap_or("").to_string();
        let Some(n) = tests(new).into_iter().find(|t| t["name"] == name.as_str()) else {
            continue;
        };
        let tracked_values = |t: &Value| {
            let (a, z) = window(t);
            t["steady_state"]["values"]
                .as_array()
                .into_iter()
                .flatten()
                .skip(a.saturating_sub(1))
                .take((z + 1).saturating_sub(a))
                .filter_map(Value::as_f64)
                .collect::<Vec<f64>>()
        };
        let better = match name.as_str() {
            "lat" => Better::Lower,
            _ => Better::Higher,
        };
        let (tb, tn) = (tracked_values(&b), tracked_values(&n));
        let Some(steady) = verdict(&tb, &tn, better, noise) else {
            continue;
        };
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let tracked = b["tracked"].as_str().unwrap_or("").to_string();
        let mut elements = Vec::new();
        for (key, figure, better) in figures(&name) {
            let nv = window_values(&n, key);
            for (label, vb) in window_values(&b, key) {
                let Some((_, vn)) = nv.iter().find(|(l, _)| *l == label) else {
                    continue;
                };
                if let Some(v) = verdict(&vb, vn, *better, noise) {
                    elements.push(ElementVerdict {
                        element: label,
                        figure,
                        base: mean(&vb),
                        new: mean(vn),
                        verdict: v,
                    });
                }
            }
        }
        elements.extend(phase_verdicts(&b, &n, &name, noise));
        out.push(TestVerdict {
            name,
            steady: ElementVerdict {
                element: tracked.clone(),
                figure: "tracked",
                base: mean(&tb),
                new: mean(&tn),
                verdict: steady,
            },
            tracked,
            base_steady: b["steady_state"]["reached"].as_bool().unwrap_or(false),
            new_steady: n["steady_state"]["reached"].as_bool().unwrap_or(false),
            elements,
        });
    }
    out
}

/// The phases after the rounds (host idle recovery's wait states, cross-stimulus
/// recovery's access groups), each compared on its steps as repeats: IOPS, or throughput for
/// cross-stimulus recovery. Phases of one step each (the operating points) are compared
/// step by step, each on its one value (a verdict the rules can make only when the two are
/// far apart).
fn phase_verdicts(b: &Value, n: &Value, test: &str, noise: f64) -> Vec<ElementVerdict> {
    let (key, figure) = match test {
        "xsr" => ("bw_bytes", "throughput"),
        _ => ("iops", "IOPS"),
    };
    let steps = |t: &Value| -> Vec<(String, Vec<f64>)> {
        let mut out: Vec<(String, Vec<f64>)> = Vec::new();
        for p in t["phases"].as_array().into_iter().flatten() {
            let name = p["name"].as_str().unwrap_or("");
            for x in p["points"].as_array().into_iter().flatten() {
                let label = match x["role"].as_str() {
                    Some(role) => format!("{name}: {role}"),
                    None => name.to_string(),
                };
                let v = x[key].as_f64().unwrap_or(0.0);
                match out.iter_mut().find(|(l, _)| *l == label) {
                    Some((_, vs)) => vs.push(v),
                    None => out.push((label, vec![v])),
                }
            }
        }
        out
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let nv = steps(n);
    steps(b)
        .into_iter()
        .filter_map(|(label, vb)| {
            let (_, vn) = nv.iter().find(|(l, _)| *l == label)?;
            let v = verdict(&vb, vn, Better::Higher, noise)?;
            Some(ElementVerdict {
                element: label,
                figure,
                base: mean(&vb),
                new: mean(vn),
                verdict: v,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_report::verdict::Word;
    use serde_json::json;

    /// A stored test of 5 steady rounds whose one element measured `iops[i]` in round i.
    fn doc(iops: [f64; 5]) -> Value {
        let rounds: Vec<Value> = iops
            .iter()
            .enumerate()
            .map(|(i, v)| {
                json!({"round": i + 1, "elements": [
                    {"label": "4KiB 0/100 random T4Q32", "iops": v},
                    {"label": "4KiB 100/0 random T4Q32", "iops": 100.0},
                ]})
            })
            .collect();
        json!({"tests": [{
            "name": "iops", "tracked": "4 KiB random 100 % write IOPS", "rounds": rounds,
            "steady_state": {"reached": true, "window_rounds": [1, 5], "values": iops},
        }]})
    }

    #[test]
    fn each_test_and_element_gets_compares_verdict_over_its_window() {
        let base = doc([100.0, 102.0, 98.0, 101.0, 99.0]);
        let slower = doc([80.0, 81.0, 79.0, 80.5, 79.5]);
        let v = compare(&base, &slower, 0.03);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].steady.verdict.verdict, Word::Slower);
        assert!((v[0].steady.verdict.ratio - 0.8).abs() < 0.01);
        let e = |label: &str| v[0].elements.iter().find(|e| e.element == label).unwrap();
        assert_eq!(e("4KiB 0/100 random T4Q32").verdict.verdict, Word::Slower);
        // Identical rounds: no spread, no difference.
        assert_eq!(
            e("4KiB 100/0 random T4Q32").verdict.verdict,
            Word::NoDifference
        );
        let same = compare(&base, &doc([99.0, 101.0, 100.0, 98.5, 101.5]), 0.03);
        assert_eq!(same[0].steady.verdict.verdict, Word::NoDifference);
    }

    /// Host idle recovery's wait states compare on their bursts: 8 bursts at 100 against 8
    /// at 50 is slower, phase by phase.
    #[test]
    fn phases_compare_on_their_steps() {
        let with = |iops: f64| {
            let mut d = doc([100.0, 102.0, 98.0, 101.0, 99.0]);
            let points: Vec<Value> = (0..8)
                .map(|i| json!({"iops": iops + (i % 2) as f64}))
                .collect();
            d["tests"][0]["name"] = json!("hir");
            d["tests"][0]["phases"] =
                json!([{"name": "wait state 1: 5 s writes, 5 s idle", "points": points}]);
            d
        };
        let v = compare(&with(100.0), &with(50.0), 0.03);
        let p = v[0]
            .elements
            .iter()
            .find(|e| e.element.starts_with("wait state 1"))
            .unwrap();
        assert_eq!(p.verdict.verdict, Word::Slower);
        assert!((p.new / p.base - 0.5).abs() < 0.01);
    }
}
