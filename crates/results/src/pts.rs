//! A PTS run's document, typed: what `iolab pts` stores as its run's meta and what the page,
//! the PTS text, `show`, `compare` and `export` read back. The run (crate `iolab-pts`) builds
//! it once; every output deserializes it, so a renamed field is a compiler error in every
//! reader instead of a blank table in one of them.
//!
//! Every struct takes `#[serde(default)]`: documents stored by older builds lack fields added
//! since, and still open.

use serde::{Deserialize, Serialize};

/// The whole run: its header and one entry per test, in the order they ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PtsDocument {
    pub pts: Header,
    pub tests: Vec<TestDoc>,
}

impl PtsDocument {
    /// The document stored as a run's meta; `None` for another kind of run's meta (no
    /// `tests` array) or a document this build cannot read.
    pub fn from_meta(meta: &serde_json::Value) -> Option<PtsDocument> {
        meta.get("tests")?.as_array()?;
        PtsDocument::deserialize(meta).ok()
    }
}

/// The report header: the run's settings, the operator's choices and the device under test,
/// as the specification's report header names them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Header {
    pub profile: String,
    pub disclaimer: String,
    pub target: String,
    pub capacity_bytes: u64,
    pub region_bytes: u64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub active_range_pct: f64,
    /// The active range in words ("100.0 % of the user capacity, from LBA 0").
    pub active_range: String,
    pub quick: bool,
    /// Why a `--quick` run is not comparable with a full one (`None`: not quick).
    pub scaled: Option<String>,
    /// Every way the run departs from the profile.
    pub departures: Vec<String>,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub element_time_s: f64,
    pub threads: u32,
    pub depth: u32,
    pub data_pattern: String,
    pub dirth: Dirth,
    pub dut: Dut,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub write_cache: Option<WriteCache>,
    pub run_id: i64,
    /// The plan and how the run kept it (`None`: a document from before iolab kept it).
    pub plan: Option<PlanDoc>,
    /// The test sponsor the operator named (`--sponsor`), for the report header.
    pub sponsor: Option<String>,
}

/// `3 d 4 h`, `4 h 40 min`, `56 min`, `12 s`, `0.25 s`.
pub fn clock(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match (s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60) {
        (0, 0, 0, 0) if !d.is_zero() => format!("{:.2} s", d.as_secs_f64()),
        (0, 0, 0, s) => format!("{s} s"),
        (0, 0, m, _) => format!("{m} min"),
        (0, h, 0, _) => format!("{h} h"),
        (0, h, m, _) => format!("{h} h {m} min"),
        (days, 0, _, _) => format!("{days} d"),
        (days, h, _, _) => format!("{days} d {h} h"),
    }
}

impl PlanDoc {
    /// The plan as kept, in one sentence (the report header's and `show`'s).
    pub fn words(&self) -> String {
        let d = |s: f64| clock(std::time::Duration::from_secs_f64(s.max(0.0)));
        let mut w = format!(
            "planned before the run: about {} ({} to {}; writes assumed at {:.0} MB/s, points \
             free)",
            d(self.assumed_expected_s),
            d(self.assumed_s[0]),
            d(self.assumed_s[1]),
            self.assumed_write_rate / 1e6
        );
        if let Some(e) = self.estimate_s {
            w.push_str(&format!(
                "; planned again after {} at the measured pace ({}, {:.0} ms a point beyond \
                 its running time): about {}",
                d(self.estimated_after_s),
                match self.write_rate {
                    Some(r) => format!("writes at {:.0} MB/s", r / 1e6),
                    None => "nothing written by then".into(),
                },
                self.per_point_ms,
                d(e)
            ));
        }
        if self.grown_rounds > 0 {
            w.push_str(&format!(
                "; {} round(s) past a test's expected rounds grew it",
                self.grown_rounds
            ));
        }
        if self.took_s > 0.0 {
            w.push_str(&format!("; took {}", d(self.took_s)));
            if let Some(e) = self.estimate_s.filter(|e| *e > 0.0) {
                w.push_str(&format!(
                    " ({:+.0} % of the estimate)",
                    (self.took_s / e - 1.0) * 100.0
                ));
            }
        }
        w
    }
}

