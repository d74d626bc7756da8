//! fio's own JSON output (`--output-format=json` or `json+`) made into a results record, so
//! runs of fio can be kept, listed, compared and drawn next to iolab's.
//!
//! Every figure keeps fio's meaning and takes iolab's stored name: `iops`, `bw_bytes`,
//! `clat_mean_ns`, `clat_p99_ns` (only the percentiles fio printed), and so on; a `json+`
//! output's latency bins become a histogram, so any percentile can be recomputed from it as
//! from iolab's own. CPU is fio's usr/sys percentages of `job_runtime`, in ns.

use serde::Deserialize;
use serde_json::{Map, Value};

use iolab_results::{
    percentile_name, CpuRecord, HistogramRecord, JobRecord, LatencyHistogram, RunRecord,
};

use crate::units::parse_size;

/// Why a JSON document could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("neither an iolab export nor fio's JSON output (no \"format\": \"iolab-run\", no \"fio version\")")]
    Unknown,
    #[error("fio JSON: {0}")]
    Fio(String),
    #[error("an iolab export of record version {found}, newer than this iolab reads ({known}); use a newer iolab")]
    TooNew { found: u32, known: u32 },
}

/// Reads `text` as an iolab export (a run record, or an array of them) or fio's JSON output.
/// fio may print notes before its JSON on stdout; anything before the first line starting
/// with `{` is skipped.
pub fn import(text: &str) -> Result<Vec<RunRecord>, ImportError> {
    let trimmed = text.trim_start();
    let start = match trimmed.starts_with(['{', '[']) {
        true => text.len() - trimmed.len(),
        false => text.find("\n{").map_or(0, |i| i + 1),
    };
    let v: Value =
        serde_json::from_str(&text[start..]).map_err(|e| ImportError::NotJson(e.to_string()))?;
    match v {
        Value::Array(runs) => runs.iter().map(import_one).collect(),
        one => import_one(&one).map(|r| vec![r]),
    }
}

/// One document: an iolab run record or fio's JSON output.
fn import_one(v: &Value) -> Result<RunRecord, ImportError> {
    if v["format"] == iolab_results::RECORD_FORMAT {
        let found = v["version"].as_u64().unwrap_or(0) as u32;
        if found > iolab_results::RECORD_VERSION {
            let known = iolab_results::RECORD_VERSION;
            return Err(ImportError::TooNew { found, known });
        }
        return RunRecord::deserialize(v).map_err(|e| ImportError::NotJson(e.to_string()));
    }
    if v.get("fio version").is_some() {
        return from_fio(v);
    }
    Err(ImportError::Unknown)
}

/// A run record from fio's JSON output.
pub fn from_fio(v: &Value) -> Result<RunRecord, ImportError> {
    let version = v["fio version"].as_str().unwrap_or("fio").to_string();
    let jobs = v["jobs"]
        .as_array()
        .ok_or_else(|| ImportError::Fio("no \"jobs\" list".into()))?;
    let global = v["global options"].as_object().cloned().unwrap_or_default();
    let at = v["timestamp_ms"]
        .as_i64()
        .or_else(|| v["timestamp"].as_i64().map(|s| s * 1000))
        .unwrap_or(0);
    if jobs.is_empty() {
        return Err(ImportError::Fio(
            "its \"jobs\" list is empty: there is no result to keep".into(),
        ));
    }
    for (i, j) in jobs.iter().enumerate() {
        check_counts(i, j)?;
    }
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| job_from_fio(i, j, &global))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RunRecord {
        kind: "fio".into(),
        status: "ok".into(),
        started_ms: at,
        finished_ms: Some(at),
        command: format!("{version} (imported JSON)"),
        iolab_version: version.clone(),
        meta: serde_json::json!({ "imported_from": version }),
        jobs,
        ..RunRecord::default()
    })
}

/// Refuses a job whose figures no run can have: a negative count, time, rate or latency in
/// any direction (a `-5` would read later as an 8-million-percent regression), or CPU
/// shares below zero. (JSON has no NaN or infinity: those are not JSON to begin with.)
fn check_counts(i: usize, j: &Value) -> Result<(), ImportError> {
    fn negative(v: &Value, at: String) -> Option<(String, f64)> {
        match v {
            Value::Number(n) => n.as_f64().filter(|x| *x < 0.0).map(|x| (at, x)),
            Value::Object(m) => m.iter().find_map(|(k, v)| negative(v, format!("{at}.{k}"))),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .find_map(|(k, v)| negative(v, format!("{at}[{k}]"))),
            _ => None,
        }
    }
    let name = j["jobname"]
        .as_str()
        .map_or(format!("job {i}"), |n| format!("job '{n}'"));
    let figures = ["read", "write", "trim", "sync", "mixed"]
        .iter()
        .map(|d| (d.to_string(), &j[*d]))
        .chain(["usr_cpu", "sys_cpu", "ctx", "job_runtime"].map(|k| (k.to_string(), &j[k])));
    for (at, v) in figures {
        if let Some((at, x)) = negative(v, at) {
            return Err(ImportError::Fio(format!(
                "{name}: {at} is {x}; no run has a negative count, time or latency"
            )));
        }
    }
    Ok(())
}

