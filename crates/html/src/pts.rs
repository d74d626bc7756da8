//! The report pages SNIA's PTS asks for, one section per test of a stored PTS run (`pts-iops`,
//! ...): a header (device, platform, settings, purge and preconditioning), the steady-state
//! convergence plot, the measurement window with its average, the ±10 % and ±20 % bands and
//! the fitted line, the window's table, and the test's own tables and plots. Every section
//! says it is a PTS-style run by iolab, not a certified SNIA result.

use std::fmt::Write as _;

use iolab_report::format::{compact, unitless};
use iolab_results::pts::{Figure, Header, Measured, PhasePoint, PtsDocument, TestDoc, Tracked};

use crate::chart::{esc, size_label, Axis, Chart, Format, ScaleKind, Series};
use crate::data::RunData;
use crate::page::{chart_block, Section};
use crate::sections::axis;

/// One section per test of every PTS run among `runs`.
pub fn sections(runs: &[RunData]) -> Vec<Section> {
    let mut out = Vec::new();
    for r in runs {
        let Some(doc) = PtsDocument::from_meta(&r.detail.meta) else {
            continue;
        };
        for t in &doc.tests {
            let name = &t.name;
            let id = match runs.len() {
                1 => format!("pts-{name}"),
                _ => format!("pts-{name}-run{}", r.id()),
            };
            let title = format!("PTS {}: {}", name, t.title);
            out.push(Section::new(&id, &title, body(r, &doc.pts, t, &id)));
        }
    }
    out
}

fn body(r: &RunData, pts: &Header, t: &TestDoc, id: &str) -> String {
    let mut h = header(r, pts, t, id);
    if let Some(why) = &t.unavailable {
        let _ = write!(h, "<p class=\"note\">Not run: {}</p>", esc(why));
        return h;
    }
    if let Some(left) = &t.interrupted {
        let _ = write!(h, "<p class=\"note\">Interrupted: {}</p>", esc(left));
    }
    h.push_str(&chart_block(&convergence(id, t)));
    let series = t.steady_state.series;
    for (k, v) in t
        .steady_state
        .variables
        .iter()
        .enumerate()
        .filter(|_| !series)
    {
        let chart_id = match k {
            0 => format!("{id}-window"),
            k => format!("{id}-window-{}", k + 1),
        };
        if let Some(c) = window_chart(&chart_id, t, v) {
            h.push_str(&chart_block(&c));
        }
    }
    h.push_str(&window_table(id, t));
    match t.name.as_str() {
        "iops" => h.push_str(&iops(id, t)),
        n if n.starts_with("tp") => h.push_str(&element_table(id, t)),
        "lat" => {
            h.push_str(&element_table(id, t));
            h.push_str(&chart_block(&max_convergence(id, t)));
            h.push_str(&histograms(id, t));
        }
        "wsat" => {
            h.push_str(&wsat(id, t, pts));
            h.push_str(&histograms(id, t));
        }
        "hir" | "xsr" => h.push_str(&recovery(id, t, pts)),
        "cbw" | "ecw" | "dirth" => {
            h.push_str(&demand(id, t));
            h.push_str(&histograms(id, t));
        }
        _ => {}
    }
    h.push_str(&crate::pts_terms::terms(id, &t.name));
    h
}

