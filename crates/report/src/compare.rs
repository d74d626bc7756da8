//! `compare`'s verdicts as data: each later run's jobs against the first run's, figure by
//! figure (IOPS, mean and p99 latency), as a ratio with its 95 % interval and one word, from
//! the runs' repeats (`iolab run --repeat N`). `compare` prints them (Markdown, JSON, CSV)
//! and the HTML report carries them as a table; the statistics are [`crate::verdict`]'s.

use iolab_results::repeats::{values_of, Interval};
use iolab_results::{JobRecord, RunRecord};

use crate::export::markdown::latency_kind;
use crate::format::{compact, micros};
use crate::verdict::{verdict, Better, Verdict, Word};

/// A figure a verdict is given on: how it is named to the user, and its stored name (a
/// latency's without the `lat`/`clat` it is measured as).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub label: String,
    /// `iops`, or a latency's suffix: `_mean_ns`, `_p99_ns`.
    stored: String,
}

impl Figure {
    /// Its stored name without the latency's kind: `iops`, `_mean_ns`, `_p99_ns`.
    pub fn stored(&self) -> &str {
        &self.stored
    }

    pub fn better(&self) -> Better {
        if self.stored == "iops" {
            Better::Higher
        } else {
            Better::Lower
        }
    }

    /// Its stored name in both jobs' direction `dir`: one latency for both, the kind each
    /// job's tables show (`show`'s: total latency where it has percentiles, else fio's
    /// clat) where they agree, else the kind both kept, clat before lat (an imported fio
    /// run keeps clat's percentiles). `None` for IOPS, which has no kind.
    fn kind_in(&self, base: &JobRecord, new: &JobRecord, dir: &str) -> Option<&'static str> {
        if self.stored == "iops" {
            return None;
        }
        let (kb, kn) = (latency_kind(base, dir), latency_kind(new, dir));
        if kb == kn {
            return Some(kb);
        }
        let both = |k: &str| {
            let n = format!("{k}{}", self.stored);
            base.metric(dir, &n).is_some() && new.metric(dir, &n).is_some()
        };
        Some(if both("clat") { "clat" } else { "lat" })
    }

    /// The stored name of the figure of that kind.
    fn name_of(&self, kind: Option<&str>) -> String {
        match kind {
            Some(k) => format!("{k}{}", self.stored),
            None => self.stored.clone(),
        }
    }

    pub fn show(&self, v: f64) -> String {
        match self.better() {
            Better::Higher => compact(v),
            Better::Lower => micros(v),
        }
    }

    /// `iops`, `mean`, or a percentile `p99`, `p99.9`.
    pub fn parse(s: &str) -> Result<Figure, String> {
        let s = s.trim().to_ascii_lowercase();
        let stored = match s.as_str() {
            "iops" => "iops".to_string(),
            "mean" => "_mean_ns".to_string(),
            p if p
                .strip_prefix('p')
                .is_some_and(|n| n.parse::<f64>().is_ok()) =>
            {
                let pct: f64 = p[1..].parse().unwrap_or(f64::NAN);
                if !(pct > 0.0 && pct <= 100.0) {
                    return Err(format!(
                        "'{p}' is no percentile: give one above 0 and at most 100, such as p99"
                    ));
                }
                format!("_{}_ns", iolab_results::percentile_name(pct))
            }
            other => {
                return Err(format!(
                    "'{other}' is not a figure: give iops, mean or a percentile such as p99"
                ))
            }
        };
        Ok(Figure { label: s, stored })
    }
}

/// The figures every verdict table shows.
pub fn shown() -> Vec<Figure> {
    ["iops", "mean", "p99"]
        .iter()
        .filter_map(|f| Figure::parse(f).ok())
        .collect()
}

/// One verdict: job, direction, figure, the two runs' figures, the verdict.
#[derive(Debug, Clone)]
pub struct Row {
    pub job: String,
    pub dir: String,
    pub figure: Figure,
    /// The figure as the table names it: `lat mean`, `clat p99`, `iops`.
    pub shown_as: String,
    pub base: String,
    pub new: String,
    pub verdict: Verdict,
}

impl Row {
    /// How much worse the later run is on this figure, in percent (negative: better).
    pub fn worse_percent(&self) -> f64 {
        self.verdict.worse_percent(self.figure.better())
    }
}

/// A job's figure over its repeats, or its one value when it ran once.
fn values(job: &JobRecord, dir: &str, name: &str) -> Vec<f64> {
    match job.repeats.len() {
        0 | 1 => job.metric(dir, name).into_iter().collect(),
        _ => values_of(&job.repeats, dir, name),
    }
}