/// An option of a job: the job's own, else the global one.
fn option<'a>(
    job: &'a Map<String, Value>,
    global: &'a Map<String, Value>,
    k: &str,
) -> Option<&'a str> {
    job.get(k).or_else(|| global.get(k)).and_then(Value::as_str)
}

fn job_from_fio(
    i: usize,
    j: &Value,
    global: &Map<String, Value>,
) -> Result<JobRecord, ImportError> {
    let name = j["jobname"]
        .as_str()
        .ok_or_else(|| ImportError::Fio(format!("job {i} has no \"jobname\"")))?;
    let own = j["job options"].as_object().cloned().unwrap_or_default();
    let opt = |k: &str| option(&own, global, k);
    let mut options: Vec<(String, String)> = Vec::new();
    for (k, v) in global.iter().chain(own.iter()) {
        let Some(v) = v.as_str() else { continue };
        match options.iter_mut().find(|o| o.0 == *k) {
            Some(o) => o.1 = v.to_string(),
            None => options.push((k.clone(), v.to_string())),
        }
    }
    let bs = opt("bs").or(opt("blocksize")).unwrap_or("4k");
    let block_size = bs
        .split([',', ':', '-'])
        .filter_map(|s| parse_size(s).ok())
        .max()
        .unwrap_or(4096);
    let mut rec = JobRecord {
        idx: i as i64,
        name: name.to_string(),
        group_id: j["groupid"].as_i64().unwrap_or(0),
        description: j["desc"].as_str().unwrap_or("").to_string(),
        // fio's defaults on Linux: psync, depth 1, sequential read.
        engine: opt("ioengine").unwrap_or("psync").to_string(),
        iodepth: opt("iodepth").and_then(|d| d.parse().ok()).unwrap_or(1),
        rw: opt("rw").or(opt("readwrite")).unwrap_or("read").to_string(),
        block_size: block_size as i64,
        clones: opt("numjobs").and_then(|d| d.parse().ok()).unwrap_or(1),
        target: opt("filename")
            .or(opt("directory"))
            .unwrap_or("")
            .to_string(),
        options,
        ..JobRecord::default()
    };
    for dir in ["read", "write", "trim", "mixed", "sync"] {
        add_direction(&mut rec, dir, &j[dir]);
    }
    rec.runtime_ns = ["read", "write", "trim", "mixed"]
        .iter()
        .filter_map(|d| j[d]["runtime"].as_i64())
        .max()
        .unwrap_or(0)
        * 1_000_000;
    rec.cpu = cpu(j, &rec);
    Ok(rec)
}

/// fio's usr/sys CPU are percentages of `job_runtime` (ms).
fn cpu(j: &Value, rec: &JobRecord) -> CpuRecord {
    let runtime_ns = j["job_runtime"].as_f64().unwrap_or(0.0) * 1e6;
    let pct = |k: &str| j[k].as_f64().unwrap_or(0.0);
    let mut cpu = CpuRecord {
        user_ns: pct("usr_cpu") / 100.0 * runtime_ns,
        sys_ns: pct("sys_cpu") / 100.0 * runtime_ns,
        ctx: j["ctx"].as_f64().unwrap_or(0.0),
        ..CpuRecord::default()
    };
    let ios: f64 = ["read", "write", "trim", "mixed"]
        .iter()
        .filter_map(|d| rec.metric(d, "ios"))
        .sum();
    if cpu.total_ns() > 0.0 {
        cpu.iops_per_cpu_sec = ios / (cpu.total_ns() / 1e9);
    }
    cpu
}

/// One direction's figures, when it did any I/O.
fn add_direction(rec: &mut JobRecord, dir: &str, d: &Value) {
    let ios = d["total_ios"].as_f64().unwrap_or(0.0);
    if ios == 0.0 && dir != "sync" {
        return;
    }
    let m = &mut rec.metrics;
    if dir == "sync" {
        let n = d["total_ios"]
            .as_f64()
            .or(d["lat_ns"]["N"].as_f64())
            .unwrap_or(0.0);
        if n == 0.0 {
            return;
        }
        m.push(dir, "ios", n);
    } else {
        m.push(dir, "ios", ios);
        m.push(dir, "bytes", d["io_bytes"].as_f64().unwrap_or(0.0));
        m.push(dir, "iops", d["iops"].as_f64().unwrap_or(0.0));
        m.push(dir, "bw_bytes", d["bw_bytes"].as_f64().unwrap_or(0.0));
    }
    for lat in ["slat", "clat", "lat"] {
        let l = &d[format!("{lat}_ns")];
        if l["N"].as_f64().unwrap_or(0.0) == 0.0 {
            continue;
        }
        for k in ["mean", "min", "max", "stddev"] {
            rec.metrics
                .push(dir, &format!("{lat}_{k}_ns"), l[k].as_f64().unwrap_or(0.0));
        }
        if let Some(p) = l["percentile"].as_object() {
            for (k, v) in p {
                let (Ok(pct), Some(ns)) = (k.parse::<f64>(), v.as_f64()) else {
                    continue;
                };
                let name = format!("{lat}_{}_ns", percentile_name(pct));
                rec.metrics.push(dir, &name, ns);
            }
        }
        if let Some(h) = histogram_of_bins(l) {
            rec.histograms.push(HistogramRecord {
                direction: dir.to_string(),
                latency: lat.to_string(),
                ticks_per_ns: 1.0,
                histogram: h,
            });
        }
    }
}

