//! The report's sections, each built from whatever runs carry its data (absent otherwise):
//! header, QD1 engine tables, queue-depth sweep, transfer size, latency distribution,
//! consistency, profiles, the application load (iolab kv) and the latency ladder.

pub(crate) use crate::utc::when;
use std::fmt::Write as _;

use iolab_report::format::{compact, micros};
use serde_json::Value;

use iolab_results::review::{
    self, Figures, InfoHost, InfoStep, ProfilesStep, Qd1Cell, Qd1Step, SweepStep, TransferStep,
};
use iolab_results::{About, JobRecord, Note, NoteKind};

use crate::chart::{esc, Axis, Chart, Format, Mark, ScaleKind, Series};
use crate::data::RunData;
use crate::ladder;
use crate::page::{chart_block, Section};
use iolab_report::best::{legend, mark, Better, Candidate, Marked};

/// A series name: `what` alone for one run, prefixed with the run when overlaid.
pub(crate) fn name(runs: &[RunData], r: &RunData, what: &str) -> String {
    if runs.len() > 1 {
        format!("{} · {what}", r.label())
    } else {
        what.to_string()
    }
}

/// A line the terminal said of one run's step, as a note on the page (named by its run when
/// runs are overlaid); `class` adds to `note` (`caveat`: beside the chart it concerns).
pub(crate) fn run_note(runs: &[RunData], r: &RunData, class: &str, line: &str) -> String {
    format!(
        "<p class=\"note {class}\">{}</p>",
        esc(&name(runs, r, line))
    )
}

pub(crate) fn dashed(runs: &[RunData], r: &RunData) -> bool {
    runs.iter().position(|x| x.id() == r.id()).unwrap_or(0) > 0
}

pub(crate) fn step_data<'a>(r: &'a RunData, step: &str) -> Option<&'a Value> {
    r.detail
        .step(step)
        .filter(|s| s.status != "skipped")
        .map(|s| &s.data)
}

pub(crate) fn axis(title: &str, scale: ScaleKind, format: Format) -> Axis {
    Axis {
        title: title.into(),
        scale,
        format,
    }
}

/// Device, host, kernel, iolab version, date, effort profile and clock source of each run.
pub fn header(runs: &[RunData]) -> Section {
    let mut t = String::from(
        "<table class=\"facts\"><thead><tr><th>run</th><th>kind</th><th>device</th><th>target</th><th>host</th><th>kernel</th><th>iolab</th><th>date</th><th>profile</th><th>clock</th></tr></thead><tbody>",
    );
    for r in runs {
        let d = &r.detail;
        let info: InfoHost = step_data(r, "info")
            .and_then(|i| review::read::<InfoStep>(i).host)
            .unwrap_or_default();
        let host = &d.host;
        let governor = info
            .governor
            .map_or(String::new(), |g| format!(", governor {g}"));
        let clock = match (d.clock_source.as_deref(), info.kernel_clocksource) {
            (Some(c), Some(k)) => format!("iolab {c}, kernel {k}"),
            (Some(c), None) => format!("iolab {c}"),
            (None, _) => "-".into(),
        };
        let facts = d.facts();
        let profile = facts
            .profile
            .map(str::to_string)
            .or_else(|| facts.num.map(|n| format!("{} keys", compact(n as f64))))
            .unwrap_or_else(|| "-".into());
        let target = facts
            .target
            .or(facts.dir)
            .map(str::to_string)
            .or_else(|| d.jobs.first().map(|j| j.target.clone()))
            .unwrap_or_default();
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{} ({})</td><td>{}</td><td>{}</td><td>{} ({}, {} CPUs{governor})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.id(),
            esc(&d.kind),
            esc(&d.status),
            esc(&r.device()),
            esc(&target),
            esc(&host.hostname),
            esc(&host.cpu_model),
            host.cpus,
            esc(&host.kernel),
            esc(&d.iolab_version),
            when(d.started_ms),
            esc(&profile),
            esc(&clock),
        );
    }
    t.push_str("</tbody></table>");
    for r in runs {
        t.push_str(&distortions(r));
    }
    Section::new("header", "Runs", t)
}