/// The header SNIA's report pages carry: the device under test, the test platform, the
/// set-up (purge, data pattern, active range, preconditioning, write cache) and the test's
/// parameters (stimulus, outstanding I/O, steady-state rounds), then why the result cannot
/// stand beside a certified one, where iolab knows.
fn header(r: &RunData, pts: &Header, t: &TestDoc, id: &str) -> String {
    let opt = |v: &Option<String>| v.as_deref().map_or("unknown".to_string(), esc);
    let mut h = format!(
        "<p class=\"note\"><strong>PTS-style run by iolab: not a certified SNIA result.</strong>{}</p>",
        match &pts.scaled {
            Some(x) => format!(" {}", esc(x)),
            None => String::new(),
        }
    );
    let dut = &pts.dut;
    let cache = pts.write_cache.clone().unwrap_or_default();
    let gb = |b: u64| format!("{:.1} GB", b as f64 / 1e9);
    let _ = write!(
        h,
        "<table class=\"pts-header\" id=\"{}-header\"><tbody>\
         <tr><th>device under test</th><td>{} · serial {} · firmware {} · {} · {} ({} bytes)</td></tr>\
         <tr><th>target</th><td>{} ({})</td></tr>\
         <tr><th>test platform</th><td>{} · Linux {} · iolab {}</td></tr>\
         <tr><th>specification</th><td>{} · run {}</td></tr>\
         <tr><th>purge</th><td>{}</td></tr>\
         <tr><th>data pattern</th><td>{}</td></tr>\
         <tr><th>active range</th><td>{} ({} of {})</td></tr>\
         <tr><th>write cache</th><td>{} during the run ({} requires it {}; found {}; {})</td></tr>\
         <tr><th>preconditioning</th><td>workload independent: {}; workload dependent: {}</td></tr>\
         <tr><th>test parameters</th><td>{} · elements of {} s · libaio, direct</td></tr>\
         <tr><th>tracked</th><td>{}</td></tr>\
         <tr><th>test sponsor</th><td>{}</td></tr>\
         </tbody></table>",
        esc(id),
        esc(&dut.model.clone().unwrap_or_else(|| r.device_named())),
        opt(&dut.serial),
        opt(&dut.firmware),
        esc(&dut.interface),
        gb(pts.capacity_bytes),
        pts.capacity_bytes,
        esc(&pts.target),
        esc(&r.device_named()),
        esc(&r.detail.host.hostname),
        esc(&r.detail.host.kernel),
        esc(&r.detail.iolab_version),
        esc(&pts.profile),
        r.id(),
        esc(&t.purge),
        esc(&pts.data_pattern),
        esc(&pts.active_range),
        gb(pts.region_bytes),
        gb(pts.capacity_bytes),
        cache.during.name(),
        esc(&pts.profile),
        cache.required.name(),
        cache.found.name(),
        esc(&cache.how),
        match &t.wipc {
            Some(w) => format!(
                "{:.1} GB (twice the active range) of {} at {:.0} MB/s",
                w.bytes as f64 / 1e9,
                esc(&w.stimulus),
                w.bw_bytes / 1e6
            ),
            None => "none, the test starts from the purged drive".into(),
        },
        match &t.preconditioning {
            Some(p) => format!(
                "{} in rounds of {} intervals to steady state ({}), then the test's own rounds",
                esc(&p.stimulus),
                p.intervals_a_round,
                match p.steady.reached {
                    true => "reached",
                    false => "NOT reached",
                }
            ),
            None => "the test's own rounds".into(),
        },
        esc(&outstanding(pts, t)),
        pts.element_time_s,
        esc(&t.tracked),
        pts.sponsor
            .as_deref()
            .map_or("not given (iolab pts --sponsor NAME)".to_string(), esc),
    );
    if let Some(p) = &pts.plan {
        let _ = write!(
            h,
            "<p class=\"note\"><strong>The run's plan:</strong> {}.</p>",
            esc(&p.words())
        );
    }
    let mut reasons: Vec<&String> = t.not_comparable.iter().collect();
    reasons.dedup();
    if !reasons.is_empty() {
        h.push_str("<p class=\"note\"><strong>Not comparable with a certified result:</strong></p><ul class=\"note\">");
        for why in reasons {
            let _ = write!(h, "<li>{}</li>", esc(why));
        }
        h.push_str("</ul>");
    }
    for l in &t.left_out {
        let _ = write!(h, "<p class=\"note\">Left out: {}</p>", esc(l));
    }
    h
}

/// The test's outstanding I/O as the header gives it: the run's threads × depth, or the
/// test's own (T1Q1 for latency, T1Q32 for cross-stimulus recovery, a grid for demand
/// intensity).
fn outstanding(pts: &Header, t: &TestDoc) -> String {
    let first = t
        .rounds
        .first()
        .and_then(|r| r.elements.first())
        .map(|e| e.element)
        .unwrap_or_default();
    match t.name.as_str() {
        "cbw" | "ecw" | "dirth" => {
            "threads × queue depth grid, highest first; pre-writes at the highest".into()
        }
        "lat" | "xsr" => format!("T{}Q{}", first.threads, first.depth),
        n if n.starts_with("tp") => format!(
            "T{}Q{}: {} sequential streams, each on its own share of the active range",
            pts.threads, pts.depth, pts.threads
        ),
        _ => format!("T{}Q{}", pts.threads, pts.depth),
    }
}

/// How a test's tracked figure is drawn: its format, what its stored value (bytes/s, ns, IOPS)
/// is divided by, and the axis title. One unit per quantity on a page: throughput in MB/s.
fn tracked_axis(t: &TestDoc) -> (Format, f64, &'static str) {
    match t.name.as_str() {
        "lat" => (Format::Nanos, 1.0, "Average response time"),
        n if n.starts_with("tp") || n == "xsr" => (Format::Plain, 1e6, "Throughput (MB/s)"),
        _ => (Format::Count, 1.0, "IOPS"),
    }
}

