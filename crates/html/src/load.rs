//! The load step's section: per workload, the hockey stick (response-time percentiles and
//! fio's lat p99 against the offered load, which only rises, where the achieved one doubles
//! back once the device is overloaded), the knee and the objective's point marked, and a
//! table of the points with the achieved load beside. Points where the generator fell
//! behind measured the machine: they stay in the table, out of the lines.

use std::fmt::Write as _;

use iolab_report::format::{compact, micros};
use iolab_results::review::{self, LoadCurve, LoadMark, LoadPoint, LoadStep};

use crate::chart::{esc, Chart, Format, Mark, ScaleKind, Series};
use crate::data::RunData;
use crate::page::{chart_block, Section};
use crate::sections::{axis, dashed, name, run_note, step_data};

/// The section, when any run has a load step with points.
pub fn section(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for rw in ["randread", "randwrite", "randrw"] {
        let mut series = Vec::new();
        let mut marks = Vec::new();
        let mut tables = String::new();
        let mut caveats = String::new();
        for r in runs {
            let Some(data) = step_data(r, "load") else {
                continue;
            };
            let data: LoadStep = review::read(data);
            let Some(c) = data.curves.iter().find(|c| c.rw == rw) else {
                continue;
            };
            if c.points.is_empty() {
                continue;
            }
            type Pick = fn(&LoadPoint) -> Option<f64>;
            let lines: [(Pick, &str, bool); 3] = [
                (|p| p.response_p99_ns, "response p99", false),
                (|p| p.response_p999_ns, "response p99.9", false),
                (|p| p.lat_p99_ns, "lat p99 (fio's, from issue)", true),
            ];
            for (pick, what, fios) in lines {
                series.push(Series {
                    name: name(runs, r, what),
                    points: c
                        .points
                        .iter()
                        .filter(|p| p.behind.as_deref() != Some("generator"))
                        .filter_map(|p| Some((p.offered_iops, pick(p)?)))
                        .collect(),
                    dashed: dashed(runs, r) || fios,
                });
            }
            marks.extend(curve_marks(runs, r, &data, c));
            // What the terminal said of this curve, beside its chart.
            let said = std::iter::once(&c.busy)
                .chain(&c.caveats)
                .filter(|l| !l.is_empty());
            for line in said {
                caveats.push_str(&run_note(runs, r, "caveat", line));
            }
            // The objective no load met: the terminal says so, and so does the page, where
            // its mark would have been.
            if let (Some(slo), None) = (&data.slo, &c.slo) {
                let line = format!("{}: not met at any load", slo.label);
                caveats.push_str(&run_note(runs, r, "caveat", &line));
            }
            tables.push_str(&points_table(runs, r, &c.points));
        }
        if series.is_empty() {
            continue;
        }
        // Every point's generator fell behind: no curve of the device to draw. Said in the
        // chart's place, with the points' table below it.
        series.retain(|s| !s.points.is_empty());
        if series.is_empty() {
            let _ = write!(
                html,
                "<p class=\"note\">4 KiB {rw}: no point of this curve is drawn: at every \
                 load the generator fell behind its due times, so they measured this machine \
                 (too busy for the curve), not the device. The table keeps every point.</p>"
            );
            html.push_str(&caveats);
            html.push_str(&tables);
            continue;
        }
        let chart = Chart {
            id: format!("load-{rw}"),
            title: format!(
                "4 KiB {} under load, open loop: latency against offered IOPS",
                match rw {
                    "randread" => "random read",
                    "randwrite" => "random write",
                    _ => "random 70/30 read/write",
                }
            ),
            x: axis("Offered IOPS", ScaleKind::Linear, Format::Count),
            y: axis("Latency", ScaleKind::Log10, Format::Nanos),
            series,
            marks,
            lines: true,
            y_switch: false,
            labels: Vec::new(),
        };
        html.push_str(&chart_block(&chart));
        html.push_str(&caveats);
        html.push_str(&tables);
    }
    (!html.is_empty()).then(|| {
        Section::new(
            "load",
            "Latency under load",
            format!(
                "<p>Open loop: each I/O goes at its due time whether or not earlier ones \
                 completed, so a stall shows in the response time (due → completion) that \
                 fio's lat (issue → completion) leaves out. The knee is the first load whose \
                 response p99 passes k times the lightest load's.</p>{html}"
            ),
        )
    })
}

/// The knee and the objective's point of one run's curve, as marks at their offered IOPS
/// (labelled with the achieved).
fn curve_marks(runs: &[RunData], r: &RunData, data: &LoadStep, c: &LoadCurve) -> Vec<Mark> {
    let who = if runs.len() > 1 {
        format!(" (run {})", r.id())
    } else {
        String::new()
    };
    let mut marks = Vec::new();
    let peak = c.peak_iops.unwrap_or(0.0);
    let at = |m: &Option<LoadMark>| {
        let m = m.as_ref()?;
        let offered = m.offered_iops.unwrap_or(m.share * peak);
        Some((offered, m.achieved_iops?))
    };
    if let Some((x, achieved)) = at(&c.knee) {
        let share = c.knee.as_ref().map_or(0.0, |k| k.share) * 100.0;
        marks.push(Mark {
            x,
            label: format!("knee at {share:.0}% ({} achieved){who}", compact(achieved)),
        });
    }
    if let Some((x, achieved)) = at(&c.slo) {
        let slo = data.slo.as_ref().map_or("objective", |s| s.label.as_str());
        marks.push(Mark {
            x,
            label: format!("{slo}: {} IOPS achieved{who}", compact(achieved)),
        });
    }
    marks
}

/// The points of one run's curve as a table.
fn points_table(runs: &[RunData], r: &RunData, pts: &[LoadPoint]) -> String {
    let mut t = String::from(
        "<table class=\"load\"><thead><tr><th>load</th><th>offered IOPS</th>\
         <th>achieved IOPS</th><th>lat p99</th><th>resp mean</th><th>resp p99</th>\
         <th>resp p99.9</th><th>late p99</th><th>carried</th></tr></thead><tbody>",
    );
    if runs.len() > 1 {
        let _ = write!(t, "<caption>{}</caption>", esc(&r.label()));
    }
    let ns = |v: Option<f64>| v.map_or("-".to_string(), micros);
    for p in pts {
        let carried = p.carried;
        let cell = match p.behind.as_deref() {
            _ if carried => "yes".to_string(),
            Some(who) => format!("no: {who}"),
            None => "no".to_string(),
        };
        let _ = write!(
            t,
            "<tr><td>{:.0}%</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td{}>{}</td></tr>",
            p.share * 100.0,
            compact(p.offered_iops),
            compact(p.achieved_iops),
            esc(&ns(p.lat_p99_ns)),
            esc(&ns(p.response_mean_ns)),
            esc(&ns(p.response_p99_ns)),
            esc(&ns(p.response_p999_ns)),
            esc(&ns(p.lateness_p99_ns)),
            if carried { "" } else { " class=\"na\"" },
            esc(&cell),
        );
    }
    t.push_str("</tbody></table>");
    t
}