/// What distorted a run's figures when it began (doctor's checks), as a note to set beside
/// its figures; empty when nothing did.
pub(crate) fn distortions(r: &RunData) -> String {
    let bad: Vec<String> = r
        .detail
        .host
        .machine
        .iter()
        .filter(|c| c.verdict == iolab_results::Verdict::Distorts)
        .map(|c| format!("{} {}", c.name, c.value))
        .collect();
    match bad.is_empty() {
        true => String::new(),
        false => format!(
            "<p class=\"note distorted\">{}: the machine distorted its figures: {}</p>",
            esc(&r.label()),
            esc(&bad.join("; "))
        ),
    }
}

/// One QD1 table per run and direction: metrics as rows, engines as columns, best marked.
pub fn qd1(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for r in runs {
        let Some(data) = step_data(r, "qd1-engines") else {
            continue;
        };
        let step: Qd1Step = review::read(data);
        let notes = qd1_step_notes(r, &step);
        for (rw, title) in [
            ("randread", "4 KiB random read, QD1"),
            ("randwrite", "4 KiB random write, QD1"),
        ] {
            let row: Vec<&Qd1Cell> = step.cells.iter().filter(|c| c.rw == rw).collect();
            if row.is_empty() {
                continue;
            }
            let title = match runs.len() {
                1 => esc(title),
                _ => format!("{} — {}", esc(title), esc(&r.label())),
            };
            qd1_table(&mut html, r, rw, &title, &row);
            qd1_notes(&mut html, &notes, rw, &row);
        }
    }
    (!html.is_empty()).then(|| {
        Section::new(
            "qd1",
            "QD1 engines",
            format!("<p>4 KiB random I/O at queue depth 1 through every I/O path (the SPDK blog's tables); ★ = best beyond the 95 % intervals of the cells' rounds (a tie is said so; under each table, what its marks stand on); CPU % is never marked (a path doing little work uses little CPU: IOPS per CPU-second is the efficiency); the null engine, which does no I/O, and a path whose reads the device did not serve are never marked.</p>{html}"),
        )
    })
}

type Getter<'a> = Box<dyn Fn(&Qd1Cell) -> Option<f64> + 'a>;

/// One metric row of a QD1 table: its label, how to read it from a cell, its format, which
/// way is better, the name of its rounds' interval, if they keep one, and its percentile
/// for a tail latency (marked only with enough I/Os beyond it).
struct Qd1Metric<'a>(
    &'static str,
    Getter<'a>,
    Format,
    Better,
    Option<&'static str>,
    Option<f64>,
);

/// The rows of a QD1 table: the step's figures, and the CPU of each cell's job.
fn qd1_metrics<'a>(r: &'a RunData, rw: &'a str) -> [Qd1Metric<'a>; 6] {
    let job = move |engine: &str| {
        r.jobs()
            .iter()
            .find(|j| j.step == "qd1-engines" && j.rw == rw && j.engine == engine)
    };
    let fig = |c: &Qd1Cell, f: fn(&Figures) -> Option<f64>| c.figures.as_ref().and_then(f);
    [
        Qd1Metric(
            "IOPS",
            Box::new(move |c| fig(c, |f| f.iops)),
            Format::Count,
            Better::Higher,
            Some("iops"),
            None,
        ),
        Qd1Metric(
            "Mean latency",
            Box::new(move |c| fig(c, |f| f.mean_ns).filter(|v| *v > 0.0)),
            Format::Nanos,
            Better::Lower,
            Some("lat_mean_ns"),
            None,
        ),
        Qd1Metric(
            "99th percentile",
            Box::new(move |c| fig(c, |f| f.p99_ns).filter(|v| *v > 0.0)),
            Format::Nanos,
            Better::Lower,
            Some("lat_p99_ns"),
            Some(99.0),
        ),
        Qd1Metric(
            "99.999th percentile",
            Box::new(move |c| fig(c, |f| f.p99999_ns).filter(|v| *v > 0.0)),
            Format::Nanos,
            Better::Lower,
            Some("lat_p99.999_ns"),
            Some(99.999),
        ),
        Qd1Metric(
            "CPU (% of a core)",
            // A column measured elsewhere (--with) carries its own.
            Box::new(move |c| fig(c, |f| f.cpu_pct).or_else(|| job(&c.engine)?.cpu_percent())),
            Format::Plain,
            // Low for an efficient path and for one that did little: never marked.
            Better::Neither,
            None,
            None,
        ),
        Qd1Metric(
            "IOPS per CPU-second",
            Box::new(move |c| {
                fig(c, |f| f.iops_per_cpu_sec)
                    .or_else(|| Some(job(&c.engine)?.cpu.iops_per_cpu_sec))
                    .filter(|v| *v > 0.0)
            }),
            Format::Count,
            Better::Higher,
            None,
            None,
        ),
    ]
}