/// "20.7k [20.3k, 21.1k] (5)" for repeats (the interval from the log scale), the value
/// alone for one run.
fn figure_text(f: &Figure, v: &[f64]) -> String {
    match Interval::of(v) {
        Some(i) => format!("{} ({})", i.text(|x| f.show(x)), i.n),
        None => v.first().map_or("n/a".into(), |x| f.show(*x)),
    }
}

/// The verdicts of `new` against `base`, for the jobs (by name) and directions both have.
pub fn rows(base: &RunRecord, new: &RunRecord, extra: Option<&Figure>, noise: f64) -> Vec<Row> {
    let mut figures = shown();
    if let Some(f) = extra.filter(|f| !figures.contains(f)) {
        figures.push(f.clone());
    }
    let mut out = Vec::new();
    for nj in &new.jobs {
        let Some(bj) = base.jobs.iter().find(|j| j.name == nj.name) else {
            continue;
        };
        for dir in nj.directions() {
            for f in &figures {
                let kind = f.kind_in(bj, nj, dir);
                let name = f.name_of(kind);
                let (bv, nv) = (values(bj, dir, &name), values(nj, dir, &name));
                if let Some(v) = verdict(&bv, &nv, f.better(), noise) {
                    out.push(Row {
                        job: nj.name.clone(),
                        dir: dir.to_string(),
                        figure: f.clone(),
                        shown_as: match kind {
                            Some(k) => format!("{k} {}", f.label),
                            None => f.label.clone(),
                        },
                        base: figure_text(f, &bv),
                        new: figure_text(f, &nv),
                        verdict: v,
                    });
                }
            }
        }
    }
    out
}

/// Lines for the jobs of `new` that ran differently from the same-named job of `base` (engine,
/// pattern, block size, depth, copies, target): a verdict on them compares two settings as
/// much as two moments, and the reader must see that before the verdicts.
pub fn setting_differences(base: &RunRecord, new: &RunRecord) -> Vec<String> {
    let mut out = Vec::new();
    for nj in &new.jobs {
        let Some(bj) = base.jobs.iter().find(|j| j.name == nj.name) else {
            continue;
        };
        let mut d = Vec::new();
        let mut differ = |what: &str, x: String, y: String| {
            if x != y {
                d.push(format!("{what} {x} vs {y}"));
            }
        };
        differ("engine", bj.engine.clone(), nj.engine.clone());
        differ("rw", bj.rw.clone(), nj.rw.clone());
        differ("bs", bj.block_size.to_string(), nj.block_size.to_string());
        differ("iodepth", bj.iodepth.to_string(), nj.iodepth.to_string());
        differ("copies", bj.clones.to_string(), nj.clones.to_string());
        differ("target", bj.target.clone(), nj.target.clone());
        if !d.is_empty() {
            out.push(format!(
                "- job {} ran differently in run {} and run {}: {}; its verdicts compare the \
                 settings as well as the runs",
                nj.name,
                base.id,
                new.id,
                d.join("; ")
            ));
        }
    }
    out
}

/// Lines for the jobs whose IOPS and mean-latency verdicts point different ways: in a closed
/// loop both are one measurement (IOPS × mean latency ≈ the depth), so a reader is owed the
/// reason, which is each figure's own noise across the repeats.
pub fn disagreements(rows: &[Row]) -> Vec<String> {
    let sign = |r: &Row| match r.verdict.verdict {
        Word::Faster => 1,
        Word::Slower => -1,
        _ => 0,
    };
    let mut out = Vec::new();
    for iops in rows.iter().filter(|r| r.figure.label == "iops") {
        let Some(mean) = rows
            .iter()
            .find(|r| r.job == iops.job && r.dir == iops.dir && r.figure.label == "mean")
        else {
            continue;
        };
        if sign(iops) == sign(mean) {
            continue;
        }
        let cv = |r: &Row| {
            let v = r
                .verdict
                .base_cv
                .unwrap_or(0.0)
                .max(r.verdict.new_cv.unwrap_or(0.0));
            format!("{:.0} %", v * 100.0)
        };
        out.push(format!(
            "- {} {}: IOPS says \"{}\", mean latency \"{}\": one measurement in a closed loop, \
             judged on each figure's own noise across the repeats (CV up to {} for IOPS, {} for \
             the mean); trust neither word alone.",
            iops.job,
            iops.dir,
            iops.verdict.verdict.as_str(),
            mean.verdict.verdict.as_str(),
            cv(iops),
            cv(mean)
        ));
    }
    out
}

/// The verdicts as JSON, keyed "job/dir" then figure.
pub fn json(rows: &[Row]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for r in rows {
        let cell = m
            .entry(format!("{}/{}", r.job, r.dir))
            .or_insert_with(|| serde_json::json!({}));
        cell[r.figure.label.as_str()] = serde_json::to_value(&r.verdict).unwrap_or_default();
    }
    serde_json::Value::Object(m)
}
