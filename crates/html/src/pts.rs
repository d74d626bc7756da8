//! The report pages SNIA's PTS asks for, one section per test of a stored PTS run (`pts-iops`,
//! ...): a header (device, platform, settings, purge and preconditioning), the steady-state
//! convergence plot, the measurement window with its average, the ±10 % and ±20 % bands and
//! the fitted line, the window's table, and the test's own tables and plots. Every section
//! says it is a PTS-style run by iolab, not a certified SNIA result.

use std::fmt::Write as _;

use iolab_report::format::{compact, micros};
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
    let values = numbers(&t["steady_state"]["values"]);
    h.push_str(&chart_block(&convergence(id, t, &values)));
    if let Some(c) = window_chart(id, t, &values) {
        h.push_str(&chart_block(&c));
    }
    h.push_str(&window_table(t, &values));
    match t["name"].as_str() {
        Some("iops") => h.push_str(&iops(id, t)),
        Some("tp") | Some("lat") => h.push_str(&element_table(t)),
        Some("wsat") => h.push_str(&wsat(id, t, pts)),
        Some("hir") | Some("xsr") => h.push_str(&recovery(id, t, pts)),
        Some("ecw") => h.push_str(&demand(id, t)),
        Some("dirth") => {
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

/// The header SNIA's report pages carry: what was tested, where, how.
fn header(r: &RunData, pts: &Value, t: &Value) -> String {
    let s = |v: &Value| esc(&v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let mut h = format!(
        "<p class=\"note\"><strong>PTS-style run by iolab: not a certified SNIA result.</strong>{}</p>",
        match pts["scaled"].as_str() {
            Some(x) => format!(" {}", esc(x)),
            None => String::new(),
        }
    );
    let _ = write!(
        h,
        "<table class=\"pts-header\"><tbody>\
         <tr><th>device</th><td>{}</td></tr>\
         <tr><th>target</th><td>{} ({} test region)</td></tr>\
         <tr><th>test platform</th><td>{} · Linux {} · iolab {}</td></tr>\
         <tr><th>specification</th><td>{} · run {}</td></tr>\
         <tr><th>settings</th><td>elements of {} s · T{}Q{} (T1Q1 for latency) · libaio, direct</td></tr>\
         <tr><th>purge</th><td>{}</td></tr>\
         <tr><th>preconditioning</th><td>workload independent: {}; workload dependent: the test's own rounds</td></tr>\
         <tr><th>tracked</th><td>{}</td></tr>\
         </tbody></table>",
        esc(&r.device_named()),
        s(&pts["target"]),
        esc(&size_label(pts["region_bytes"].as_f64().unwrap_or(0.0))),
        esc(&r.detail.host.hostname),
        esc(&r.detail.host.kernel),
        esc(&r.detail.iolab_version),
        s(&pts["profile"]),
        r.id(),
        pts["element_time_s"].as_f64().unwrap_or(0.0),
        pts["threads"],
        pts["depth"],
        s(&t["purge"]),
        match t["wipc"]["bytes"].as_f64() {
            Some(b) => format!(
                "{} written in 128 KiB sequential writes ({:.0} MB/s)",
                esc(&size_label(b)),
                t["wipc"]["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6
            ),
            None => "none, the test starts from the purged drive".into(),
        },
        s(&t["tracked"]),
    );
    for l in t["left_out"].as_array().into_iter().flatten() {
        let _ = write!(h, "<p class=\"note\">Left out: {}</p>", s(l));
    }
    h
}

/// The unit the tracked variable is plotted in.
fn tracked_format(t: &Value) -> Format {
    match t["name"].as_str() {
        Some("lat") => Format::Nanos,
        Some("tp") | Some("xsr") => Format::Bytes,
        _ => Format::Count,
    }
}

/// The tracked variable round by round.
fn convergence(id: &str, t: &Value, values: &[f64]) -> Chart {
    let points = values
        .iter()
        .enumerate()
        .map(|(i, v)| ((i + 1) as f64, *v))
        .collect();
    let mut c = Chart::lines(
        &format!("{id}-convergence"),
        &format!(
            "Steady-state convergence: {}",
            t["tracked"].as_str().unwrap_or("")
        ),
        axis("Round", ScaleKind::Linear, Format::Plain),
        axis(
            t["tracked"].as_str().unwrap_or(""),
            ScaleKind::Linear,
            tracked_format(t),
        ),
        vec![Series {
            name: "tracked variable".into(),
            points,
            dashed: false,
        }],
    );
    c.lines = true;
    c
}

/// The measurement window: its rounds' values, their average, the ±10 % and ±20 % bands and
/// the least-squares line.
fn window_chart(id: &str, t: &Value, values: &[f64]) -> Option<Chart> {
    let w = t["steady_state"]["window_rounds"].as_array()?;
    let (a, b) = (w.first()?.as_u64()? as usize, w.get(1)?.as_u64()? as usize);
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
    let ss = &t["steady_state"];
    let title = format!(
        "Measurement window, rounds {a}-{b}: {} (range {:.1} %, slope excursion {:.1} %)",
        if ss["reached"].as_bool() == Some(true) {
            "steady state"
        } else {
            "not steady"
        },
        ss["range_pct"].as_f64().unwrap_or(f64::NAN),
        ss["slope_excursion_pct"].as_f64().unwrap_or(f64::NAN),
    );
    Some(Chart::lines(
        &format!("{id}-window"),
        &title,
        axis("Round", ScaleKind::Linear, Format::Plain),
        axis(
            t["tracked"].as_str().unwrap_or(""),
            ScaleKind::Linear,
            tracked_format(t),
        ),
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

/// The window's table: each round's value and the rule's figures.
fn window_table(t: &Value, values: &[f64]) -> String {
    let ss = &t["steady_state"];
    let fmt = tracked_format(t);
    let mut h = String::from("<table class=\"pts-window\"><thead><tr><th>round</th>");
    for i in 1..=values.len() {
        let _ = write!(h, "<th>{i}</th>");
    }
    h.push_str("</tr></thead><tbody><tr><th>tracked</th>");
    for v in values {
        let _ = write!(h, "<td>{}</td>", esc(&fmt.apply(*v)));
    }
    let verdict = match (ss["reached"].as_bool(), ss["series"].as_bool()) {
        (Some(true), _) => "steady state reached".to_string(),
        (_, Some(true)) => "a series: no steady-state criterion".to_string(),
        _ if ss["gave_up"].as_bool() == Some(true) => {
            "steady state NOT reached: rounds used up".into()
        }
        _ => "steady state not reached".into(),
    };
    let _ = write!(
        h,
        "</tr></tbody></table><p>{verdict}; window: rounds {}; average {}; data excursion {:.1} % (limit {} %); slope excursion {:.1} % (limit {} %).</p>",
        match (ss["window_rounds"][0].as_u64(), ss["window_rounds"][1].as_u64()) {
            (Some(a), Some(b)) => format!("{a}-{b}"),
            _ => "none yet".into(),
        },
        esc(&ss["average"].as_f64().map_or("-".into(), |a| fmt.apply(a))),
        ss["range_pct"].as_f64().unwrap_or(f64::NAN),
        ss["rule"]["range_pct"],
        ss["slope_excursion_pct"].as_f64().unwrap_or(f64::NAN),
        ss["rule"]["slope_pct"],
    );
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

/// The IOPS test's table (mix × block size, averaged over the window) and its surface as
/// one line per mix over block size.
fn iops(id: &str, t: &Value) -> String {
    let cells = averaged(t, "iops");
    let mut mixes: Vec<u64> = cells.iter().map(|((m, _), _)| *m).collect();
    mixes.dedup();
    let mut sizes: Vec<u64> = cells.iter().map(|((_, b), _)| *b).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut h = String::from("<table class=\"pts-iops\"><thead><tr><th>read/write</th>");
    for b in &sizes {
        let _ = write!(h, "<th>{}</th>", esc(&size_label(*b as f64)));
    }
    h.push_str("</tr></thead><tbody>");
    let heat = Heat::of(cells.iter().map(|c| c.1));
    for m in &mixes {
        let _ = write!(h, "<tr><th>{m}/{}</th>", 100 - m);
        for b in &sizes {
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

/// Throughput and latency tables: every element averaged over the window.
fn element_table(t: &Value) -> String {
    let mut h = String::from(
        "<table class=\"pts-elements\"><thead><tr><th>element</th><th>IOPS</th><th>MB/s</th>\
         <th>average</th><th>maximum</th><th>99.999 %</th></tr></thead><tbody>",
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
            "<tr><th>{} {}/{}</th><td>{}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&size_label(k.1 as f64)),
            k.0,
            100 - k.0,
            esc(&compact(*v)),
            bw[i].1 / 1e6,
            esc(&micros(mean[i].1)),
            esc(&micros(max[i].1)),
            esc(&micros(p5[i].1)),
        );
    }
    h.push_str("</tbody></table><p>Each figure the average over the measurement window's rounds; response times in µs.</p>");
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
            by_bytes.push((written / (1u64 << 30) as f64, iops));
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
        axis("Written (GiB)", ScaleKind::Linear, Format::Plain),
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
        true => e["bw_bytes"].as_f64().unwrap_or(0.0),
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
         <th>MB/s</th><th>average response time</th></tr></thead><tbody>",
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
            esc(&micros(avg("mean_ns")))
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
            axis("Throughput", ScaleKind::Linear, Format::Bytes),
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
    let series = threads
        .iter()
        .map(|th| Series {
            name: format!("T{th} (points: Q{})", {
                let d: Vec<String> = depths.iter().map(u64::to_string).collect();
                d.join(", Q")
            }),
            points: cells
                .iter()
                .filter(|c| c.0 .0 == *th)
                .map(|c| (c.1, c.2))
                .collect(),
            dashed: false,
        })
        .collect();
    let mut c = Chart::lines(
        &format!("{id}-demand"),
        "Demand intensity: average response time against IOPS, a curve per thread count",
        axis("IOPS", ScaleKind::Linear, Format::Count),
        axis("Average response time", ScaleKind::Log10, Format::Nanos),
        series,
    );
    // Points, not lines: a line in IOPS order would zigzag where more depth gave fewer IOPS.
    c.lines = false;
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
                    let _ = write!(
                        h,
                        "<td>{} IOPS · {}</td>",
                        esc(&compact(c.1)),
                        esc(&micros(c.2))
                    );
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
            x["label"].as_str().unwrap_or("")
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
         <th>average</th><th>99 %</th><th>99.99 %</th><th>99.999 %</th><th>maximum</th></tr></thead><tbody>",
    );
    for x in &points {
        let us = |k: &str| esc(&micros(x[k].as_f64().unwrap_or(f64::NAN)));
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
    h.push_str("</tbody></table><p>Response times in µs, over each point's whole run.</p>");
    h
}
