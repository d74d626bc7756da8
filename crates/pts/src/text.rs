//! A PTS run in words and tables, from its stored document (`{"pts", "tests"}`): each test's
//! purge and what keeps it from standing beside a certified result, the steady-state verdict
//! with every tracked variable's window, and its result table as the report draws it (the
//! IOPS mix × block size table, the throughput and latency tables, write saturation's summary,
//! the demand-intensity table). `iolab pts` prints it as each test ends; `iolab show` prints
//! it for a stored run. One unit per quantity: IOPS as counts, throughput in MB/s, response
//! times in µs.

use std::fmt::Write as _;

use iolab_report::format::compact;
use serde_json::Value;

fn s(v: &Value) -> String {
    v.as_str()
        .map(iolab_report::format::unitless)
        .unwrap_or_default()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The summary of one test's entry in `tests[]`.
pub fn test_summary(t: &Value) -> String {
    let mut out = format!("{}: {}\n", s(&t["name"]), s(&t["title"]));
    if let Some(why) = t["unavailable"].as_str() {
        let _ = writeln!(out, "  not run: {why}");
        if t["purge"].as_str().is_none_or(str::is_empty) {
            return out;
        }
    }
    let _ = writeln!(out, "  purge: {}", s(&t["purge"]));
    for why in t["not_comparable"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "  not comparable: {}", s(why));
    }
    if let Some(left) = t["interrupted"].as_str() {
        let _ = writeln!(out, "  interrupted: {left}");
    }
    for l in t["left_out"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "  left out: {}", s(l));
    }
    if let Some(w) = t["wipc"].as_object() {
        let _ = writeln!(
            out,
            "  preconditioning: {:.1} GB of {} at {:.0} MB/s",
            f(&w["bytes"]) / 1e9,
            s(&w["stimulus"]),
            f(&w["bw_bytes"]) / 1e6
        );
    }
    if let Some(p) = t["preconditioning"].as_object() {
        out.push_str(&loop_line(p));
    }
    out.push_str(&verdict(t));
    out.push_str(&table(t));
    for p in t["phases"].as_array().into_iter().flatten() {
        out.push_str(&phase_summary(p));
    }
    out
}

/// The test's own preconditioning loop in a line.
fn loop_line(p: &serde_json::Map<String, Value>) -> String {
    let st = &p["steady"];
    let n = st["values"].as_array().map_or(0, Vec::len);
    let w = &st["window"];
    let how = match st["reached"].as_bool() {
        Some(true) => format!(
            "steady in rounds {}-{} (average {} IOPS)",
            w["rounds"][0],
            w["rounds"][1],
            compact(f(&w["average"]))
        ),
        _ => format!("NOT steady in {n} round(s)"),
    };
    format!(
        "  workload-dependent preconditioning: {} in rounds of {} intervals, {}: {how}\n",
        s(&p["stimulus"]),
        p["intervals_a_round"],
        s(&p["tracked"])
    )
}

/// The steady-state verdict, a line per tracked variable.
fn verdict(t: &Value) -> String {
    let ss = &t["steady_state"];
    let n = ss["values"].as_array().map_or(0, Vec::len);
    if ss["series"].as_bool() == Some(true) {
        return format!(
            "  {}: a series of {n} rounds (no steady-state criterion)\n",
            s(&t["tracked"])
        );
    }
    let w = |i: usize| ss["window_rounds"][i].as_u64().unwrap_or(0);
    let mut out = match (ss["reached"].as_bool(), ss["window_rounds"].is_array()) {
        (Some(true), _) => format!("  steady state reached in rounds {}-{}:\n", w(0), w(1)),
        (_, true) => format!(
            "  steady state NOT reached in {n} rounds (last window {}-{}):\n",
            w(0),
            w(1)
        ),
        _ => format!("  {n} round(s): too few for a window\n"),
    };
    for v in ss["variables"].as_array().into_iter().flatten() {
        let win = &v["window"];
        if win.is_null() {
            continue;
        }
        let label = s(&v["label"]);
        let avg = f(&win["average"]);
        let average = match () {
            _ if label.contains("throughput") => format!("{:.1} MB/s", avg / 1e6),
            _ if label.contains("response time") => format!("{:.1} µs", avg / 1e3),
            _ => format!("{} IOPS", compact(avg)),
        };
        let _ = writeln!(
            out,
            "    {label}: average {average}, range {:.1} %, slope excursion {:.1} %{}",
            f(&win["range_pct"]),
            f(&win["slope_excursion_pct"]),
            if v["reached"].as_bool() == Some(true) {
                ""
            } else {
                " (not steady)"
            }
        );
    }
    out
}

