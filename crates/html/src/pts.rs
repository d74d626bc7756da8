//! The report pages SNIA's PTS asks for, one section per test of a stored PTS run (`pts-iops`,
//! ...): a header (device, platform, settings, purge and preconditioning), the steady-state
//! convergence plot, the measurement window with its average, the ±10 % and ±20 % bands and
//! the fitted line, the window's table, and the test's own tables and plots. Every section
//! says it is a PTS-style run by iolab, not a certified SNIA result.

use std::fmt::Write as _;

use iolab_report::format::{compact, unitless};
use serde_json::Value;

use crate::chart::{esc, size_label, Chart, Format, ScaleKind, Series};
use crate::data::RunData;
use crate::page::{chart_block, Section};
use crate::sections::axis;

/// One section per test of every PTS run among `runs`.
pub fn sections(runs: &[RunData]) -> Vec<Section> {
    let mut out = Vec::new();
    for r in runs.iter().filter(|r| r.detail.meta["pts"].is_object()) {
        let meta = &r.detail.meta;
        for t in meta["tests"].as_array().into_iter().flatten() {
            let name = t["name"].as_str().unwrap_or("test");
            let id = match runs.len() {
                1 => format!("pts-{name}"),
                _ => format!("pts-{name}-run{}", r.id()),
            };
            let title = format!("PTS {}: {}", name, t["title"].as_str().unwrap_or(""));
            out.push(Section::new(&id, &title, body(r, &meta["pts"], t, &id)));
        }
    }
    out
}