/// The tracked variables round by round (the IOPS test's three on a log scale), with the
/// test's own preconditioning loop's rounds where it has one.
fn convergence(id: &str, t: &TestDoc) -> Chart {
    let ss = &t.steady_state;
    let (format, div, title) = tracked_axis(t);
    let xy = |vals: &[f64]| -> Vec<(f64, f64)> {
        vals.iter()
            .enumerate()
            .map(|(i, v)| ((i + 1) as f64, v / div))
            .collect()
    };
    let mut series: Vec<Series> = match ss.variables.is_empty() {
        false => ss
            .variables
            .iter()
            .map(|v| Series {
                name: unitless(&v.label),
                points: xy(&v.values),
                dashed: false,
            })
            .collect(),
        true => vec![Series {
            name: unitless(&t.tracked),
            points: xy(&ss.values),
            dashed: false,
        }],
    };
    if let Some(p) = &t.preconditioning {
        series.push(Series {
            name: format!("preconditioning loop: {}", p.stimulus),
            points: xy(&p.steady.values),
            dashed: true,
        });
    }
    let log = series.len() > 1 && format == Format::Count;
    let mut c = Chart::lines(
        &format!("{id}-convergence"),
        &format!("Steady-state convergence: {}", &unitless(&t.tracked)),
        axis("Round", ScaleKind::Linear, Format::Plain),
        axis(
            title,
            if log {
                ScaleKind::Log10
            } else {
                ScaleKind::Linear
            },
            format,
        ),
        series,
    );
    c.lines = true;
    c
}

/// The latency test's maximum response time round by round (PTS 2.0's maximum-latency
/// convergence plot), one line per element.
fn max_convergence(id: &str, t: &TestDoc) -> Chart {
    let mut by: Vec<Series> = Vec::new();
    for r in &t.rounds {
        let x = r.round as f64;
        for e in &r.elements {
            let name = unitless(&e.label);
            let y = e.max_ns;
            match by.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push((x, y)),
                None => by.push(Series {
                    name,
                    points: vec![(x, y)],
                    dashed: false,
                }),
            }
        }
    }
    Chart::lines(
        &format!("{id}-max"),
        "Maximum response time convergence, every element",
        axis("Round", ScaleKind::Linear, Format::Plain),
        axis("Maximum response time", ScaleKind::Log10, Format::Nanos),
        by,
    )
}

/// The measurement window of one tracked variable: its rounds' values, their average, the
/// ±10 % and ±20 % bands and the least-squares line.
fn window_chart(id: &str, t: &TestDoc, v: &Tracked) -> Option<Chart> {
    let w = v.window?;
    let [a, b] = w.rounds;
    let (format, div, title) = tracked_axis(t);
    let values: Vec<f64> = v.values.iter().map(|x| x / div).collect();
    let win = values.get(a.checked_sub(1)?..b)?;
    let avg = win.iter().sum::<f64>() / win.len() as f64;
    let n = win.len() as f64;
    let xm = (n - 1.0) / 2.0;
    let (sxy, sxx) = win
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(sxy, sxx), (i, y)| {
            let dx = i as f64 - xm;
            (sxy + dx * (y - avg), sxx + dx * dx)
        });
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let xs: Vec<f64> = (a..=b).map(|x| x as f64).collect();
    let flat = |k: f64| xs.iter().map(|x| (*x, avg * k)).collect::<Vec<_>>();
    let series = |name: &str, points: Vec<(f64, f64)>, dashed: bool| Series {
        name: name.into(),
        points,
        dashed,
    };
    let fitted = xs
        .iter()
        .enumerate()
        .map(|(i, x)| (*x, avg + slope * (i as f64 - xm)))
        .collect();
    let label = &unitless(&v.label);
    let heading = format!(
        "Measurement window, rounds {a}-{b}: {label}: {} (range {:.1} %, slope excursion {:.1} %)",
        if v.reached { "steady" } else { "not steady" },
        w.range_pct,
        w.slope_excursion_pct,
    );
    Some(Chart::lines(
        id,
        &heading,
        axis("Round", ScaleKind::LinearFit, Format::Plain),
        axis(title, ScaleKind::Linear, format),
        vec![
            series(
                "tracked variable",
                xs.iter().copied().zip(win.iter().copied()).collect(),
                false,
            ),
            series("average", flat(1.0), false),
            series("+10 %", flat(1.1), true),
            series("-10 %", flat(0.9), true),
            series("+20 %", flat(1.2), true),
            series("-20 %", flat(0.8), true),
            series("least-squares line", fitted, false),
        ],
    ))
}