/// Each element's `key` averaged over the measurement window's rounds (the last rounds when
/// no window was judged), in round order: (element, average).
pub fn window_average<'a>(t: &'a Value, key: &str) -> Vec<(&'a Value, f64)> {
    let rounds = t["rounds"].as_array().map_or(&[][..], Vec::as_slice);
    let n = rounds.len();
    let ss = &t["steady_state"]["window_rounds"];
    let (a, b) = match (ss[0].as_u64(), ss[1].as_u64()) {
        (Some(a), Some(b)) => (a as usize, b as usize),
        _ => (n.saturating_sub(4).max(1), n),
    };
    let mut out: Vec<(&Value, f64, usize)> = Vec::new();
    for r in rounds
        .iter()
        .skip(a.saturating_sub(1))
        .take(b + 1 - a.min(b + 1))
    {
        for e in r["elements"].as_array().into_iter().flatten() {
            let v = f(&e[key]);
            match out.iter_mut().find(|(x, _, _)| x["label"] == e["label"]) {
                Some((_, sum, k)) => {
                    *sum += v;
                    *k += 1;
                }
                None => out.push((e, v, 1)),
            }
        }
    }
    out.into_iter()
        .map(|(e, sum, k)| (e, sum / k as f64))
        .collect()
}

/// The test's result table, as the report has it.
fn table(t: &Value) -> String {
    let name = s(&t["name"]);
    match name.as_str() {
        "iops" => iops_table(t),
        n if n.starts_with("tp-") => tp_table(t),
        "lat" => lat_table(t),
        "wsat" => wsat_summary(t),
        "cbw" | "dirth" => demand_table(t),
        _ => String::new(),
    }
}

fn size_of(e: &Value) -> String {
    crate::element::size_name(e["element"]["bs"].as_u64().unwrap_or(0) as u32)
}

fn mix_of(e: &Value) -> String {
    let r = e["element"]["read_pct"].as_u64().unwrap_or(0);
    format!("{r}/{}", 100 - r)
}