/// The run's plan as it was kept: assumed before the first I/O, planned again at the pace
/// the first points measured, grown a round at a time where a test was not steady, and what
/// the run took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanDoc {
    /// Before the run: the least and the most, at the assumed write rate, points free.
    pub assumed_s: [f64; 2],
    /// ... and as expected (each test to steady state halfway between the two).
    pub assumed_expected_s: f64,
    pub assumed_write_rate: f64,
    /// The whole run as planned again once the first points were measured, and when.
    pub estimate_s: Option<f64>,
    pub estimated_after_s: f64,
    /// The measured write rate (`None`: nothing written by then) and each point's cost
    /// beyond its running time.
    pub write_rate: Option<f64>,
    pub per_point_ms: f64,
    /// Rounds past the first window that could be steady, each growing the plan.
    pub grown_rounds: usize,
    /// What the run took, from its first test's start to its last's end.
    pub took_s: f64,
    /// Each test as expected when it began (at the pace measured by then) and what it
    /// took: where a run's time went.
    pub tests: Vec<TestPlan>,
}

/// One test's planned and taken time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TestPlan {
    pub name: String,
    pub planned_s: f64,
    pub took_s: f64,
    /// Points it ran.
    pub points: usize,
}

/// The demand-intensity test's settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Dirth {
    pub read_pct: u8,
    pub bs: u32,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub ceiling_ms: f64,
}

/// What the header says of the device under test.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Dut {
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// How the device is attached (NVMe, SCSI/SATA, a RAM device, a file).
    pub interface: String,
    /// Its user capacity in bytes.
    pub capacity_bytes: u64,
    /// Where the facts came from.
    pub source: String,
}

/// A volatile write cache's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cache {
    Enabled,
    Disabled,
    /// The device has none (a RAM device; a drive with power-loss protection may say so).
    Absent,
    #[default]
    Unknown,
}

impl Cache {
    pub fn name(self) -> &'static str {
        match self {
            Cache::Enabled => "enabled",
            Cache::Disabled => "disabled",
            Cache::Absent => "absent",
            Cache::Unknown => "unknown",
        }
    }
}

/// The write cache during the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct WriteCache {
    /// Found before the run.
    pub found: Cache,
    /// During the run.
    pub during: Cache,
    /// What the profile requires.
    pub required: Cache,
    /// How it was read or set.
    pub how: String,
    /// Why it departs from the profile's requirement (`None`: it does not).
    pub departs: Option<String>,
}

/// A stimulus, as the specification's tables name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Element {
    /// Reads in percent of the I/Os (the spec's "R/W mix": 65 is 65/35).
    pub read_pct: u8,
    /// Transfer size in bytes (512 for the spec's 0.5 KiB).
    pub bs: u32,
    pub random: bool,
    /// Thread count and queue depth per thread (the spec's T and Q; outstanding I/O T × Q).
    pub threads: u32,
    pub depth: u32,
    /// The enterprise composite workload's block sizes and access ranges rather than one
    /// block size over the whole region.
    pub composite: bool,
}

/// A transfer size as the specification's tables name it: `0.5KiB`, `4KiB`, `1024KiB`.
pub fn size_name(bs: u32) -> String {
    match bs {
        b if b % 1024 == 0 => format!("{}KiB", b >> 10),
        b => format!("{}KiB", b as f64 / 1024.0),
    }
}

impl Element {
    /// `4KiB 65/35 random T4Q32`.
    pub fn label(&self) -> String {
        format!(
            "{} {} {} T{}Q{}",
            self.size(),
            self.mix(),
            if self.random { "random" } else { "sequential" },
            self.threads,
            self.depth
        )
    }

    /// `4KiB`, or `composite`.
    pub fn size(&self) -> String {
        match self.composite {
            true => "composite".to_string(),
            false => size_name(self.bs),
        }
    }

    /// The read/write mix, `65/35`.
    pub fn mix(&self) -> String {
        format!("{}/{}", self.read_pct, 100 - self.read_pct)
    }
}

/// What one element measured: reads and writes together, as the spec's tables count them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Measured {
    pub element: Element,
    pub label: String,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub iops: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub read_iops: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub write_iops: f64,
    /// Bytes per second, reads and writes together.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub bw_bytes: f64,
    /// Bytes written in the element (write saturation plots against them).
    pub write_bytes: u64,
    /// Response times (the spec's average, maximum and five-nines), reads and writes
    /// together, in ns.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub mean_ns: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub max_ns: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub p99_ns: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub p9999_ns: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub p99999_ns: f64,
    /// The response-time histogram where the test asks for one: (upper edge in ns, I/Os),
    /// ten bins a decade, empty bins left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Vec<(u64, u64)>>,
    /// CPU the element's threads used (user and system, and the kernel's helper threads
    /// working for them) per second of its window: 1.5 is one and a half CPUs busy. 0 in
    /// documents older than the field.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub cpus: f64,
}