/// The window's table: each round's value of every tracked variable and the rule's figures.
fn window_table(id: &str, t: &TestDoc) -> String {
    let ss = &t.steady_state;
    let (fmt, div, title) = tracked_axis(t);
    // A unit the figures do not carry themselves (MB/s) goes in the column's heading.
    let unit = title.find('(').map_or("", |i| &title[i - 1..]);
    let vars: Vec<Tracked> = match ss.variables.is_empty() {
        false => ss.variables.clone(),
        true => vec![Tracked {
            label: t.tracked.clone(),
            values: ss.values.clone(),
            ..Tracked::default()
        }],
    };
    // A round a row, a variable a column: a page as wide as its variables, however many
    // rounds (write saturation's series runs to 1440 of them, folded away).
    let n = vars.iter().map(|v| v.values.len()).max().unwrap_or(0);
    let mut h = String::new();
    if ss.series {
        let _ = write!(
            h,
            "<details><summary>Every round's value ({n} rounds; the charts above draw them)</summary>"
        );
    }
    let _ = write!(
        h,
        "<table class=\"pts-window\" id=\"{}-window-table\"><thead><tr><th>round</th>",
        esc(id)
    );
    for v in &vars {
        let label = match v.label.as_str() {
            "" => "tracked".to_string(),
            l => unitless(l),
        };
        let _ = write!(h, "<th>{}{unit}</th>", esc(&label));
    }
    h.push_str("</tr></thead><tbody>");
    for i in 0..n {
        let _ = write!(h, "<tr><th>{}</th>", i + 1);
        for v in &vars {
            match v.values.get(i) {
                Some(x) => {
                    let _ = write!(h, "<td>{}</td>", esc(&fmt.apply(x / div)));
                }
                None => h.push_str("<td class=\"na\">-</td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    if ss.series {
        h.push_str("</details>");
    }
    let verdict = match (ss.reached, ss.series) {
        (_, true) => {
            "a series: the specification sets no steady-state criterion for it, and none is claimed"
        }
        (true, _) => {
            "steady state reached: every tracked variable within the limits in the same rounds"
        }
        _ if ss.gave_up => "steady state NOT reached: rounds used up",
        _ => "steady state not reached",
    };
    let _ = write!(h, "<p>{verdict}");
    if !ss.series {
        let _ = write!(
            h,
            "; window: rounds {} (limits: data excursion {} %, slope excursion {} % of the average)",
            match ss.window_rounds {
                Some([a, b]) => format!("{a}-{b}"),
                None => "none yet".into(),
            },
            ss.rule.range_pct,
            ss.rule.slope_pct,
        );
        for v in &vars {
            if let Some(w) = &v.window {
                let _ = write!(
                    h,
                    "; {}: average {}, data excursion {:.1} %, slope excursion {:.1} %",
                    esc(&unitless(&v.label)),
                    esc(&fmt.apply(w.average / div)),
                    w.range_pct,
                    w.slope_excursion_pct,
                );
            }
        }
    }
    h.push_str(".</p>");
    h
}

/// The average of a figure over the window for each element, elements told apart by two
/// fields of their stimulus (`key`), in first-seen order.
fn averaged_by(t: &TestDoc, key: fn(&Measured) -> (u64, u64), f: Figure) -> Vec<((u64, u64), f64)> {
    let mut acc: Vec<((u64, u64), f64, u32)> = Vec::new();
    for e in t.window_elements() {
        let k = key(e);
        let v = f.of(e);
        match acc.iter_mut().find(|(x, _, _)| *x == k) {
            Some(a) => {
                a.1 += v;
                a.2 += 1;
            }
            None => acc.push((k, v, 1)),
        }
    }
    acc.into_iter().map(|(k, s, n)| (k, s / n as f64)).collect()
}

/// The average of a figure over the window for each (read %, block size) element.
fn averaged(t: &TestDoc, f: Figure) -> Vec<((u64, u64), f64)> {
    averaged_by(t, |e| (e.element.read_pct.into(), e.element.bs.into()), f)
}

/// The IOPS test's table as SNIA's pages lay it out (block sizes down, small to large;
/// read/write mixes across, from 100 % write on the left to 100 % read on the right), each
/// cell averaged over the window, and its surface as one line per mix over block size.
fn iops(id: &str, t: &TestDoc) -> String {
    let cells = averaged(t, Figure::Iops);
    let mut mixes: Vec<u64> = cells.iter().map(|((m, _), _)| *m).collect();
    mixes.sort_unstable();
    mixes.dedup();
    let mut sizes: Vec<u64> = cells.iter().map(|((_, b), _)| *b).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut h = format!(
        "<table class=\"pts-iops\" id=\"{}-table\"><thead><tr><th>block size \\ read/write</th>",
        esc(id)
    );
    for m in &mixes {
        let _ = write!(h, "<th>{m}/{}</th>", 100 - m);
    }
    h.push_str("</tr></thead><tbody>");
    let heat = Heat::of(cells.iter().map(|c| c.1));
    for b in &sizes {
        let _ = write!(h, "<tr><th>{}</th>", esc(&size_label(*b as f64)));
        for m in &mixes {
            match cells.iter().find(|(k, _)| *k == (*m, *b)) {
                Some((_, v)) => {
                    let _ = write!(
                        h,
                        "<td style=\"background:{}\">{}</td>",
                        heat.color(*v),
                        esc(&compact(*v))
                    );
                }
                None => h.push_str("<td class=\"na\">n/a</td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str(
        "</tbody></table><p>IOPS, each the average over the measurement window's rounds; \
         the cells are a heat map of the surface (log scale: pale is fewest, deep is most).</p>",
    );
    let series = mixes
        .iter()
        .rev()
        .map(|m| Series {
            name: format!("{m}/{} read/write", 100 - m),
            points: cells
                .iter()
                .filter(|((mm, _), _)| mm == m)
                .map(|((_, b), v)| (*b as f64, *v))
                .collect(),
            dashed: false,
        })
        .collect();
    h.push_str(&chart_block(&Chart::lines(
        &format!("{id}-surface"),
        "IOPS by block size and read/write mix (the measurement window's average)",
        axis("Block size", ScaleKind::Log2, Format::Bytes),
        axis("IOPS", ScaleKind::Log10, Format::Count),
        series,
    )));
    h.push_str(&crate::pts_columns::columns(
        &format!("{id}-3d"),
        &cells,
        &mixes,
        &sizes,
    ));
    h
}

/// An element's time in seconds (a minute where an old document lacks it).
fn element_secs(pts: &Header) -> f64 {
    match pts.element_time_s {
        s if s > 0.0 => s,
        _ => 60.0,
    }
}

/// A response time in µs, the one unit every table of a PTS page gives them in.
fn us(ns: f64) -> String {
    match ns.is_finite() {
        true => format!("{:.1}", ns / 1e3),
        false => "-".into(),
    }
}

/// Throughput and latency tables: every element averaged over the window, in one unit
/// each (MB/s, µs).
fn element_table(id: &str, t: &TestDoc) -> String {
    let mut h = format!(
        "<table class=\"pts-elements\" id=\"{}-elements\"><thead><tr><th>element</th><th>IOPS</th><th>MB/s</th>\
         <th>average (µs)</th><th>maximum (µs)</th><th>99.999 % (µs)</th></tr></thead><tbody>",
        esc(id)
    );
    let (iops, bw, mean, max, p5) = (
        averaged(t, Figure::Iops),
        averaged(t, Figure::BwBytes),
        averaged(t, Figure::MeanNs),
        averaged(t, Figure::MaxNs),
        averaged(t, Figure::P99999Ns),
    );
    for (i, (k, v)) in iops.iter().enumerate() {
        let _ = write!(
            h,
            "<tr><th>{} {}/{}</th><td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&size_label(k.1 as f64)),
            k.0,
            100 - k.0,
            esc(&compact(*v)),
            bw[i].1 / 1e6,
            us(mean[i].1),
            us(max[i].1),
            us(p5[i].1),
        );
    }
    h.push_str(
        "</tbody></table><p>Each figure the average over the measurement window's rounds. \
         The 99.999th percentile is the maximum in an element of fewer than 100,000 I/Os \
         (it needs that many to have one beyond it).</p>",
    );
    h
}

/// Write saturation against time and against bytes written.
fn wsat(id: &str, t: &TestDoc, pts: &Header) -> String {
    let secs = element_secs(pts);
    let mut by_time = Vec::new();
    let mut by_bytes = Vec::new();
    let mut written = 0.0;
    for (i, r) in t.rounds.iter().enumerate() {
        for e in &r.elements {
            let iops = e.iops;
            written += e.write_bytes as f64;
            by_time.push(((i + 1) as f64 * secs, iops));
            by_bytes.push((written / 1e9, iops));
        }
    }
    let one = |name: &str, points| {
        vec![Series {
            name: name.into(),
            points,
            dashed: false,
        }]
    };
    let what = unitless(&t.tracked);
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-time"),
        &format!("Write saturation: {what} over time"),
        axis("Time (s)", ScaleKind::Linear, Format::Plain),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        one("IOPS", by_time),
    ));
    h.push_str(&chart_block(&Chart::lines(
        &format!("{id}-written"),
        &format!("Write saturation: {what} against data written"),
        axis("Written (GB, decimal)", ScaleKind::Linear, Format::Plain),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        one("IOPS", by_bytes),
    )));
    h.push_str(&wsat_fills(id, t, pts));
    h
}

/// PTS 2.0's write-saturation pages against drive fills (data written over the active
/// range): IOPS, and the response times (average, five nines, maximum) as the drive fills;
/// none for a document without its active range's size.
fn wsat_fills(id: &str, t: &TestDoc, pts: &Header) -> String {
    if pts.region_bytes == 0 {
        return String::new();
    }
    let region = pts.region_bytes as f64;
    let mut written = 0.0;
    let mut at: Vec<(f64, &Measured)> = Vec::new();
    for e in t.rounds.iter().flat_map(|r| &r.elements) {
        written += e.write_bytes as f64;
        at.push((written / region, e));
    }
    let fills = || axis("Drive fills", ScaleKind::Linear, Format::Plain);
    let line = |name: &str, pick: fn(&Measured) -> f64| Series {
        name: name.into(),
        points: at.iter().map(|(x, e)| (*x, pick(e))).collect(),
        dashed: false,
    };
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-fills"),
        "Write saturation: IOPS against drive fills (data written ÷ active range)",
        fills(),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        vec![line("IOPS", |e| e.iops)],
    ));
    h.push_str(&chart_block(&Chart::lines(
        &format!("{id}-fills-rt"),
        "Write saturation: response times against drive fills",
        fills(),
        axis("Response time", ScaleKind::Log10, Format::Nanos),
        vec![
            line("average", |e| e.mean_ns),
            line("99.999th percentile", |e| e.p99999_ns),
            line("maximum", |e| e.max_ns),
        ],
    )));
    h
}

/// Cell colours on a log scale from the fewest to the most.
struct Heat {
    lo: f64,
    hi: f64,
}

impl Heat {
    fn of(values: impl Iterator<Item = f64>) -> Heat {
        let logs: Vec<f64> = values.filter(|v| *v > 0.0).map(f64::log10).collect();
        Heat {
            lo: logs.iter().copied().fold(f64::INFINITY, f64::min),
            hi: logs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    fn color(&self, v: f64) -> String {
        let span = (self.hi - self.lo).max(1e-9);
        let f = match v > 0.0 {
            true => ((v.log10() - self.lo) / span).clamp(0.0, 1.0),
            false => 0.0,
        };
        format!("hsl(25, 85%, {:.0}%)", 95.0 - 45.0 * f)
    }
}

/// Recovery tests (host idle, cross-stimulus): every step after the rounds laid end to end
/// in time, one series a phase, after the rounds themselves; and a table of each phase's
/// averages beside the steady-state (or series) average.
fn recovery(id: &str, t: &TestDoc, pts: &Header) -> String {
    let secs = element_secs(pts);
    let bytes = t.name == "xsr";
    let figure = |e: &Measured| match bytes {
        true => e.bw_bytes / 1e6,
        false => e.iops,
    };
    let rounds: Vec<(f64, f64)> = t
        .rounds
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.elements
                .iter()
                .map(move |e| ((i + 1) as f64 * secs, figure(e)))
        })
        .collect();
    let mut clock = rounds.last().map_or(0.0, |p| p.0);
    let mut series = vec![Series {
        name: match bytes {
            true => "access group 1: 1024 KiB sequential writes".into(),
            false => "preconditioning rounds".into(),
        },
        points: rounds,
        dashed: false,
    }];
    let mut table = format!(
        "<table class=\"pts-phases\" id=\"{}-phases\"><thead><tr><th>phase</th><th>steps</th><th>IOPS</th>\
         <th>MB/s</th><th>average response time (µs)</th></tr></thead><tbody>",
        esc(id)
    );
    for p in &t.phases {
        let start = clock;
        let mut pts_xy = Vec::new();
        for x in &p.points {
            let at = start + x.at_s;
            pts_xy.push((at + x.time_s, figure(&x.measured)));
            clock = at + x.time_s + x.idle_s;
        }
        let n = p.points.len().max(1) as f64;
        let avg = |f: Figure| p.points.iter().map(|x| f.of(&x.measured)).sum::<f64>() / n;
        let _ = write!(
            table,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(&p.name),
            p.points.len(),
            esc(&compact(avg(Figure::Iops))),
            avg(Figure::BwBytes) / 1e6,
            us(avg(Figure::MeanNs))
        );
        series.push(Series {
            name: p.name.clone(),
            points: pts_xy,
            dashed: false,
        });
    }
    table.push_str("</tbody></table>");
    let (title, y) = match bytes {
        true => (
            "Cross-stimulus recovery: write throughput over time, access group by access group",
            axis("Throughput (MB/s)", ScaleKind::Linear, Format::Plain),
        ),
        false => (
            "Host idle recovery: 4 KiB random write IOPS of each burst over time (idle between bursts not drawn)",
            axis("IOPS", ScaleKind::Linear, Format::Count),
        ),
    };
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-recovery"),
        title,
        axis("Time (s)", ScaleKind::Linear, Format::Plain),
        y,
        series,
    ));
    h.push_str(&table);
    h
}