fn body(r: &RunData, pts: &Value, t: &Value, id: &str) -> String {
    let mut h = header(r, pts, t);
    if let Some(why) = t["unavailable"].as_str() {
        let _ = write!(h, "<p class=\"note\">Not run: {}</p>", esc(why));
        return h;
    }
    if let Some(left) = t["interrupted"].as_str() {
        let _ = write!(h, "<p class=\"note\">Interrupted: {}</p>", esc(left));
    }
    h.push_str(&chart_block(&convergence(id, t)));
    let series = t["steady_state"]["series"].as_bool() == Some(true);
    let variables = t["steady_state"]["variables"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (k, v) in variables.iter().enumerate().filter(|_| !series) {
        let chart_id = match k {
            0 => format!("{id}-window"),
            k => format!("{id}-window-{}", k + 1),
        };
        if let Some(c) = window_chart(&chart_id, t, v) {
            h.push_str(&chart_block(&c));
        }
    }
    h.push_str(&window_table(t));
    match t["name"].as_str() {
        Some("iops") => h.push_str(&iops(id, t)),
        Some(n) if n.starts_with("tp") => h.push_str(&element_table(t)),
        Some("lat") => {
            h.push_str(&element_table(t));
            h.push_str(&chart_block(&max_convergence(id, t)));
            h.push_str(&histograms(id, t));
        }
        Some("wsat") => h.push_str(&wsat(id, t, pts)),
        Some("hir") | Some("xsr") => h.push_str(&recovery(id, t, pts)),
        Some("cbw") | Some("ecw") | Some("dirth") => {
            h.push_str(&demand(id, t));
            h.push_str(&histograms(id, t));
        }
        _ => {}
    }
    h
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .collect()
}

/// The header SNIA's report pages carry: the device under test, the test platform, the
/// set-up (purge, data pattern, active range, preconditioning, write cache) and the test's
/// parameters (stimulus, outstanding I/O, steady-state rounds), then why the result cannot
/// stand beside a certified one, where iolab knows.
fn header(r: &RunData, pts: &Value, t: &Value) -> String {
    let s = |v: &Value| esc(&v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let opt = |v: &Value| v.as_str().map_or("unknown".to_string(), esc);
    let mut h = format!(
        "<p class=\"note\"><strong>PTS-style run by iolab: not a certified SNIA result.</strong>{}</p>",
        match pts["scaled"].as_str() {
            Some(x) => format!(" {}", esc(x)),
            None => String::new(),
        }
    );
    let dut = &pts["dut"];
    let cache = &pts["write_cache"];
    let gb = |b: f64| format!("{:.1} GB", b / 1e9);
    let _ = write!(
        h,
        "<table class=\"pts-header\"><tbody>\
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
         </tbody></table>",
        esc(&dut["model"].as_str().map_or_else(|| r.device_named(), str::to_string)),
        opt(&dut["serial"]),
        opt(&dut["firmware"]),
        s(&dut["interface"]),
        gb(pts["capacity_bytes"].as_f64().unwrap_or(0.0)),
        pts["capacity_bytes"],
        s(&pts["target"]),
        esc(&r.device_named()),
        esc(&r.detail.host.hostname),
        esc(&r.detail.host.kernel),
        esc(&r.detail.iolab_version),
        s(&pts["profile"]),
        r.id(),
        s(&t["purge"]),
        s(&pts["data_pattern"]),
        s(&pts["active_range"]),
        gb(pts["region_bytes"].as_f64().unwrap_or(0.0)),
        gb(pts["capacity_bytes"].as_f64().unwrap_or(0.0)),
        s(&cache["during"]),
        s(&pts["profile"]),
        s(&cache["required"]),
        s(&cache["found"]),
        s(&cache["how"]),
        match t["wipc"].as_object() {
            Some(w) => format!(
                "{:.1} GB (twice the active range) of {} at {:.0} MB/s",
                w["bytes"].as_f64().unwrap_or(0.0) / 1e9,
                s(&w["stimulus"]),
                w["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6
            ),
            None => "none, the test starts from the purged drive".into(),
        },
        match t["preconditioning"].as_object() {
            Some(p) => format!(
                "{} in rounds of {} intervals to steady state ({}), then the test's own rounds",
                s(&p["stimulus"]),
                p["intervals_a_round"],
                match p["steady"]["reached"].as_bool() {
                    Some(true) => "reached",
                    _ => "NOT reached",
                }
            ),
            None => "the test's own rounds".into(),
        },
        esc(&outstanding(pts, t)),
        pts["element_time_s"].as_f64().unwrap_or(0.0),
        s(&t["tracked"]),
    );
    let mut reasons: Vec<&Value> = t["not_comparable"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    reasons.dedup();
    if !reasons.is_empty() {
        h.push_str("<p class=\"note\"><strong>Not comparable with a certified result:</strong></p><ul class=\"note\">");
        for why in reasons {
            let _ = write!(h, "<li>{}</li>", s(why));
        }
        h.push_str("</ul>");
    }
    for l in t["left_out"].as_array().into_iter().flatten() {
        let _ = write!(h, "<p class=\"note\">Left out: {}</p>", s(l));
    }
    h
}

/// The test's outstanding I/O as the header gives it: the run's threads × depth, or the
/// test's own (T1Q1 for latency, T1Q32 for cross-stimulus recovery, a grid for demand
/// intensity).
fn outstanding(pts: &Value, t: &Value) -> String {
    let first = &t["rounds"][0]["elements"][0]["element"];
    match t["name"].as_str() {
        Some("cbw") | Some("ecw") | Some("dirth") => {
            "threads × queue depth grid, highest first; pre-writes at the highest".into()
        }
        Some("lat") | Some("xsr") => format!("T{}Q{}", first["threads"], first["depth"]),
        Some(n) if n.starts_with("tp") => format!(
            "T{}Q{}: {} sequential streams, each on its own share of the active range",
            pts["threads"], pts["depth"], pts["threads"]
        ),
        _ => format!("T{}Q{}", pts["threads"], pts["depth"]),
    }
}

/// How a test's tracked figure is drawn: its format, what its stored value (bytes/s, ns, IOPS)
/// is divided by, and the axis title. One unit per quantity on a page: throughput in MB/s.
fn tracked_axis(t: &Value) -> (Format, f64, &'static str) {
    match t["name"].as_str() {
        Some("lat") => (Format::Nanos, 1.0, "Average response time"),
        Some(n) if n.starts_with("tp") || n == "xsr" => (Format::Plain, 1e6, "Throughput (MB/s)"),
        _ => (Format::Count, 1.0, "IOPS"),
    }
}

/// The tracked variables round by round (the IOPS test's three on a log scale), with the
/// test's own preconditioning loop's rounds where it has one.
fn convergence(id: &str, t: &Value) -> Chart {
    let ss = &t["steady_state"];
    let (format, div, title) = tracked_axis(t);
    let xy = |vals: &Value| -> Vec<(f64, f64)> {
        numbers(vals)
            .into_iter()
            .enumerate()
            .map(|(i, v)| ((i + 1) as f64, v / div))
            .collect()
    };
    let mut series: Vec<Series> = match ss["variables"].as_array().filter(|v| !v.is_empty()) {
        Some(vars) => vars
            .iter()
            .map(|v| Series {
                name: unitless(v["label"].as_str().unwrap_or("")),
                points: xy(&v["values"]),
                dashed: false,
            })
            .collect(),
        None => vec![Series {
            name: unitless(t["tracked"].as_str().unwrap_or("")),
            points: xy(&ss["values"]),
            dashed: false,
        }],
    };
    if let Some(p) = t["preconditioning"].as_object() {
        series.push(Series {
            name: format!(
                "preconditioning loop: {}",
                p["stimulus"].as_str().unwrap_or("")
            ),
            points: xy(&p["steady"]["values"]),
            dashed: true,
        });
    }
    let log = series.len() > 1 && format == Format::Count;
    let mut c = Chart::lines(
        &format!("{id}-convergence"),
        &format!(
            "Steady-state convergence: {}",
            &unitless(t["tracked"].as_str().unwrap_or(""))
        ),
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
fn max_convergence(id: &str, t: &Value) -> Chart {
    let mut by: Vec<Series> = Vec::new();
    for r in t["rounds"].as_array().into_iter().flatten() {
        let x = r["round"].as_f64().unwrap_or(0.0);
        for e in r["elements"].as_array().into_iter().flatten() {
            let name = unitless(e["label"].as_str().unwrap_or(""));
            let y = e["max_ns"].as_f64().unwrap_or(0.0);
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
fn window_chart(id: &str, t: &Value, v: &Value) -> Option<Chart> {
    let w = v["window"]["rounds"].as_array()?;
    let (a, b) = (w.first()?.as_u64()? as usize, w.get(1)?.as_u64()? as usize);
    let (format, div, title) = tracked_axis(t);
    let values: Vec<f64> = numbers(&v["values"]).iter().map(|x| x / div).collect();
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
    let label = &unitless(v["label"].as_str().unwrap_or(""));
    let heading =
        format!(
        "Measurement window, rounds {a}-{b}: {label}: {} (range {:.1} %, slope excursion {:.1} %)",
        if v["reached"].as_bool() == Some(true) {
            "steady"
        } else {
            "not steady"
        },
        v["window"]["range_pct"].as_f64().unwrap_or(f64::NAN),
        v["window"]["slope_excursion_pct"].as_f64().unwrap_or(f64::NAN),
    );
    Some(Chart::lines(
        id,
        &heading,
        axis("Round", ScaleKind::Linear, Format::Plain),
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
fn window_table(t: &Value) -> String {
    let ss = &t["steady_state"];
    let (fmt, div, _) = tracked_axis(t);
    let vars: Vec<Value> = match ss["variables"].as_array().filter(|v| !v.is_empty()) {
        Some(v) => v.clone(),
        None => vec![serde_json::json!({"label": t["tracked"], "values": ss["values"]})],
    };
    let n = vars
        .iter()
        .map(|v| numbers(&v["values"]).len())
        .max()
        .unwrap_or(0);
    let mut h = String::from("<table class=\"pts-window\"><thead><tr><th>round</th>");
    for i in 1..=n {
        let _ = write!(h, "<th>{i}</th>");
    }
    h.push_str("</tr></thead><tbody>");
    for v in &vars {
        let _ = write!(
            h,
            "<tr><th>{}</th>",
            esc(&unitless(v["label"].as_str().unwrap_or("tracked")))
        );
        for x in numbers(&v["values"]) {
            let _ = write!(h, "<td>{}</td>", esc(&fmt.apply(x / div)));
        }
        h.push_str("</tr>");
    }
    let verdict = match (ss["reached"].as_bool(), ss["series"].as_bool()) {
        (_, Some(true)) => {
            "a series: the specification sets no steady-state criterion for it, and none is claimed"
                .to_string()
        }
        (Some(true), _) => {
            "steady state reached: every tracked variable within the limits in the same rounds"
                .to_string()
        }
        _ if ss["gave_up"].as_bool() == Some(true) => {
            "steady state NOT reached: rounds used up".into()
        }
        _ => "steady state not reached".into(),
    };
    let _ = write!(h, "</tbody></table><p>{verdict}");
    if ss["series"].as_bool() != Some(true) {
        let _ = write!(
            h,
            "; window: rounds {} (limits: data excursion {} %, slope excursion {} % of the average)",
            match (ss["window_rounds"][0].as_u64(), ss["window_rounds"][1].as_u64()) {
                (Some(a), Some(b)) => format!("{a}-{b}"),
                _ => "none yet".into(),
            },
            ss["rule"]["range_pct"],
            ss["rule"]["slope_pct"],
        );
        for v in &vars {
            let w = &v["window"];
            if let Some(avg) = w["average"].as_f64() {
                let _ = write!(
                    h,
                    "; {}: average {}, data excursion {:.1} %, slope excursion {:.1} %",
                    esc(&unitless(v["label"].as_str().unwrap_or(""))),
                    esc(&fmt.apply(avg / div)),
                    w["range_pct"].as_f64().unwrap_or(f64::NAN),
                    w["slope_excursion_pct"].as_f64().unwrap_or(f64::NAN),
                );
            }
        }
    }
    h.push_str(".</p>");
    h
}

/// The elements of the measurement window's rounds (the last rounds when there is none).
fn window_elements(t: &Value) -> Vec<&Value> {
    let rounds: Vec<&Value> = t["rounds"].as_array().into_iter().flatten().collect();
    let w = &t["steady_state"]["window_rounds"];
    let (a, b) = match (w[0].as_u64(), w[1].as_u64()) {
        (Some(a), Some(b)) => (a as usize, b as usize),
        _ => (rounds.len().saturating_sub(4).max(1), rounds.len()),
    };
    rounds
        .iter()
        .filter(|r| (a..=b).contains(&(r["round"].as_u64().unwrap_or(0) as usize)))
        .flat_map(|r| r["elements"].as_array().into_iter().flatten())
        .collect()
}

/// The average of `key` over the window for each (read %, block size) element.
fn averaged(t: &Value, key: &str) -> Vec<((u64, u64), f64)> {
    averaged_by(t, ["read_pct", "bs"], key)
}

/// The average of `key` over the window for each element, elements told apart by the two
/// `fields` of their stimulus, in first-seen order.
fn averaged_by(t: &Value, fields: [&str; 2], key: &str) -> Vec<((u64, u64), f64)> {
    let mut acc: Vec<((u64, u64), f64, u32)> = Vec::new();
    for e in window_elements(t) {
        let k = (
            e["element"][fields[0]].as_u64().unwrap_or(0),
            e["element"][fields[1]].as_u64().unwrap_or(0),
        );
        let v = e[key].as_f64().unwrap_or(0.0);
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

/// The IOPS test's table as SNIA's pages lay it out (block sizes down, small to large;
/// read/write mixes across, from 100 % write on the left to 100 % read on the right), each
/// cell averaged over the window, and its surface as one line per mix over block size.
fn iops(id: &str, t: &Value) -> String {
    let cells = averaged(t, "iops");
    let mut mixes: Vec<u64> = cells.iter().map(|((m, _), _)| *m).collect();
    mixes.sort_unstable();
    mixes.dedup();
    let mut sizes: Vec<u64> = cells.iter().map(|((_, b), _)| *b).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut h =
        String::from("<table class=\"pts-iops\"><thead><tr><th>block size \\ read/write</th>");
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
    h
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
fn element_table(t: &Value) -> String {
    let mut h = String::from(
        "<table class=\"pts-elements\"><thead><tr><th>element</th><th>IOPS</th><th>MB/s</th>\
         <th>average (µs)</th><th>maximum (µs)</th><th>99.999 % (µs)</th></tr></thead><tbody>",
    );
    let (iops, bw, mean, max, p5) = (
        averaged(t, "iops"),
        averaged(t, "bw_bytes"),
        averaged(t, "mean_ns"),
        averaged(t, "max_ns"),
        averaged(t, "p99999_ns"),
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
fn wsat(id: &str, t: &Value, pts: &Value) -> String {
    let secs = pts["element_time_s"].as_f64().unwrap_or(60.0);
    let mut by_time = Vec::new();
    let mut by_bytes = Vec::new();
    let mut written = 0.0;
    for (i, r) in t["rounds"].as_array().into_iter().flatten().enumerate() {
        for e in r["elements"].as_array().into_iter().flatten() {
            let iops = e["iops"].as_f64().unwrap_or(0.0);
            written += e["write_bytes"].as_f64().unwrap_or(0.0);
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
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-time"),
        "Write saturation: 4 KiB random write IOPS over time",
        axis("Time (s)", ScaleKind::Linear, Format::Plain),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        one("IOPS", by_time),
    ));
    h.push_str(&chart_block(&Chart::lines(
        &format!("{id}-written"),
        "Write saturation: 4 KiB random write IOPS against data written",
        axis("Written (GB, decimal)", ScaleKind::Linear, Format::Plain),
        axis("IOPS", ScaleKind::Linear, Format::Count),
        one("IOPS", by_bytes),
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
fn recovery(id: &str, t: &Value, pts: &Value) -> String {
    let secs = pts["element_time_s"].as_f64().unwrap_or(60.0);
    let bytes = t["name"].as_str() == Some("xsr");
    let figure = |e: &Value| match bytes {
        true => e["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6,
        false => e["iops"].as_f64().unwrap_or(0.0),
    };
    let rounds: Vec<(f64, f64)> = t["rounds"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, r)| {
            r["elements"]
                .as_array()
                .into_iter()
                .flatten()
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
    let mut table = String::from(
        "<table class=\"pts-phases\"><thead><tr><th>phase</th><th>steps</th><th>IOPS</th>\
         <th>MB/s</th><th>average response time (µs)</th></tr></thead><tbody>",
    );
    for p in t["phases"].as_array().into_iter().flatten() {
        let points: Vec<&Value> = p["points"].as_array().into_iter().flatten().collect();
        let start = clock;
        let mut pts_xy = Vec::new();
        for x in &points {
            let at = start + x["at_s"].as_f64().unwrap_or(0.0);
            pts_xy.push((at + x["time_s"].as_f64().unwrap_or(0.0), figure(x)));
            clock = at + x["time_s"].as_f64().unwrap_or(0.0) + x["idle_s"].as_f64().unwrap_or(0.0);
        }
        let n = points.len().max(1) as f64;
        let avg = |k: &str| points.iter().filter_map(|x| x[k].as_f64()).sum::<f64>() / n;
        let name = p["name"].as_str().unwrap_or("");
        let _ = write!(
            table,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            esc(name),
            points.len(),
            esc(&compact(avg("iops"))),
            avg("bw_bytes") / 1e6,
            us(avg("mean_ns"))
        );
        series.push(Series {
            name: name.into(),
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
fn by_outstanding(t: &Value) -> Vec<((u64, u64), f64, f64)> {
    let fields = ["threads", "depth"];
    let means = averaged_by(t, fields, "mean_ns");
    averaged_by(t, fields, "iops")
        .into_iter()
        .zip(means)
        .map(|((k, iops), (_, mean))| (k, iops, mean))
        .collect()
}

/// Demand intensity: average response time against IOPS, one curve a thread count over
/// its queue depths, and the thread count × queue depth table.
fn demand(id: &str, t: &Value) -> String {
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
    h.push_str("<table class=\"pts-demand\"><thead><tr><th>threads \\ depth</th>");
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

/// The response-time histograms at the operating points, and their figures.
fn histograms(id: &str, t: &Value) -> String {
    let points: Vec<&Value> = t["phases"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["points"].as_array().into_iter().flatten())
        .filter(|x| x["histogram"].is_array())
        .collect();
    if points.is_empty() {
        return String::new();
    }
    let name = |x: &Value| {
        format!(
            "{}: {}",
            x["role"].as_str().unwrap_or(""),
            &unitless(x["label"].as_str().unwrap_or(""))
        )
    };
    let series = points
        .iter()
        .map(|x| Series {
            name: name(x),
            points: x["histogram"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| Some((b[0].as_f64()?, b[1].as_f64()?)))
                .collect(),
            dashed: false,
        })
        .collect();
    let mut h = chart_block(&Chart::lines(
        &format!("{id}-histograms"),
        "Response-time histograms at the operating points (ten bins a decade)",
        axis(
            "Response time (bin's upper edge)",
            ScaleKind::Log10,
            Format::Nanos,
        ),
        axis("I/Os", ScaleKind::Log10, Format::Count),
        series,
    ));
    h.push_str(
        "<table class=\"pts-operating\"><thead><tr><th>operating point</th><th>IOPS</th>\
         <th>average (µs)</th><th>99 % (µs)</th><th>99.99 % (µs)</th><th>99.999 % (µs)</th><th>maximum (µs)</th></tr></thead><tbody>",
    );
    for x in &points {
        let us = |k: &str| us(x[k].as_f64().unwrap_or(f64::NAN));
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&name(x)),
            esc(&compact(x["iops"].as_f64().unwrap_or(0.0))),
            us("mean_ns"),
            us("p99_ns"),
            us("p9999_ns"),
            us("p99999_ns"),
            us("max_ns"),
        );
    }
    h.push_str(
        "</tbody></table><p>Response times in µs, over each point's whole run; a percentile \
         with fewer I/Os beyond it than it needs (100,000 for the 99.999th) is the maximum.</p>",
    );
    h
}