/// One of an element's figures, named as the document names it: how the tables and
/// comparisons pick a column without a string key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    Iops,
    BwBytes,
    MeanNs,
    MaxNs,
    P99Ns,
    P9999Ns,
    P99999Ns,
    Cpus,
}

impl Figure {
    pub fn of(self, m: &Measured) -> f64 {
        match self {
            Figure::Iops => m.iops,
            Figure::BwBytes => m.bw_bytes,
            Figure::MeanNs => m.mean_ns,
            Figure::MaxNs => m.max_ns,
            Figure::P99Ns => m.p99_ns,
            Figure::P9999Ns => m.p9999_ns,
            Figure::P99999Ns => m.p99999_ns,
            Figure::Cpus => m.cpus,
        }
    }
}

/// One measurement window's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Window {
    /// Its first and last round, 1-based, as the specification numbers rounds.
    pub rounds: [usize; 2],
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub average: f64,
    /// Data excursion in percent of the average.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub range_pct: f64,
    /// Slope excursion (the fitted line's change from the first round to the last) in
    /// percent of the average.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub slope_excursion_pct: f64,
    /// Both excursions within the rule's limits.
    pub steady: bool,
}

/// What the rule says about one tracked variable's rounds so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SteadyState {
    /// The first steady window exists.
    pub reached: bool,
    /// The first steady window's rounds; else the last window judged (the latest rounds),
    /// `None` before there are enough rounds for one.
    pub window: Option<Window>,
    /// The tracked variable, one value per round.
    #[serde(deserialize_with = "crate::lenient::f64s")]
    pub values: Vec<f64>,
    /// Rounds are used up without steady state: the test stops and says so.
    pub gave_up: bool,
}

/// One tracked variable of a test judged with the others: its values, one a round, and its
/// window at the rounds the joint verdict names.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Tracked {
    pub label: String,
    #[serde(deserialize_with = "crate::lenient::f64s")]
    pub values: Vec<f64>,
    pub window: Option<Window>,
    /// This variable is steady in that window.
    pub reached: bool,
}

/// The rule over several tracked variables at once (PTS 2.0's IOPS test tracks three): steady
/// state is the first window, the same rounds for all, in which every variable is steady.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Joint {
    pub reached: bool,
    /// Rounds used up without steady state.
    pub gave_up: bool,
    /// The rounds of the steady window; else of the latest window judged.
    pub window: Option<[usize; 2]>,
    pub variables: Vec<Tracked>,
}

impl Joint {
    /// The first variable's verdict, in the shape a single variable's has.
    pub fn primary(&self) -> SteadyState {
        let v = self.variables.first();
        SteadyState {
            reached: self.reached,
            window: v.and_then(|v| v.window),
            values: v.map(|v| v.values.clone()).unwrap_or_default(),
            gave_up: self.gave_up,
        }
    }
}

/// A preconditioning loop as it ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Loop {
    pub stimulus: String,
    pub intervals_a_round: usize,
    pub tracked: String,
    pub steady: SteadyState,
}

/// One phase (wait states, access groups, operating points) as it ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PhaseRun {
    pub name: String,
    pub points: Vec<PhasePoint>,
}

/// One step of a phase: when it started (seconds from the phase's start), the host idle
/// after it, and what it measured.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PhasePoint {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub role: String,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub at_s: f64,
    /// The step's own time, then the host idle after it.
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub time_s: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub idle_s: f64,
    #[serde(flatten)]
    pub measured: Measured,
}

/// Workload-independent preconditioning: its stimulus, bytes written and their rate.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Wipc {
    pub stimulus: String,
    pub bytes: u64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub bw_bytes: f64,
}

/// One round: each tracked variable's value in it, its pre-write and its elements.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Round {
    /// 1-based, as the specification numbers rounds.
    pub round: usize,
    pub tracked: Vec<Option<f64>>,
    pub pre_write: Option<Measured>,
    pub elements: Vec<Measured>,
}

/// The elements of a round a signal stopped: measured and stored, but no round of the rule.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PartialRound {
    pub round: usize,
    pub elements: Vec<Measured>,
}

/// The steady-state rule's parameters, as the run used them.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RuleDoc {
    pub window: usize,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub range_pct: f64,
    #[serde(deserialize_with = "crate::lenient::f64")]
    pub slope_pct: f64,
    pub max_rounds: usize,
}

