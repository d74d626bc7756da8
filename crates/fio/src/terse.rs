//! fio's terse output, version 3 (`--minimal`, `--output-format=terse`): one line of
//! semicolon-separated figures per job, as fio 3.33's `show_thread_status_terse_all` prints
//! it, disk utilisation appended. Built from the same fio JSON document `--output-format=json`
//! prints, so the two never disagree.

use serde_json::Value;

/// fio's percentile list length (`FIO_IO_U_LIST_MAX_LEN`): the line has this many slots.
const PERCENTILE_SLOTS: usize = 20;
const DEPTHS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
const LAT_US: [&str; 10] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
];
const LAT_MS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `min;max;mean;dev` of a latency in microseconds (fio: ns / 1000, whole for min and max).
fn lat(out: &mut String, l: &Value) {
    match u(l, "N") {
        0 => out.push_str(";0;0;0.000000;0.000000"),
        _ => out.push_str(&format!(
            ";{};{};{:.6};{:.6}",
            u(l, "min") / 1000,
            u(l, "max") / 1000,
            f(l, "mean") / 1000.0,
            f(l, "stddev") / 1000.0
        )),
    }
}

/// One direction's figures (`show_ddir_status_terse`).
fn direction(out: &mut String, d: &Value) {
    let runtime = u(d, "runtime");
    let (bw, iops) = match runtime {
        0 => (0, 0),
        r => (
            (1000 * u(d, "io_bytes") / r) / 1024,
            1000 * u(d, "total_ios") / r,
        ),
    };
    out.push_str(&format!(
        ";{};{bw};{iops};{runtime}",
        u(d, "io_bytes") >> 10
    ));
    lat(out, &d["slat_ns"]);
    lat(out, &d["clat_ns"]);
    // lat_percentiles first, as fio.
    let pct = ["lat_ns", "clat_ns"]
        .iter()
        .find_map(|k| d[*k].get("percentile").and_then(Value::as_object));
    let mut pct: Vec<(f64, u64)> = pct
        .map(|m| {
            m.iter()
                .map(|(p, v)| (p.parse().unwrap_or(0.0), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default();
    pct.sort_by(|a, b| a.0.total_cmp(&b.0));
    for i in 0..PERCENTILE_SLOTS {
        match pct.get(i) {
            Some((p, v)) => out.push_str(&format!(";{p:.6}%={}", v / 1000)),
            None => out.push_str(";0%=0"),
        }
    }
    lat(out, &d["lat_ns"]);
    match u(d, "bw_samples") {
        0 => out.push_str(";0;0;0.000000%;0.000000;0.000000"),
        _ => out.push_str(&format!(
            ";{};{};{:.6}%;{:.6};{:.6}",
            u(d, "bw_min"),
            u(d, "bw_max"),
            f(d, "bw_agg"),
            f(d, "bw_mean"),
            f(d, "bw_dev")
        )),
    }
}

/// One job's line (without its newline).
fn job_line(j: &Value, version: &str, disks: &str) -> String {
    let mut out = format!(
        "3;{version};{};{};{}",
        j["jobname"].as_str().unwrap_or(""),
        u(j, "groupid"),
        u(j, "error")
    );
    direction(&mut out, &j["read"]);
    direction(&mut out, &j["write"]);
    out.push_str(&format!(
        ";{:.6}%;{:.6}%;{};{};{}",
        f(j, "usr_cpu"),
        f(j, "sys_cpu"),
        u(j, "ctx"),
        u(j, "majf"),
        u(j, "minf")
    ));
    for k in DEPTHS {
        out.push_str(&format!(";{:3.1}%", f(&j["iodepth_level"], k)));
    }
    for k in LAT_US {
        out.push_str(&format!(";{:3.2}%", f(&j["latency_us"], k)));
    }
    for k in LAT_MS {
        out.push_str(&format!(";{:3.2}%", f(&j["latency_ms"], k)));
    }
    out.push_str(disks);
    let opts = &j["job options"];
    let coe = opts.get("continue_on_error").and_then(Value::as_str);
    if coe.is_some_and(|v| !matches!(v, "none" | "0")) {
        out.push_str(&format!(";{};{}", u(j, "total_err"), u(j, "first_error")));
    }
    if let Some(desc) = opts.get("description").and_then(Value::as_str) {
        out.push_str(&format!(";{desc}"));
    }
    out
}

/// The terse lines of a fio JSON document (`to_json`'s): one per job, each ending with the
/// run's disk utilisation as fio 3.33 appends it.
pub fn terse_v3(doc: &Value) -> String {
    let version = doc["fio version"].as_str().unwrap_or("fio-3.33");
    let disks: String = doc["disk_util"]
        .as_array()
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    format!(
                        ";{};{};{};{};{};{};{};{};{:3.2}%",
                        d["name"].as_str().unwrap_or(""),
                        u(d, "read_ios"),
                        u(d, "write_ios"),
                        u(d, "read_merges"),
                        u(d, "write_merges"),
                        u(d, "read_ticks"),
                        u(d, "write_ticks"),
                        u(d, "in_queue"),
                        f(d, "util")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    doc["jobs"]
        .as_array()
        .map(|jobs| {
            jobs.iter()
                .map(|j| job_line(j, version, &disks) + "\n")
                .collect()
        })
        .unwrap_or_default()
}