/// Each (threads, depth) element averaged over the window: IOPS and average response time.
fn by_outstanding(t: &TestDoc) -> Vec<((u64, u64), f64, f64)> {
    let key = |e: &Measured| (e.element.threads.into(), e.element.depth.into());
    let means = averaged_by(t, key, Figure::MeanNs);
    averaged_by(t, key, Figure::Iops)
        .into_iter()
        .zip(means)
        .map(|((k, iops), (_, mean))| (k, iops, mean))
        .collect()
}

/// Demand intensity: average response time against IOPS, one curve a thread count over
/// its queue depths, and the thread count × queue depth table.
fn demand(id: &str, t: &TestDoc) -> String {
    let cells = by_outstanding(t);
    let mut threads: Vec<u64> = cells.iter().map(|c| c.0 .0).collect();
    threads.dedup();
    let mut depths: Vec<u64> = cells.iter().map(|c| c.0 .1).collect();
    depths.sort_unstable();
    depths.dedup();
    // One curve a thread count, joined in queue-depth order and each point labelled with
    // its depth: a curve that bends back (more depth, fewer IOPS) shows as it is.
    let curve = |th: u64| -> Vec<&((u64, u64), f64, f64)> {
        let mut c: Vec<_> = cells.iter().filter(|c| c.0 .0 == th).collect();
        c.sort_by_key(|c| c.0 .1);
        c
    };
    let series = threads
        .iter()
        .map(|th| Series {
            name: format!("T{th}"),
            points: curve(*th).iter().map(|c| (c.1, c.2)).collect(),
            dashed: false,
        })
        .collect();
    let mut c = Chart::lines(
        &format!("{id}-demand"),
        "Demand intensity: average response time against IOPS, a curve per thread count, each point its queue depth",
        axis("IOPS", ScaleKind::Linear, Format::Count),
        axis("Average response time", ScaleKind::Log10, Format::Nanos),
        series,
    );
    c.labels = threads
        .iter()
        .map(|th| curve(*th).iter().map(|c| format!("Q{}", c.0 .1)).collect())
        .collect();
    let mut h = chart_block(&c);
    h.push_str(&chart_block(&demand_variation(id, &cells, &depths)));
    h.push_str(&chart_block(&iops_by_outstanding(id, &cells)));
    if let Some(c) = cpu_by_outstanding(id, t) {
        h.push_str(&chart_block(&c));
    }
    let _ = write!(
        h,
        "<table class=\"pts-demand\" id=\"{}-grid\"><thead><tr><th>threads \\ depth</th>",
        esc(id)
    );
    for d in &depths {
        let _ = write!(h, "<th>Q{d}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for th in &threads {
        let _ = write!(h, "<tr><th>T{th}</th>");
        for d in &depths {
            match cells.iter().find(|c| c.0 == (*th, *d)) {
                Some(c) => {
                    let _ = write!(h, "<td>{} IOPS · {} µs</td>", esc(&compact(c.1)), us(c.2));
                }
                None => h.push_str("<td class=\"na\">n/a</td>"),
            }
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table><p>IOPS and average response time (µs), each the average over the measurement window's rounds.</p>");
    h
}

/// SNIA's Demand Variation page: IOPS against the thread count, a curve per queue depth.
fn demand_variation(id: &str, cells: &[((u64, u64), f64, f64)], depths: &[u64]) -> Chart {
    let series = depths
        .iter()
        .map(|d| {
            let mut points: Vec<(f64, f64)> = cells
                .iter()
                .filter(|c| c.0 .1 == *d)
                .map(|c| (c.0 .0 as f64, c.1))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                name: format!("Q{d}"),
                points,
                dashed: false,
            }
        })
        .collect();
    Chart::lines(
        &format!("{id}-variation"),
        "Demand variation: IOPS against the thread count (TC), a curve per queue depth (QD)",
        axis("Thread count (TC)", ScaleKind::Log2, Format::Plain),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        series,
    )
}

/// A figure against the total outstanding I/O (threads × queue depth), one point a
/// (TC, QD) cell labelled `TxQy`, in order of outstanding I/O.
fn against_outstanding(
    id: String,
    title: &str,
    y: Axis,
    name: &str,
    mut cells: Vec<((u64, u64), f64)>,
) -> Chart {
    cells.sort_by_key(|c| (c.0 .0 * c.0 .1, c.0 .0));
    let oio = axis(
        "Total outstanding I/O (TC × QD)",
        ScaleKind::Log2,
        Format::Plain,
    );
    let points = cells
        .iter()
        .map(|c| ((c.0 .0 * c.0 .1) as f64, c.1))
        .collect();
    let mut c = Chart::lines(
        &id,
        title,
        oio,
        y,
        vec![Series {
            name: name.into(),
            points,
            dashed: false,
        }],
    );
    c.lines = false;
    c.labels = vec![cells
        .iter()
        .map(|c| format!("T{}Q{}", c.0 .0, c.0 .1))
        .collect()];
    c
}

/// IOPS against the total outstanding I/O: where more outstanding I/O stops buying IOPS.
fn iops_by_outstanding(id: &str, cells: &[((u64, u64), f64, f64)]) -> Chart {
    against_outstanding(
        format!("{id}-oio"),
        "IOPS against the total outstanding I/O (OIO = TC × QD), each point its TC and QD",
        axis("IOPS", ScaleKind::Linear, Format::Count),
        "IOPS",
        cells.iter().map(|c| (c.0, c.1)).collect(),
    )
}

/// SNIA's CPU utilisation page: the CPU the test's threads used against the total
/// outstanding I/O; `None` for a document from before iolab kept it.
fn cpu_by_outstanding(id: &str, t: &TestDoc) -> Option<Chart> {
    let key = |e: &Measured| (e.element.threads.into(), e.element.depth.into());
    let cells = averaged_by(t, key, Figure::Cpus);
    if cells.iter().all(|c| c.1 <= 0.0) {
        return None;
    }
    Some(against_outstanding(
        format!("{id}-cpu"),
        // What "CPUs busy" counts is defined in the page's terms; a title longer than the
        // chart's width is cut at both ends.
        "CPU utilisation (CPUs busy) against the total outstanding I/O, each point its TC and QD",
        axis("CPUs busy", ScaleKind::Linear, Format::Plain),
        "CPUs busy",
        cells,
    ))
}

/// The response-time histograms at the operating points, and their figures.
fn histograms(id: &str, t: &TestDoc) -> String {
    let points: Vec<&PhasePoint> = t
        .phases
        .iter()
        .flat_map(|p| &p.points)
        .filter(|x| x.measured.histogram.is_some())
        .collect();
    if points.is_empty() {
        return String::new();
    }
    let name = |x: &PhasePoint| format!("{}: {}", x.role, &unitless(&x.measured.label));
    let series = points
        .iter()
        .map(|x| Series {
            name: name(x),
            points: x
                .measured
                .histogram
                .iter()
                .flatten()
                .map(|&(edge, n)| (edge as f64, n as f64))
                .collect(),
            dashed: false,
        })
        .collect();
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-histograms"),
        match t.name.as_str() {
            "cbw" | "ecw" | "dirth" => {
                "Response-time histograms at the operating points (ten bins a decade)"
            }
            _ => "Response-time histogram: 4 KiB random writes at T1Q1 (ten bins a decade)",
        },
        axis(
            "Response time (bin's upper edge)",
            ScaleKind::Log10,
            Format::Nanos,
        ),
        axis("I/Os", ScaleKind::Log10, Format::Count),
        series,
    ));
    let _ = write!(
        h,
        "<table class=\"pts-operating\" id=\"{}-operating\"><thead><tr><th>operating point</th><th>IOPS</th>\
         <th>average (µs)</th><th>99 % (µs)</th><th>99.99 % (µs)</th><th>99.999 % (µs)</th><th>maximum (µs)</th></tr></thead><tbody>",
        esc(id)
    );
    for x in &points {
        let m = &x.measured;
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&name(x)),
            esc(&compact(m.iops)),
            us(m.mean_ns),
            us(m.p99_ns),
            us(m.p9999_ns),
            us(m.p99999_ns),
            us(m.max_ns),
        );
    }
    h.push_str(
        "</tbody></table><p>Response times in µs, over each point's whole run; a percentile \
         with fewer I/Os beyond it than it needs (100,000 for the 99.999th) is the maximum.</p>",
    );
    h
}