/// `json+`'s latency bins (`"bins": {"ns": count}`) as a histogram in ns.
fn histogram_of_bins(l: &Value) -> Option<LatencyHistogram> {
    let bins = l["bins"].as_object()?;
    let mut h = LatencyHistogram::new();
    for (k, v) in bins {
        let (Ok(ns), Some(n)) = (k.parse::<u64>(), v.as_u64()) else {
            continue;
        };
        h.record_n(ns, n);
    }
    (h.count() > 0).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIO: &str = r#"note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1
{
  "fio version" : "fio-3.33",
  "timestamp" : 1795441697,
  "timestamp_ms" : 1795441697683,
  "global options" : { "ioengine" : "libaio", "iodepth" : "4" },
  "jobs" : [
    {
      "jobname" : "a", "groupid" : 0,
      "job options" : { "rw" : "randread", "bs" : "4k", "filename" : "/tmp/x" },
      "read" : { "io_bytes" : 40960, "bw_bytes" : 40960, "iops" : 10.0, "runtime" : 1000,
        "total_ios" : 10,
        "slat_ns" : { "min" : 1, "max" : 2, "mean" : 1.5, "stddev" : 0.5, "N" : 10 },
        "clat_ns" : { "min" : 100, "max" : 900, "mean" : 500.0, "stddev" : 10.0, "N" : 10,
          "percentile" : { "50.000000" : 496, "99.000000" : 900 },
          "bins" : { "100" : 5, "900" : 5 } },
        "lat_ns" : { "min" : 101, "max" : 902, "mean" : 501.5, "stddev" : 10.0, "N" : 10 } },
      "write" : { "io_bytes" : 0, "total_ios" : 0, "runtime" : 0 },
      "job_runtime" : 1000, "usr_cpu" : 1.0, "sys_cpu" : 4.0, "ctx" : 12
    }
  ]
}"#;

    #[test]
    fn fio_json_becomes_a_run_with_fio_figures() {
        let r = import(FIO).unwrap().remove(0);
        assert_eq!(
            (r.kind.as_str(), r.iolab_version.as_str()),
            ("fio", "fio-3.33")
        );
        let j = &r.jobs[0];
        assert_eq!(
            (j.engine.as_str(), j.iodepth, j.rw.as_str()),
            ("libaio", 4, "randread")
        );
        assert_eq!((j.block_size, j.target.as_str()), (4096, "/tmp/x"));
        assert_eq!(j.directions(), vec!["read"]);
        assert_eq!(j.metric("read", "iops"), Some(10.0));
        assert_eq!(j.metric("read", "clat_p99_ns"), Some(900.0));
        assert_eq!(j.metric("read", "lat_mean_ns"), Some(501.5));
        assert_eq!(j.runtime_ns, 1_000_000_000);
        // 5 % of 1 s of CPU for 10 I/Os.
        assert_eq!(j.cpu.total_ns(), 50_000_000.0);
        assert!((j.cpu.iops_per_cpu_sec - 200.0).abs() < 1e-9);
        let h = j.histogram("read", "clat").unwrap();
        assert_eq!(h.percentiles_ns(&[50.0])[0].1.round(), 100.0);
    }

    #[test]
    fn impossible_figures_and_empty_documents_are_refused() {
        let bad = FIO.replace("\"total_ios\" : 10", "\"total_ios\" : -10");
        let e = import(&bad).unwrap_err().to_string();
        assert!(e.contains("job 'a': read.total_ios is -10"), "{e}");
        let bad = FIO.replace("\"99.000000\" : 900", "\"99.000000\" : -900");
        let e = import(&bad).unwrap_err().to_string();
        assert!(e.contains("read.clat_ns.percentile.99.000000"), "{e}");
        let bad = FIO.replace("\"usr_cpu\" : 1.0", "\"usr_cpu\" : -1.0");
        assert!(import(&bad).unwrap_err().to_string().contains("usr_cpu"));
        let e = import(r#"{"fio version": "fio-3.33", "jobs": []}"#).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        assert!(
            import(&FIO.replace(": 10,", ": NaN,")).is_err(),
            "NaN is no JSON"
        );
    }

    #[test]
    fn other_json_is_refused_with_the_reason() {
        assert_eq!(import("{\"a\": 1}"), Err(ImportError::Unknown));
        assert!(matches!(import("nope"), Err(ImportError::NotJson(_))));
        let newer = r#"{"format": "iolab-run", "version": 99}"#;
        assert!(matches!(
            import(newer),
            Err(ImportError::TooNew { found: 99, .. })
        ));
    }
}