/// The test's steady-state verdict (none for a series, which the specification does not
/// judge).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Steady {
    pub reached: bool,
    pub window_rounds: Option<[usize; 2]>,
    /// The first tracked variable, one value a round.
    #[serde(deserialize_with = "crate::lenient::f64s")]
    pub values: Vec<f64>,
    pub average: Option<f64>,
    pub range_pct: Option<f64>,
    pub slope_excursion_pct: Option<f64>,
    pub gave_up: bool,
    pub series: bool,
    /// The criterion in words.
    pub criterion: String,
    pub variables: Vec<Tracked>,
    pub rule: RuleDoc,
}

/// One test as it ran: every element of every round, what followed, and the rule's verdict.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TestDoc {
    /// `iops`, `tp`, `lat`, `wsat`, `hir`, `xsr`, `cbw`, `dirth`, `demand`.
    pub name: String,
    pub title: String,
    /// What the rule tracks, in words, `; `-separated.
    pub tracked: String,
    /// How the target was purged, in words.
    pub purge: String,
    pub comparable: bool,
    /// Why the result cannot stand beside a certified one.
    pub not_comparable: Vec<String>,
    pub wipc: Option<Wipc>,
    pub preconditioning: Option<Loop>,
    /// Why the test could not run.
    pub unavailable: Option<String>,
    /// Stopped by a signal: what the target was left in.
    pub interrupted: Option<String>,
    pub partial_round: Option<PartialRound>,
    /// The elements of a round the target cannot run, and why.
    pub left_out: Vec<String>,
    pub rounds: Vec<Round>,
    pub phases: Vec<PhaseRun>,
    pub steady_state: Steady,
}

impl TestDoc {
    /// The rounds of the measurement window (1-based, inclusive): the steady window, else
    /// the last window the rule judged, else the last five rounds.
    pub fn window(&self) -> [usize; 2] {
        let n = self.rounds.len();
        self.steady_state
            .window_rounds
            .unwrap_or([n.saturating_sub(4).max(1), n])
    }

    /// The elements of the window's rounds, round by round.
    pub fn window_elements(&self) -> impl Iterator<Item = &Measured> {
        let [a, b] = self.window();
        self.rounds
            .iter()
            .filter(move |r| r.round >= a && r.round <= b)
            .flat_map(|r| r.elements.iter())
    }

    /// Each element's figure averaged over the window's rounds, in the order the elements
    /// first appear.
    pub fn window_average(&self, f: Figure) -> Vec<(&Measured, f64)> {
        let mut out: Vec<(&Measured, f64, usize)> = Vec::new();
        for m in self.window_elements() {
            match out.iter_mut().find(|(e, _, _)| e.label == m.label) {
                Some(slot) => {
                    slot.1 += f.of(m);
                    slot.2 += 1;
                }
                None => out.push((m, f.of(m), 1)),
            }
        }
        out.into_iter()
            .map(|(m, sum, n)| (m, sum / n as f64))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_missing_fields_still_opens() {
        let v = serde_json::json!({
            "pts": {"profile": "PTS-E 1.1"},
            "tests": [{"name": "iops", "rounds": [{"round": 1, "elements": [{"label": "x", "iops": 5.0}]}]}],
        });
        let d = PtsDocument::from_meta(&v).expect("opens");
        assert_eq!(d.pts.profile, "PTS-E 1.1");
        assert_eq!(d.tests[0].rounds[0].elements[0].iops, 5.0);
        assert!(PtsDocument::from_meta(&serde_json::json!({"jobs": []})).is_none());
    }

    #[test]
    fn the_window_average_is_per_element_over_the_window_rounds_only() {
        let m = |label: &str, iops: f64| Measured {
            label: label.into(),
            iops,
            ..Measured::default()
        };
        let round = |n, a, b| Round {
            round: n,
            elements: vec![m("a", a), m("b", b)],
            ..Round::default()
        };
        let t = TestDoc {
            rounds: vec![
                round(1, 100.0, 1.0),
                round(2, 10.0, 2.0),
                round(3, 20.0, 4.0),
            ],
            steady_state: Steady {
                window_rounds: Some([2, 3]),
                ..Steady::default()
            },
            ..TestDoc::default()
        };
        let avg: Vec<(String, f64)> = t
            .window_average(Figure::Iops)
            .into_iter()
            .map(|(m, v)| (m.label.clone(), v))
            .collect();
        assert_eq!(avg, vec![("a".into(), 15.0), ("b".into(), 3.0)]);
    }
}