fn qd1_table(html: &mut String, r: &RunData, rw: &str, title: &str, row: &[&Qd1Cell]) {
    let _ = write!(
        html,
        "<h3>{title}</h3><table class=\"qd1\"><thead><tr><th></th>"
    );
    for c in row {
        let _ = write!(html, "<th>{}</th>", esc(&c.engine));
    }
    html.push_str("</tr></thead><tbody>");
    let mut marks = Vec::new();
    for m in &qd1_metrics(r, rw) {
        marks.push((m.0, qd1_row(html, row, m)));
    }
    html.push_str("</tbody></table>");
    // What this table's marks stand on, from the marks its rows earned.
    let rounds = row
        .iter()
        .filter_map(|c| c.repeats.as_ref().map(|r| r.count))
        .max()
        .unwrap_or(1);
    let rows: Vec<(&str, &Marked)> = marks.iter().map(|(t, m)| (*t, m)).collect();
    for line in legend(&rows, rounds) {
        let _ = write!(html, "<p class=\"note legend\">{}</p>", esc(&line));
    }
    let na: Vec<String> = row
        .iter()
        .filter_map(|c| Some(format!("{}: {}", c.engine, c.unavailable.as_deref()?)))
        .collect();
    if !na.is_empty() {
        let _ = write!(html, "<p class=\"note\">n/a — {}</p>", esc(&na.join("; ")));
    }
    // The kernel's word on a path it did not serve as asked, as the terminal printed it.
    let mut seen: Vec<&str> = Vec::new();
    for c in row {
        let engine = c.engine.as_str();
        if let Some(why) = &c.fallback {
            if !seen.contains(&engine) {
                seen.push(engine);
                let _ = write!(
                    html,
                    "<p class=\"note fallback\">† {}: not the path asked for, never marked best — {}</p>",
                    esc(engine),
                    esc(why)
                );
            }
        }
    }
}

/// What the QD1 step noticed, as it kept it; for a run stored before steps kept their notes,
/// its cells' jobs' notes (each said of its cell).
fn qd1_step_notes(r: &RunData, step: &Qd1Step) -> Vec<Note> {
    if let Some(notes) = &step.notes {
        return notes.clone();
    }
    let mut out: Vec<Note> = Vec::new();
    for j in r.jobs().iter().filter(|j| j.step == "qd1-engines") {
        for n in &j.notes {
            if !out.iter().any(|o| o.text == *n) {
                let about = About::Path {
                    path: j.engine.clone(),
                };
                out.push(Note::new(about, NoteKind::Caveat, n.clone()));
            }
        }
    }
    out
}

/// The notes that qualify a QD1 table's figures, under it, as the terminal printed them:
/// the run's (what the target held, under the reads' table), then its paths' and cells'.
fn qd1_notes(html: &mut String, notes: &[Note], rw: &str, row: &[&Qd1Cell]) {
    let workload = row.iter().find_map(|c| c.workload.as_deref());
    let paths: Vec<&str> = row.iter().map(|c| c.engine.as_str()).collect();
    let reads = rw.contains("read");
    for n in notes {
        let shown = match &n.about {
            About::Run => n.qualifies("", reads),
            About::Path { path } => paths.contains(&path.as_str()),
            // Before cells kept their workload's title, a cell's note goes under every table.
            About::Cell { path, workload: w } => {
                paths.contains(&path.as_str()) && workload.is_none_or(|t| t == w)
            }
        };
        // A path not served as asked is said by the table's † line, with the kernel's word.
        if shown && n.kind != NoteKind::Fallback {
            let class = match n.kind {
                NoteKind::Stored => "note stored",
                _ => "note caveat",
            };
            let _ = write!(html, "<p class=\"{class}\">note: {}</p>", esc(&n.text));
        }
    }
}

