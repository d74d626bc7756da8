//! A PTS run in words, from its stored document (`{"pts", "tests"}`): each test's purge,
//! the elements left out, the steady-state verdict with its window, and the window's
//! average of every element. `iolab pts` prints it as each test ends; `iolab show` prints it
//! for a stored run.

use std::fmt::Write as _;

use serde_json::Value;

/// The summary of one test's entry in `tests[]`.
pub fn test_summary(t: &Value) -> String {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let mut out = format!("{}: {}\n", s(&t["name"]), s(&t["title"]));
    if let Some(why) = t["unavailable"].as_str() {
        let _ = writeln!(out, "  not run: {why}");
        return out;
    }
    let _ = writeln!(out, "  purge: {}", s(&t["purge"]));
    if let Some(left) = t["interrupted"].as_str() {
        let _ = writeln!(out, "  interrupted: {left}");
    }
    for l in t["left_out"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "  left out: {}", s(l));
    }
    let ss = &t["steady_state"];
    let n = ss["values"].as_array().map_or(0, Vec::len);
    let w = |i: usize| ss["window_rounds"][i].as_u64().unwrap_or(0);
    let f = |k: &str| ss[k].as_f64().unwrap_or(f64::NAN);
    let average = match s(&t["tracked"]).contains("throughput") {
        true => format!("{:.1} MB/s", f("average") / 1e6),
        false => format!("{:.0}", f("average")),
    };
    let verdict = match (ss["reached"].as_bool(), ss["series"].as_bool()) {
        (Some(true), _) => format!(
            "steady state reached in rounds {}-{}: average {average}, range {:.1} %, slope excursion {:.1} %",
            w(0), w(1), f("range_pct"), f("slope_excursion_pct")
        ),
        (_, Some(true)) => format!("a series of {n} rounds (no steady-state criterion)"),
        _ if ss["window_rounds"].is_array() => format!(
            "steady state NOT reached in {n} rounds (last window {}-{}: range {:.1} %, slope excursion {:.1} %)",
            w(0), w(1), f("range_pct"), f("slope_excursion_pct")
        ),
        _ => format!("{n} round(s): too few for a window"),
    };
    let _ = writeln!(out, "  {}: {verdict}", s(&t["tracked"]));
    for p in t["phases"].as_array().into_iter().flatten() {
        out.push_str(&phase_summary(p));
    }
    out
}

/// A phase in a line (its points' average IOPS and throughput), and a line per point that
/// kept a histogram (its IOPS, average and 99.99th percentile response time).
fn phase_summary(p: &Value) -> String {
    let points = p["points"].as_array().map_or(&[][..], Vec::as_slice);
    let n = points.len().max(1) as f64;
    let avg = |k: &str| points.iter().filter_map(|x| x[k].as_f64()).sum::<f64>() / n;
    let mut out = format!(
        "  {}: {} step(s), average {:.0} IOPS, {:.1} MB/s\n",
        p["name"].as_str().unwrap_or(""),
        points.len(),
        avg("iops"),
        avg("bw_bytes") / 1e6
    );
    for x in points.iter().filter(|x| x["histogram"].is_array()) {
        let us = |k: &str| x[k].as_f64().unwrap_or(f64::NAN) / 1e3;
        let role = x["role"]
            .as_str()
            .map(|r| format!("{r}: "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    {role}{}: {:.0} IOPS, average {:.1} µs, 99.99th percentile {:.1} µs",
            x["label"].as_str().unwrap_or(""),
            x["iops"].as_f64().unwrap_or(f64::NAN),
            us("mean_ns"),
            us("p9999_ns")
        );
    }
    out
}

/// The summary of every test of a stored PTS run.
pub fn summary(doc: &Value) -> String {
    let mut out = String::new();
    if let Some(p) = doc["pts"].as_object() {
        let _ = writeln!(
            out,
            "{} on {}, {} bytes{} ({})\n",
            p["profile"].as_str().unwrap_or(""),
            p["target"].as_str().unwrap_or(""),
            p["region_bytes"],
            if p["quick"].as_bool() == Some(true) {
                ", --quick: scaled, not comparable"
            } else {
                ""
            },
            crate::DISCLAIMER
        );
    }
    for t in doc["tests"].as_array().into_iter().flatten() {
        out.push_str(&test_summary(t));
    }
    out
}