/// Rows × columns of a figure, a header row first.
fn grid(
    corner: &str,
    rows: &[String],
    cols: &[String],
    cell: impl Fn(&str, &str) -> String,
) -> String {
    let mut out = format!("    {corner:>10}");
    for c in cols {
        let _ = write!(out, " {c:>9}");
    }
    out.push('\n');
    for r in rows {
        let _ = write!(out, "    {r:>10}");
        for c in cols {
            let _ = write!(out, " {:>9}", cell(r, c));
        }
        out.push('\n');
    }
    out
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// SNIA's layout: block sizes down, small to large; mixes across, from 100 % write on the
/// left to 100 % read on the right.
fn iops_table(t: &Value) -> String {
    let avg = window_average(t, "iops");
    let by = |k: &str| {
        let mut v: Vec<u64> = avg
            .iter()
            .filter_map(|(e, _)| e["element"][k].as_u64())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let rows: Vec<String> = by("bs")
        .into_iter()
        .map(|b| crate::element::size_name(b as u32))
        .collect();
    let cols: Vec<String> = by("read_pct")
        .into_iter()
        .map(|r| format!("{r}/{}", 100 - r))
        .collect();
    let cell = |r: &str, c: &str| {
        avg.iter()
            .find(|(e, _)| size_of(e) == r && mix_of(e) == c)
            .map_or("-".into(), |(_, v)| compact(*v))
    };
    format!(
        "  IOPS over the window (block size down, read/write mix across):\n{}",
        grid("", &rows, &cols, cell)
    )
}

fn tp_table(t: &Value) -> String {
    let avg = window_average(t, "bw_bytes");
    let mut out = String::from("  throughput over the window:\n");
    for (e, v) in avg {
        let what = match e["element"]["read_pct"].as_u64() {
            Some(100) => "read",
            _ => "write",
        };
        let _ = writeln!(
            out,
            "    {} sequential {what}: {:.1} MB/s",
            size_of(e),
            v / 1e6
        );
    }
    out
}

fn lat_table(t: &Value) -> String {
    let mean = window_average(t, "mean_ns");
    let nines = window_average(t, "p99999_ns");
    let max = window_average(t, "max_ns");
    let mut out =
        String::from("  response times over the window, µs (average / 99.999 % / maximum):\n");
    let rows = distinct(mean.iter().map(|(e, _)| size_of(e)));
    let cols = distinct(mean.iter().map(|(e, _)| mix_of(e)));
    let find = |set: &[(&Value, f64)], r: &str, c: &str| {
        set.iter()
            .find(|(e, _)| size_of(e) == r && mix_of(e) == c)
            .map(|(_, v)| *v / 1e3)
    };
    for r in &rows {
        for c in &cols {
            let (Some(a), Some(n), Some(m)) =
                (find(&mean, r, c), find(&nines, r, c), find(&max, r, c))
            else {
                continue;
            };
            let _ = writeln!(out, "    {r:>8} {c:>7}: {a:>9.1} {n:>10.1} {m:>10.1}");
        }
    }
    // The 99.999th percentile of fewer than 100,000 I/Os is the largest of them.
    let at_max = nines.iter().zip(&max).any(|((_, n), (_, m))| n >= m);
    if at_max {
        out.push_str(
            "    (an element of fewer than 100,000 I/Os has no I/O beyond its 99.999th \
             percentile: there it is the maximum)\n",
        );
    }
    out
}

fn wsat_summary(t: &Value) -> String {
    let rounds = t["rounds"].as_array().map_or(&[][..], Vec::as_slice);
    let written: f64 = rounds
        .iter()
        .flat_map(|r| r["elements"].as_array().into_iter().flatten())
        .map(|e| f(&e["write_bytes"]))
        .sum();
    let iops: Vec<f64> = t["steady_state"]["values"]
        .as_array()
        .into_iter()
        .flatten()
        .map(f)
        .collect();
    let last = &iops[iops.len().saturating_sub(5)..];
    format!(
        "  {} rounds, {:.1} GB written: IOPS {} in the first round, {} over the last {}\n",
        iops.len(),
        written / 1e9,
        iops.first().map_or("-".into(), |v| compact(*v)),
        compact(last.iter().sum::<f64>() / last.len().max(1) as f64),
        last.len()
    )
}

fn demand_table(t: &Value) -> String {
    let iops = window_average(t, "iops");
    let mean = window_average(t, "mean_ns");
    let th = |e: &Value| format!("T{}", e["element"]["threads"]);
    let qd = |e: &Value| format!("Q{}", e["element"]["depth"]);
    let rows = distinct(iops.iter().map(|(e, _)| th(e)));
    let cols = distinct(iops.iter().map(|(e, _)| qd(e)));
    let cell = |set: &[(&Value, f64)], scale: f64, r: &str, c: &str| {
        set.iter().find(|(e, _)| th(e) == r && qd(e) == c).map_or(
            "-".into(),
            |(_, v)| match scale {
                1.0 => compact(*v),
                _ => format!("{:.1}", v / scale),
            },
        )
    };
    format!(
        "  IOPS over the window (threads down, queue depth across):\n{}  average response time over the window, µs:\n{}",
        grid("", &rows, &cols, |r, c| cell(&iops, 1.0, r, c)),
        grid("", &rows, &cols, |r, c| cell(&mean, 1e3, r, c))
    )
}

/// A phase in a line (its points' average IOPS and throughput), and a line per point that
/// kept a histogram (its IOPS, average and 99.99th percentile response time).
fn phase_summary(p: &Value) -> String {
    let all = p["points"].as_array().map_or(&[][..], Vec::as_slice);
    // A pre-write prepares the point; the point's own figures are what the phase measured.
    let points: Vec<&Value> = all.iter().filter(|x| x["role"] != "pre-write").collect();
    let n = points.len().max(1) as f64;
    let avg = |k: &str| points.iter().filter_map(|x| x[k].as_f64()).sum::<f64>() / n;
    let pre = match all.len() - points.len() {
        0 => String::new(),
        k => format!(" after {k} pre-write(s)"),
    };
    let mut out = format!(
        "  {}: {} step(s){pre}, average {} IOPS, {:.1} MB/s\n",
        p["name"].as_str().unwrap_or(""),
        points.len(),
        compact(avg("iops")),
        avg("bw_bytes") / 1e6
    );
    for x in points.iter().filter(|x| x["histogram"].is_array()) {
        let x = *x;
        let us = |k: &str| f(&x[k]) / 1e3;
        let role = x["role"]
            .as_str()
            .map(|r| format!("{r}: "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    {role}{}: {} IOPS, average {:.1} µs, 99.99 % {:.1} µs{}",
            x["label"].as_str().unwrap_or(""),
            compact(f(&x["iops"])),
            us("mean_ns"),
            us("p9999_ns"),
            tail_note(x)
        );
    }
    out
}

/// Where a percentile is the maximum because too few I/Os lie beyond it (the 99.999th
/// needs 100,000 I/Os to have one past it), said beside it.
pub fn tail_note(x: &Value) -> String {
    let ios = f(&x["iops"]) * f(&x["time_s"]);
    match ios.is_finite() && ios < 100_000.0 {
        true => format!(
            " ({:.0} I/Os: the 99.999 % is the maximum until 100,000)",
            ios
        ),
        false => String::new(),
    }
}

/// The summary of every test of a stored PTS run.
pub fn summary(doc: &Value) -> String {
    let mut out = String::new();
    if let Some(p) = doc["pts"].as_object() {
        let _ = writeln!(
            out,
            "{} on {}, active range {} bytes ({:.1} % of {} bytes){} ({})",
            s(&p["profile"]),
            s(&p["target"]),
            p["region_bytes"],
            f(&p["active_range_pct"]),
            p["capacity_bytes"],
            if p["quick"].as_bool() == Some(true) {
                ", --quick: scaled, not comparable"
            } else {
                ""
            },
            crate::DISCLAIMER
        );
        if let Some(d) = p["dut"].as_object() {
            let _ = writeln!(
                out,
                "device: {} · serial {} · firmware {} · {}; write cache {}; data {}\n",
                d["model"].as_str().unwrap_or("unknown model"),
                d["serial"].as_str().unwrap_or("unknown"),
                d["firmware"].as_str().unwrap_or("unknown"),
                s(&d["interface"]),
                s(&p["write_cache"]["during"]),
                s(&p["data_pattern"])
            );
        }
    }
    for t in doc["tests"].as_array().into_iter().flatten() {
        out.push_str(&test_summary(t));
    }
    out
}