/// One metric across the engines, the best marked (the null engine does no I/O, and a cell
/// that fell back to another path measured that path: shown, never best).
fn qd1_row(
    html: &mut String,
    row: &[&Qd1Cell],
    Qd1Metric(label, get, format, better, interval, tail): &Qd1Metric<'_>,
) -> Marked {
    let vals: Vec<Option<f64>> = row
        .iter()
        .map(|c| c.figures.as_ref().and_then(|_| get(c)))
        .collect();
    let candidates: Vec<Option<Candidate>> = row
        .iter()
        .zip(&vals)
        .map(|(c, v)| {
            let may = !c.is_reference() && c.fallback.is_none();
            let span = interval.and_then(|k| c.repeats.as_ref()?.interval(k));
            let ios = c.figures.and_then(|f| f.ios).unwrap_or(0.0);
            v.filter(|_| may).map(|value| {
                let c = Candidate::new(value, span);
                match tail {
                    Some(q) => c.tail(*q, ios),
                    None => c,
                }
            })
        })
        .collect();
    let marked = mark(&candidates, *better);
    let _ = write!(html, "<tr><th>{label}</th>");
    // A tail percentile the cell's I/Os cannot resolve is its slowest I/O: said so.
    let shown = |c: &Qd1Cell, v: f64| {
        let ios = c.figures.and_then(|f| f.ios).unwrap_or(0.0);
        match tail {
            Some(q) if ios > 0.0 && ios < 100.0 / (100.0 - q) => {
                format!("max {}", format.apply(v))
            }
            _ => format.apply(v),
        }
    };
    for (i, (c, v)) in row.iter().zip(&vals).enumerate() {
        let _ = match v {
            Some(v) if c.fallback.is_some() => write!(
                html,
                "<td class=\"fallback\" title=\"{}\">{} †</td>",
                esc(c.fallback.as_deref().unwrap_or_default()),
                esc(&shown(c, *v))
            ),
            Some(v) if marked.is_best(i) => write!(
                html,
                "<td class=\"best\"><strong>{}</strong> ★</td>",
                esc(&shown(c, *v))
            ),
            Some(v) if marked.ties(i) => write!(
                html,
                "<td class=\"tie\" title=\"within the others' 95% intervals\">{} (tie)</td>",
                esc(&shown(c, *v))
            ),
            Some(v) => write!(html, "<td>{}</td>", esc(&shown(c, *v))),
            None => {
                let why = c.unavailable.as_deref().unwrap_or("");
                write!(html, "<td class=\"na\" title=\"{}\">n/a</td>", esc(why))
            }
        };
    }
    html.push_str("</tr>");
    marked
}

