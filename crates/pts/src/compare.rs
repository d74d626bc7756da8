//! `compare` of PTS runs, test by test and element by element, with `compare`'s verdict rules
//! (`iolab_report::verdict`): each figure's values over the measurement window's rounds (5
//! when steady) are the repeats of its mean, so a ratio carries a 95 % interval and a word:
//! faster, slower, no difference or inconclusive. A test that reached no steady state is
//! compared on its last five rounds and says so.

use iolab_report::verdict::{verdict, Better, Verdict};
use iolab_results::pts::{Figure, PtsDocument, TestDoc};
use serde::Serialize;

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

/// Each element's figure over the window's rounds, by element label, in round order.
fn window_values(t: &TestDoc, f: Figure) -> Vec<(String, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    for e in t.window_elements() {
        match out.iter_mut().find(|(l, _)| *l == e.label) {
            Some((_, vs)) => vs.push(f.of(e)),
            None => out.push((e.label.clone(), vec![f.of(e)])),
        }
    }
    out
}

/// What is compared of each test's elements: the figure and which way is better.
fn figures(test: &str) -> &'static [(Figure, &'static str, Better)] {
    match test {
        "lat" => &[
            (Figure::MeanNs, "average response time", Better::Lower),
            (Figure::P99999Ns, "99.999 % response time", Better::Lower),
        ],
        t if t.starts_with("tp") || t == "xsr" => {
            &[(Figure::BwBytes, "throughput", Better::Higher)]
        }
        _ => &[(Figure::Iops, "IOPS", Better::Higher)],
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The tracked variable's values over the test's window.
fn tracked_values(t: &TestDoc) -> Vec<f64> {
    let [a, z] = t.window();
    t.steady_state
        .values
        .iter()
        .skip(a.saturating_sub(1))
        .take((z + 1).saturating_sub(a))
        .copied()
        .collect()
}

/// `new` against `base` (each a PTS run's document), test by test.
pub fn compare(base: &PtsDocument, new: &PtsDocument, noise: f64) -> Vec<TestVerdict> {
    let mut out = Vec::new();
    for b in &base.tests {
        let Some(n) = new.tests.iter().find(|t| t.name == b.name) else {
            continue;
        };
        let better = match b.name.as_str() {
            "lat" => Better::Lower,
            _ => Better::Higher,
        };
        let (tb, tn) = (tracked_values(b), tracked_values(n));
        let Some(steady) = verdict(&tb, &tn, better, noise) else {
            continue;
        };
        let mut elements = Vec::new();
        for (f, figure, better) in figures(&b.name) {
            let nv = window_values(n, *f);
            for (label, vb) in window_values(b, *f) {
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
        elements.extend(phase_verdicts(b, n, noise));
        out.push(TestVerdict {
            name: b.name.clone(),
            steady: ElementVerdict {
                element: b.tracked.clone(),
                figure: "tracked",
                base: mean(&tb),
                new: mean(&tn),
                verdict: steady,
            },
            tracked: b.tracked.clone(),
            base_steady: b.steady_state.reached,
            new_steady: n.steady_state.reached,
            elements,
        });
    }
    out
}

/// Each phase step's figure, by "phase: role" label, in order.
fn phase_steps(t: &TestDoc, f: Figure) -> Vec<(String, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    for p in &t.phases {
        for x in &p.points {
            let label = match x.role.as_str() {
                "" => p.name.clone(),
                role => format!("{}: {role}", p.name),
            };
            let v = f.of(&x.measured);
            match out.iter_mut().find(|(l, _)| *l == label) {
                Some((_, vs)) => vs.push(v),
                None => out.push((label, vec![v])),
            }
        }
    }
    out
}

/// The phases after the rounds (host idle recovery's wait states, cross-stimulus
/// recovery's access groups), each compared on its steps as repeats: IOPS, or throughput for
/// cross-stimulus recovery. Phases of one step each (the operating points) are compared
/// step by step, each on its one value (a verdict the rules can make only when the two are
/// far apart).
fn phase_verdicts(b: &TestDoc, n: &TestDoc, noise: f64) -> Vec<ElementVerdict> {
    let (f, figure) = match b.name.as_str() {
        "xsr" => (Figure::BwBytes, "throughput"),
        _ => (Figure::Iops, "IOPS"),
    };
    let nv = phase_steps(n, f);
    phase_steps(b, f)
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
    use iolab_results::pts::{Measured, PhasePoint, PhaseRun};
    use serde_json::{json, Value};

    fn typed(v: &Value) -> PtsDocument {
        PtsDocument::from_meta(v).expect("a PTS document")
    }

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
        let v = compare(&typed(&base), &typed(&slower), 0.03);
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
        let same = compare(
            &typed(&base),
            &typed(&doc([99.0, 101.0, 100.0, 98.5, 101.5])),
            0.03,
        );
        assert_eq!(same[0].steady.verdict.verdict, Word::NoDifference);
    }

    /// Host idle recovery's wait states compare on their bursts: 8 bursts at 100 against 8
    /// at 50 is slower, phase by phase.
    #[test]
    fn phases_compare_on_their_steps() {
        let with = |iops: f64| {
            let mut d = typed(&doc([100.0, 102.0, 98.0, 101.0, 99.0]));
            let points = (0..8)
                .map(|i| PhasePoint {
                    measured: Measured {
                        iops: iops + (i % 2) as f64,
                        ..Measured::default()
                    },
                    ..PhasePoint::default()
                })
                .collect();
            d.tests[0].name = "hir".into();
            d.tests[0].phases = vec![PhaseRun {
                name: "wait state 1: 5 s writes, 5 s idle".into(),
                points,
            }];
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
