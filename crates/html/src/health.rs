//! The drive's health beside the figures: each run's health-log judgement in words, and the
//! composite temperature over each job with the over-temperature threshold in force, the
//! moment a critical warning first showed marked. The consistency section draws the same
//! chart under its latency, second by second.

use std::fmt::Write as _;

use iolab_results::{celsius, record_lines, JobRecord};

use crate::chart::{esc, Chart, Format, Mark, ScaleKind, Series};
use crate::data::RunData;
use crate::page::{chart_block, Section};
use crate::sections::{axis, dashed, name};

/// The temperature of `jobs` (with the threshold) over their time, one chart; `None` when no
/// job has two readings.
pub(crate) fn temperature_chart<'a>(
    id: &str,
    title: &str,
    runs: &[RunData],
    jobs: impl Iterator<Item = (&'a RunData, &'a JobRecord)>,
) -> Option<Chart> {
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for (r, j) in jobs {
        for h in j.health.iter().filter(|h| h.samples.len() >= 2) {
            let secs = |ms: u64| ms as f64 / 1000.0;
            let who = format!("{} {}", j.name, h.drive);
            series.push(Series {
                name: name(runs, r, &format!("{who} temperature")),
                points: h
                    .temperature_series()
                    .iter()
                    .map(|(t, c)| (*t as f64 / 1000.0, *c))
                    .collect(),
                dashed: dashed(runs, r),
            });
            let threshold: Vec<(f64, f64)> = h
                .samples
                .iter()
                .filter(|s| s.threshold_k > 0)
                .map(|s| (secs(s.at_ms), f64::from(celsius(s.threshold_k))))
                .collect();
            if !threshold.is_empty() {
                series.push(Series {
                    name: name(runs, r, &format!("{who} warning threshold")),
                    points: threshold,
                    dashed: true,
                });
            }
            let first = h.samples[0].critical_warning;
            if let Some(s) = h.samples.iter().find(|s| s.critical_warning & !first != 0) {
                marks.push(Mark {
                    x: secs(s.at_ms),
                    label: format!("{}: critical warning", h.drive),
                });
            }
        }
    }
    if series.is_empty() {
        return None;
    }
    let mut c = Chart::lines(
        id,
        title,
        axis(
            "Time from the job's start (s)",
            ScaleKind::Linear,
            Format::Plain,
        ),
        axis(
            "Composite temperature (°C)",
            ScaleKind::Linear,
            Format::Plain,
        ),
        series,
    );
    c.marks = marks;
    Some(c)
}

/// Each run's drive health in words, and its jobs' temperature where the log was sampled.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs {
        let lines = record_lines(r.jobs());
        if lines.is_empty() {
            continue;
        }
        let _ = write!(html, "<p><b>{}</b></p><ul>", esc(&r.label()));
        for l in &lines {
            let class = if l.contains("no throttling") || l.contains("no health log") {
                ""
            } else {
                " class=\"warn\""
            };
            let _ = write!(html, "<li{class}>{}</li>", esc(l));
        }
        html.push_str("</ul>");
        // Review steps draw theirs beside their own figures (consistency); a run's jobs here.
        if r.detail.steps.is_empty() {
            let jobs = r.jobs().iter().map(|j| (r, j));
            if let Some(c) = temperature_chart(
                &format!("temperature-{}", r.id()),
                &format!("{}: drive temperature over the run", r.label()),
                runs,
                jobs,
            ) {
                html.push_str(&chart_block(&c));
            }
        }
    }
    (!html.is_empty()).then(|| Section::new("health", "Drive health", html))
}