/// IOPS and latency against queue depth, the saturation point marked.
pub fn sweep(runs: &[RunData]) -> Option<Section> {
    let mut iops = Vec::new();
    let mut mean = Vec::new();
    let mut p99 = Vec::new();
    let mut marks = Vec::new();
    let mut caveats = String::new();
    for r in runs {
        let Some(data) = step_data(r, "qd-sweep") else {
            continue;
        };
        let data: SweepStep = review::read(data);
        // What the terminal said of the sweep: an undetermined saturation, a disagreement
        // with the QD1 table.
        for c in &data.caveats {
            caveats.push_str(&run_note(runs, r, "caveat", c));
        }
        let engine = &data.engine;
        for rw in ["randread", "randwrite"] {
            let pts: Vec<(f64, Figures)> = data
                .points
                .iter()
                .filter(|p| p.rw == rw)
                .filter_map(|p| Some((f64::from(p.qd), p.figures?)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let series = |f: fn(&Figures) -> Option<f64>, what: &str| Series {
                name: name(runs, r, &format!("{rw} {what}{engine}")),
                points: pts.iter().filter_map(|(q, p)| Some((*q, f(p)?))).collect(),
                dashed: dashed(runs, r),
            };
            iops.push(series(|f| f.iops, ""));
            mean.push(series(|f| f.mean_ns, "mean, "));
            p99.push(series(|f| f.p99_ns, "p99, "));
            if let Some(q) = data.saturation.get(rw).and_then(|s| s.qd) {
                let who = if runs.len() > 1 {
                    format!(" (run {})", r.id())
                } else {
                    String::new()
                };
                marks.push(Mark {
                    x: f64::from(q),
                    label: format!(
                        "{} saturates at QD{q}{who}",
                        if rw == "randread" { "read" } else { "write" }
                    ),
                });
            }
        }
    }
    if iops.is_empty() {
        return None;
    }
    let qd_axis = || axis("Queue depth", ScaleKind::Log2, Format::Plain);
    let iops_chart = Chart {
        id: "sweep-iops".into(),
        title: "4 KiB random IOPS vs queue depth".into(),
        x: qd_axis(),
        y: axis("IOPS", ScaleKind::Linear, Format::Count),
        series: iops,
        marks: marks.clone(),
        lines: true,
        y_switch: false,
        labels: Vec::new(),
    };
    let mut lat = mean;
    lat.extend(p99);
    let lat_chart = Chart {
        id: "sweep-latency".into(),
        title: "Mean and 99th percentile latency vs queue depth".into(),
        x: qd_axis(),
        y: axis("Latency", ScaleKind::Log10, Format::Nanos),
        series: lat,
        marks,
        lines: true,
        y_switch: false,
        labels: Vec::new(),
    };
    Some(Section::new(
        "sweep",
        "Queue-depth sweep",
        format!(
            "<p>One thread, the best async path; the saturation point is the smallest queue depth within the tolerance of the peak IOPS, read from a rising fit of the points (undetermined where they scatter more than the tolerance can tell).</p>{}{caveats}{}",
            chart_block(&iops_chart),
            chart_block(&lat_chart)
        ),
    ))
}

/// MB/s against transfer size: random (block- and 512 B-aligned) and sequential, each with a
/// linear/log switch.
pub fn transfer(runs: &[RunData]) -> Option<Section> {
    let groups: [(&str, &str, &[&str]); 2] = [
        (
            "transfer-random",
            "QD1 random transfers: MB/s vs size",
            &[
                "rand read",
                "rand read 512B-al",
                "rand write",
                "rand write 512B-al",
            ],
        ),
        (
            "transfer-sequential",
            "QD1 sequential transfers: MB/s vs size",
            &["seq read", "seq write"],
        ),
    ];
    let mut html = String::new();
    let mut na = String::new();
    for (id, title, variants) in groups {
        let mut series = Vec::new();
        for r in runs {
            let Some(data) = step_data(r, "transfer-size") else {
                continue;
            };
            let data: TransferStep = review::read(data);
            // Why a size has no figure, once per series, as the terminal said it.
            for v in variants.iter() {
                let why = data
                    .points
                    .iter()
                    .filter(|p| p.variant == *v)
                    .find_map(|p| p.unavailable.as_deref());
                if let Some(why) = why {
                    na.push_str(&run_note(runs, r, "caveat", &format!("n/a — {v}: {why}")));
                }
            }
            for v in variants {
                let pts: Vec<(f64, f64)> = data
                    .points
                    .iter()
                    .filter(|p| p.variant == *v)
                    .filter_map(|p| Some((f64::from(p.bs), p.figures?.bw_bytes? / 1e6)))
                    .collect();
                if !pts.is_empty() {
                    let what = v.replace("512B-al", "(512 B-aligned)");
                    series.push(Series {
                        name: name(runs, r, &what),
                        points: pts,
                        dashed: dashed(runs, r),
                    });
                }
            }
        }
        if series.is_empty() {
            continue;
        }
        let mut chart = Chart::lines(
            id,
            title,
            axis("Transfer size", ScaleKind::Log2, Format::Bytes),
            axis("Throughput (MB/s)", ScaleKind::Linear, Format::Plain),
            series,
        );
        chart.y_switch = true;
        html.push_str(&chart_block(&chart));
    }
    html.push_str(&na);
    (!html.is_empty()).then(|| {
        Section::new(
            "transfer",
            "Transfer size",
            format!("<p>QD1, 512 B to 1 MiB (the AnandTech charts); 512 B-aligned variants put offsets on 512 B boundaries only. Switch the throughput axis between linear and logarithmic.</p>{html}"),
        )
    })
}

/// `random read` / `random write` for a review's `randread` / `randwrite`.
fn rw_words(rw: &str) -> &'static str {
    if rw == "randread" {
        "random read"
    } else {
        "random write"
    }
}

/// One series per job of `runs` that `pick` chooses and that has a percentile curve.
fn curve_series(runs: &[RunData], pick: impl Fn(&JobRecord) -> bool) -> Vec<Series> {
    let mut out = Vec::new();
    for r in runs {
        for j in r.jobs().iter().filter(|j| pick(j)) {
            if let Some(c) = r.curves.get(&j.id) {
                out.push(Series {
                    name: name(runs, r, &j.engine),
                    points: c.clone(),
                    dashed: dashed(runs, r),
                });
            }
        }
    }
    out
}

/// Percentile curves on the nines axis per engine (QD1), and polling vs interrupts.
pub fn distribution(runs: &[RunData]) -> Option<Section> {
    let nines = || axis("Percentile", ScaleKind::Nines, Format::Percentile);
    let latency = || axis("Latency", ScaleKind::Log10, Format::Nanos);
    let mut html = String::new();
    for rw in ["randread", "randwrite"] {
        let series = curve_series(runs, |j| {
            j.step == "qd1-engines" && j.rw == rw && j.engine != "null"
        });
        if series.is_empty() {
            continue;
        }
        html.push_str(&chart_block(&Chart::lines(
            &format!("distribution-{rw}"),
            &format!("QD1 4 KiB {} latency distribution per engine", rw_words(rw)),
            nines(),
            latency(),
            series,
        )));
        html.push_str(&tail_note(runs, |j| {
            j.step == "qd1-engines" && j.rw == rw && j.engine != "null"
        }));
    }
    let poll = curve_series(runs, |j| j.step == "poll-vs-irq");
    if !poll.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            "poll-vs-irq",
            "QD1 4 KiB random read: polling vs interrupts",
            nines(),
            latency(),
            poll,
        )));
        html.push_str(&tail_note(runs, |j| j.step == "poll-vs-irq"));
    } else if let Some(s) = runs.iter().find_map(|r| {
        r.detail
            .step("poll-vs-irq")
            .filter(|s| s.status == "skipped")
    }) {
        let _ = write!(
            html,
            "<p class=\"note\">Polling vs interrupts: not measured — {}</p>",
            esc(&s.reason)
        );
    }
    (!html.is_empty()).then(|| {
        Section::new(
            "distribution",
            "Latency distribution",
            format!("<p>Percentiles of every I/O's latency, recomputed from the stored histograms, on a \"nines\" axis (the PC Perspective charts).</p>{html}"),
        )
    })
}

