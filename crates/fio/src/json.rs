//! fio's JSON output (the schema of fio 3.x `--output-format=json`) for every field iolab
//! measures, so scripts that read fio's JSON read iolab's. What fio has no field for (clock
//! source, engine notes, helper-thread CPU, IOPS per CPU-second) goes under an `iolab` key.

use std::time::UNIX_EPOCH;

use serde_json::{json, Map, Value};

use iolab_engine::Direction;
use iolab_runner::{DirResult, JobReport, RunOutcome};
use iolab_stats::{Clock, LatencyHistogram};

/// What the JSON needs besides the outcome: the options as the user wrote them.
pub struct JsonContext<'a> {
    pub global_options: &'a [(String, String)],
    /// Indexed by job index.
    pub job_options: &'a [Vec<(String, String)>],
}

fn options_object(opts: &[(String, String)]) -> Value {
    Value::Object(
        opts.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// fio formats percentile keys with `%f`: "99.000000".
pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

fn latency_object(h: Option<&LatencyHistogram>, clock: &Clock, pcts: Option<&[f64]>) -> Value {
    let Some(h) = h.filter(|h| h.count() > 0) else {
        return json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0});
    };
    let s = h.summarize(clock, pcts.unwrap_or(&[]));
    let mut o = Map::new();
    o.insert("min".into(), json!(s.min_ns.round() as u64));
    o.insert("max".into(), json!(s.max_ns.round() as u64));
    o.insert("mean".into(), json!(round6(s.mean_ns)));
    o.insert("stddev".into(), json!(round6(s.stddev_ns)));
    o.insert("N".into(), json!(s.count));
    if pcts.is_some() {
        let p: Map<String, Value> = s
            .percentiles_ns
            .iter()
            .map(|(p, v)| (percentile_key(*p), json!(v.round() as u64)))
            .collect();
        o.insert("percentile".into(), Value::Object(p));
    }
    Value::Object(o)
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn dir_object(job: &JobReport, d: Direction, clock: &Clock) -> Value {
    let spec = &job.spec;
    let empty;
    let r: &DirResult = match job.dir(d) {
        Some(r) => r,
        None => {
            empty = DirResult {
                ios: 0,
                bytes: 0,
                slat: None,
                clat: LatencyHistogram::new(),
                lat: LatencyHistogram::new(),
            };
            &empty
        }
    };
    let runtime_ms = if r.ios > 0 {
        job.runtime_ns / 1_000_000
    } else {
        0
    };
    let bw_bytes = job.bw_bytes_per_sec(d);
    let pcts = spec.percentiles.as_slice();
    json!({
        "io_bytes": r.bytes,
        "io_kbytes": r.bytes / 1024,
        "bw_bytes": bw_bytes.round() as u64,
        "bw": (bw_bytes / 1024.0).round() as u64,
        "iops": round6(job.iops(d)),
        "runtime": runtime_ms,
        "total_ios": r.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": latency_object(r.slat.as_ref(), clock, None),
        "clat_ns": latency_object(Some(&r.clat), clock, spec.clat_percentiles.then_some(pcts)),
        "lat_ns": latency_object(Some(&r.lat), clock, spec.lat_percentiles.then_some(pcts)),
    })
}

fn job_object(job: &JobReport, out: &RunOutcome, ctx: &JsonContext) -> Value {
    let clock = &out.clock;
    let runtime_ns = job.runtime_ns.max(1) as f64;
    let cpu = &job.cpu;
    let pct = |ns: u64| round6(ns as f64 * 100.0 / runtime_ns);
    let opts = ctx
        .job_options
        .get(job.job_index)
        .map(|o| options_object(o))
        .unwrap_or_else(|| json!({}));
    json!({
        "jobname": job.spec.name,
        "groupid": 0,
        "error": 0,
        "eta": 0,
        "elapsed": ((job.runtime_ns + job.spec.ramp_time.as_nanos() as u64) as f64 / 1e9).round() as u64,
        "job options": opts,
        "read": dir_object(job, Direction::Read, clock),
        "write": dir_object(job, Direction::Write, clock),
        "job_runtime": job.runtime_ns / 1_000_000,
        "usr_cpu": pct(cpu.user_ns),
        // Kernel helper threads working for the job (io-wq, SQPOLL) are system time too.
        "sys_cpu": pct(cpu.sys_ns + cpu.helper_ns()),
        "ctx": cpu.ctx,
        "iolab": {
            "engine": job.spec.engine.label(),
            "iodepth": job.spec.effective_iodepth(),
            "clones": job.clones,
            "target": job.target.path.display().to_string(),
            "logical_block_size": job.target.logical_block_size,
            "cpu_ns": {
                "user": cpu.user_ns,
                "sys": cpu.sys_ns,
                "io_wq_workers": cpu.iowq_ns,
                "sqpoll_thread": cpu.sqpoll_ns,
            },
            "iops_per_cpu_sec": round6(job.iops_per_cpu_sec()),
            "notes": job.notes,
            "interrupted": job.interrupted,
        },
    })
}

/// The whole run as fio's JSON document.
pub fn to_json(out: &RunOutcome, ctx: &JsonContext) -> Value {
    let since = out.started.duration_since(UNIX_EPOCH).unwrap_or_default();
    let mut top = Map::new();
    top.insert(
        "fio version".into(),
        json!(format!("iolab-{}", env!("CARGO_PKG_VERSION"))),
    );
    top.insert("timestamp".into(), json!(since.as_secs()));
    top.insert("timestamp_ms".into(), json!(since.as_millis() as u64));
    top.insert("time".into(), json!(ctime(since.as_secs() as i64)));
    if !ctx.global_options.is_empty() {
        top.insert("global options".into(), options_object(ctx.global_options));
    }
    top.insert(
        "jobs".into(),
        Value::Array(out.jobs.iter().map(|j| job_object(j, out, ctx)).collect()),
    );
    top.insert(
        "iolab".into(),
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "clock_source": out.clock.source().to_string(),
            "ticks_per_ns": round6(out.clock.ticks_per_ns()),
            "interrupted": out.interrupted,
        }),
    );
    Value::Object(top)
}

/// fio's "time" field: ctime(3) without the newline, in local time.
fn ctime(secs: i64) -> String {
    let mut buf = [0 as libc::c_char; 64];
    let t: libc::time_t = secs;
    // SAFETY: ctime_r writes at most 26 bytes into buf, which has 64.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: ctime_r NUL-terminated the string in buf.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_keys_look_like_fio() {
        assert_eq!(percentile_key(99.0), "99.000000");
        assert_eq!(percentile_key(99.999), "99.999000");
        assert_eq!(percentile_key(1.0), "1.000000");
    }

    #[test]
    fn empty_latency_is_fio_zero_block() {
        let v = latency_object(None, &Clock::monotonic(), None);
        assert_eq!(
            v,
            json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
        );
    }

    #[test]
    fn latency_block_has_fio_keys_and_percentiles() {
        let mut h = LatencyHistogram::new();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let v = latency_object(Some(&h), &Clock::monotonic(), Some(&[50.0, 99.0]));
        assert_eq!(v["N"], 1000);
        assert_eq!(v["min"], 1000);
        assert_eq!(v["max"], 1_000_000);
        let p = v["percentile"].as_object().unwrap();
        assert_eq!(p.keys().collect::<Vec<_>>(), vec!["50.000000", "99.000000"]);
        let p50 = p["50.000000"].as_u64().unwrap();
        assert!((499_000..=501_000).contains(&p50), "{p50}");
    }
}