/// How far into the tail the curves of the jobs `pick` chooses can be trusted: fio's rule of
/// thumb is 10^n samples for n nines, so a curve from 20k I/Os carries four (p99.99) and its
/// points beyond rest on fewer than ten I/Os each. Empty when every curve carries six nines.
fn tail_note(runs: &[RunData], pick: impl Fn(&JobRecord) -> bool) -> String {
    let fewest = runs
        .iter()
        .flat_map(|r| r.jobs().iter().filter(|j| pick(j)))
        .filter_map(|j| {
            let dir = j
                .directions()
                .into_iter()
                .find(|d| ["read", "write", "trim"].contains(d))?;
            j.metric(dir, "ios")
        })
        .filter(|n| *n > 0.0)
        .fold(f64::INFINITY, f64::min);
    if !fewest.is_finite() || fewest >= 1e6 {
        return String::new();
    }
    let nines = fewest.log10().floor().max(0.0) as usize;
    let trusted = match nines {
        0 | 1 => "none of the tail".to_string(),
        2 => "up to p99 (2 nines)".to_string(),
        n => format!("up to p99.{} ({n} nines)", "9".repeat(n - 2)),
    };
    format!(
        "<p class=\"note\">Tail: the fewest I/Os behind a curve here is {}; by fio's rule of thumb \
         (10<sup>n</sup> samples for n nines) that carries {trusted}. Points further right \
         rest on too few I/Os to mean much; a longer run (--runtime) carries more.</p>",
        esc(&Format::Count.apply(fewest))
    )
}

/// Per-second p50/p99/p99.99/max over the consistency run.
pub fn consistency(runs: &[RunData]) -> Option<Section> {
    let mut html = String::new();
    for rw in ["randread", "randwrite"] {
        let mut series = Vec::new();
        for r in runs {
            for j in r
                .jobs()
                .iter()
                .filter(|j| j.step == "consistency" && j.rw == rw)
            {
                let dir = if rw == "randread" { "read" } else { "write" };
                for (key, what) in [
                    ("lat_p50_ns", "p50"),
                    ("lat_p99_ns", "p99"),
                    ("lat_p99.99_ns", "p99.99"),
                    ("lat_max_ns", "max"),
                    // The latency split, where the job was split: whose the p99 was.
                    ("split_device_p99_ns", "device p99"),
                    ("split_host_p99_ns", "host p99 (submit + completion)"),
                ] {
                    let pts: Vec<(f64, f64)> = r
                        .series(j.id, dir, key)
                        .iter()
                        .map(|(t, v)| (*t as f64 / 1000.0, *v))
                        .collect();
                    if !pts.is_empty() {
                        series.push(Series {
                            name: name(runs, r, what),
                            points: pts,
                            dashed: dashed(runs, r),
                        });
                    }
                }
            }
        }
        if series.is_empty() {
            continue;
        }
        html.push_str(&chart_block(&Chart::lines(
            &format!("consistency-{rw}"),
            &format!("QD1 4 KiB {} latency, second by second", rw_words(rw)),
            axis("Time (s)", ScaleKind::Linear, Format::Plain),
            axis("Latency", ScaleKind::Log10, Format::Nanos),
            series,
        )));
        // The drive's temperature over the same seconds, from its health log.
        let jobs = runs.iter().flat_map(|r| {
            r.jobs()
                .iter()
                .filter(move |j| j.step == "consistency" && j.rw == rw)
                .map(move |j| (r, j))
        });
        if let Some(c) = crate::health::temperature_chart(
            &format!("consistency-{rw}-temperature"),
            &format!(
                "Drive temperature during the {} consistency run",
                rw_words(rw)
            ),
            runs,
            jobs,
        ) {
            html.push_str(&chart_block(&c));
        }
    }
    (!html.is_empty()).then(|| Section::new("consistency", "Consistency", html))
}

/// The hosting review's table: runs as rows, profiles as columns.
pub fn profiles(runs: &[RunData]) -> Option<Section> {
    let mut cols: Vec<(String, String)> = Vec::new();
    for r in runs {
        if let Some(d) = step_data(r, "profiles") {
            for p in review::read::<ProfilesStep>(d).points {
                let c = (p.profile, p.rw);
                if !cols.contains(&c) {
                    cols.push(c);
                }
            }
        }
    }
    if cols.is_empty() {
        return None;
    }
    let mut t = String::from("<table class=\"profiles\"><thead><tr><th>run</th>");
    for (p, rw) in &cols {
        let _ = write!(t, "<th>{} {}</th>", esc(p), esc(rw));
    }
    t.push_str("</tr></thead><tbody>");
    for r in runs {
        let Some(d) = step_data(r, "profiles") else {
            continue;
        };
        let d: ProfilesStep = review::read(d);
        let _ = write!(t, "<tr><th>{}</th>", esc(&r.label()));
        for (p, rw) in &cols {
            let cell = d.points.iter().find(|x| x.profile == *p && x.rw == *rw);
            match cell
                .and_then(|c| c.figures)
                .and_then(|f| Some((f.iops?, f.bw_bytes?, f.mean_ns?)))
            {
                Some((iops, bw, mean)) => {
                    let _ = write!(
                        t,
                        "<td>{} IOPS<br>{:.0} MB/s<br>{}</td>",
                        compact(iops),
                        bw / 1e6,
                        esc(&micros(mean))
                    );
                }
                None => t.push_str("<td class=\"na\">n/a</td>"),
            }
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>");
    Some(Section::new("profiles", "Profiles", format!("<p>The hosting review's profiles: 4 KiB random at QD1, 16 and 128; 4 MiB at QD32.</p>{t}")))
}

/// `iolab kv` runs: the workloads table and db_bench's ops/s with the device's MB/s over time.
pub fn application(runs: &[RunData]) -> Option<Section> {
    let kv: Vec<&RunData> = runs
        .iter()
        .filter(|r| r.jobs().iter().any(|j| j.engine == "db_bench"))
        .collect();
    if kv.is_empty() {
        return None;
    }
    let mut t = String::from("<table class=\"kv\"><thead><tr><th>run</th><th>workload</th><th>threads</th><th>ops/s</th><th>MB/s</th><th>time</th><th>P50</th><th>P99</th><th>P99.99</th><th>device MB/s</th><th>device QD</th></tr></thead><tbody>");
    let mut ops = Vec::new();
    let mut disk = Vec::new();
    for r in &kv {
        for j in r.jobs().iter().filter(|j| j.engine == "db_bench") {
            let a = |n: &str| j.metric("app", n);
            let d = |n: &str| j.metric("disk", n);
            let f = |v: Option<f64>, fmt: &dyn Fn(f64) -> String| v.map_or("-".to_string(), fmt);
            let _ = write!(
                t,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.label()),
                esc(&j.name),
                j.iodepth,
                f(a("ops_per_sec"), &compact),
                f(a("mb_per_sec"), &|v| format!("{v:.1}")),
                f(a("seconds"), &|v| format!("{v:.2} s")),
                f(a("p50_us"), &|v| micros(v * 1e3)),
                f(a("p99_us"), &|v| micros(v * 1e3)),
                f(a("p99.99_us"), &|v| micros(v * 1e3)),
                f(d("mb_per_sec_mean"), &|v| format!("{v:.1}")),
                f(d("queue_depth_mean"), &|v| format!("{v:.2}")),
            );
            let what = |s: &str| {
                if kv.len() > 1 {
                    format!("{} · {} {s}", r.label(), j.name)
                } else {
                    format!("{} {s}", j.name)
                }
            };
            let sec = |v: &[(i64, f64)]| {
                v.iter()
                    .map(|(t, y)| (*t as f64 / 1000.0, *y))
                    .collect::<Vec<_>>()
            };
            let o = sec(r.series(j.id, "app", "ops_per_sec"));
            if !o.is_empty() {
                ops.push(Series {
                    name: what("ops/s"),
                    points: o,
                    dashed: false,
                });
            }
            let m = sec(r.series(j.id, "disk", "mb_per_sec"));
            if !m.is_empty() {
                disk.push(Series {
                    name: what("device MB/s"),
                    points: m,
                    dashed: false,
                });
            }
        }
    }
    t.push_str("</tbody></table>");
    let mut html = format!("<p>RocksDB's db_bench with the hosting review's parameters (<code>iolab kv</code>); the device under the database sampled every second.</p>{t}");
    if !ops.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            "kv-ops",
            "db_bench throughput over time",
            axis("Time (s)", ScaleKind::Linear, Format::Plain),
            axis("Operations per second", ScaleKind::Linear, Format::Count),
            ops,
        )));
    }
    if !disk.is_empty() {
        html.push_str(&chart_block(&Chart::lines(
            "kv-disk",
            "Device throughput under db_bench",
            axis("Time (s)", ScaleKind::Linear, Format::Plain),
            axis("Device throughput (MB/s)", ScaleKind::Linear, Format::Plain),
            disk,
        )));
    }
    Some(Section::new(
        "application",
        "Application load (RocksDB db_bench)",
        html,
    ))
}

/// The latency split's rungs of a QD1 read cell, where its job was split: the device's part
/// alone, and the host's (submit and completion).
fn split_rungs(r: &RunData, engine: &str, label: &str) -> Option<Vec<(String, f64)>> {
    let j = r
        .jobs()
        .iter()
        .find(|j| j.step == "qd1-engines" && j.rw == "randread" && j.engine == engine)?;
    let m = |p: &str| j.metric("read", &format!("split_{p}_mean_ns"));
    let device = m("device")?;
    let host = m("submit")? + m("completion")?;
    Some(vec![
        (format!("{label}: device part"), device),
        (format!("{label}: host part (submit + completion)"), host),
    ])
}

/// This device's QD1 read latency among the reference latencies.
pub fn ladder(runs: &[RunData]) -> Option<Section> {
    let measured: Vec<(String, f64)> = runs
        .iter()
        .filter_map(|r| {
            let d: Qd1Step = review::read(step_data(r, "qd1-engines")?);
            let best = d
                .cells
                .iter()
                .filter(|c| c.rw == "randread" && !c.is_reference())
                .filter(|c| c.fallback.is_none())
                .filter_map(|c| Some((c.engine.clone(), c.figures?.mean_ns?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))?;
            let label = format!("{} QD1 4k read ({})", r.label(), best.0);
            Some(
                split_rungs(r, &best.0, &label)
                    .unwrap_or_default()
                    .into_iter()
                    .chain([(label, best.1)]),
            )
        })
        .flatten()
        .collect();
    if measured.is_empty() {
        return None;
    }
    let mut section = ladder::section(&measured);
    // A read figure stands on what the target held: the QD1 step's word on it (a device
    // never written reads no stored data) goes with the rung, as under the QD1 table.
    let mut said = String::new();
    for r in runs {
        let Some(d) = step_data(r, "qd1-engines") else {
            continue;
        };
        let notes = qd1_step_notes(r, &review::read(d));
        for n in notes.iter().filter(|n| n.kind == NoteKind::Stored) {
            said.push_str(&run_note(runs, r, "stored", &format!("note: {}", n.text)));
        }
    }
    section.body.push_str(&said);
    Some(section)
}
