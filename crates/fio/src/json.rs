//! fio's JSON output (the schema of fio 3.x `--output-format=json`) for every field iolab
//! measures, so scripts that read fio's JSON read iolab's. What fio has no field for (clock
//! source, engine notes, helper-thread CPU, IOPS per CPU-second) goes under an `iolab` key.

use std::time::UNIX_EPOCH;

use serde_json::{json, Map, Value};

use iolab_job::RwReporting;
use iolab_results::Direction;
use iolab_results::{DirResult, DiskUsage, JobReport, RunOutcome, SteadyResult};
use iolab_results::{LatencyHistogram, OpenLoop, Timebase};

/// What the JSON needs besides the outcome: the options as the user wrote them, and whether
/// to add the histograms' bins (fio's `json+`).
pub struct JsonContext<'a> {
    pub global_options: &'a [(String, String)],
    /// Indexed by job index.
    pub job_options: &'a [Vec<(String, String)>],
    pub plus: bool,
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

fn zero_latency() -> Value {
    json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})
}

/// A latency block; `pcts` adds "percentile" (and, with `bins`, fio's json+ "bins").
fn latency_object(
    h: Option<&LatencyHistogram>,
    clock: &Timebase,
    pcts: Option<&[f64]>,
    bins: bool,
) -> Value {
    let Some(h) = h.filter(|h| h.count() > 0) else {
        return zero_latency();
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
        if bins {
            let b: Map<String, Value> = h
                .bins_ns(clock)
                .into_iter()
                .map(|(ns, n)| (ns.to_string(), json!(n)))
                .collect();
            o.insert("bins".into(), Value::Object(b));
        }
    }
    Value::Object(o)
}

pub(crate) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// fio's bw_* and iops_* fields from the per-interval samples (zeros when there are none,
/// or bandwidth sampling is off). `group_kib_s` is the group's aggregate bandwidth (bw_agg
/// is this job's share of it).
fn sample_fields(o: &mut Map<String, Value>, r: &DirResult, sampled: bool, group_kib_s: f64) {
    let (bw, iops) = if sampled {
        r.sample_rates()
    } else {
        Default::default()
    };
    let agg = if group_kib_s > 0.0 && bw.samples > 0 {
        (bw.mean * 100.0 / group_kib_s).min(100.0)
    } else {
        0.0
    };
    o.insert("bw_min".into(), json!(bw.min.round() as u64));
    o.insert("bw_max".into(), json!(bw.max.round() as u64));
    o.insert("bw_agg".into(), json!(round6(agg)));
    o.insert("bw_mean".into(), json!(round6(bw.mean)));
    o.insert("bw_dev".into(), json!(round6(bw.stddev)));
    o.insert("bw_samples".into(), json!(bw.samples));
    o.insert("iops_min".into(), json!(iops.min.round() as u64));
    o.insert("iops_max".into(), json!(iops.max.round() as u64));
    o.insert("iops_mean".into(), json!(round6(iops.mean)));
    o.insert("iops_stddev".into(), json!(round6(iops.stddev)));
    o.insert("iops_samples".into(), json!(iops.samples));
}

fn per_second(n: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        n as f64 * 1e9 / ns as f64
    }
}

/// One direction's block (`read`, `write`, `trim` or `mixed`).
fn dir_object(
    job: &JobReport,
    r: &DirResult,
    clock: &Timebase,
    group_kib_s: f64,
    plus: bool,
) -> Value {
    let spec = &job.setup;
    let rec = spec.recorded;
    // fio keeps a direction's runtime only when it moved bytes (`update_runtime()`), and
    // its IOPS and bandwidth per that runtime: an engine without I/O (cpuio) shows zeros.
    let runtime_ns = if r.bytes > 0 { job.runtime_ns } else { 0 };
    let runtime_ms = runtime_ns / 1_000_000;
    let bw_bytes = per_second(r.bytes, runtime_ns);
    let iops = per_second(r.ios, runtime_ns);
    let pcts = spec.percentiles.as_slice();
    let mut o = Map::new();
    o.insert("io_bytes".into(), json!(r.bytes));
    o.insert("io_kbytes".into(), json!(r.bytes / 1024));
    o.insert("bw_bytes".into(), json!(bw_bytes.round() as u64));
    o.insert("bw".into(), json!((bw_bytes / 1024.0).round() as u64));
    o.insert("iops".into(), json!(round6(iops)));
    o.insert("runtime".into(), json!(runtime_ms));
    o.insert("total_ios".into(), json!(r.ios));
    o.insert("short_ios".into(), json!(0));
    o.insert("drop_ios".into(), json!(0));
    o.insert(
        "slat_ns".into(),
        latency_object(
            r.slat.as_ref().filter(|_| rec.slat),
            clock,
            spec.slat_percentiles.then_some(pcts),
            plus,
        ),
    );
    o.insert(
        "clat_ns".into(),
        latency_object(
            Some(&r.clat).filter(|_| rec.clat),
            clock,
            spec.clat_percentiles.then_some(pcts),
            plus,
        ),
    );
    o.insert(
        "lat_ns".into(),
        latency_object(
            Some(&r.lat).filter(|_| rec.lat),
            clock,
            spec.lat_percentiles.then_some(pcts),
            plus,
        ),
    );
    if r.prios_with_samples() >= 2 {
        let pcts = (spec.clat_percentiles || spec.lat_percentiles).then_some(pcts);
        o.insert(
            "prios".into(),
            prios_array(r, spec.lat_percentiles, clock, pcts, plus),
        );
    }
    sample_fields(&mut o, r, rec.bw, group_kib_s);
    if let Some(ol) = &r.open_loop {
        o.insert(
            "iolab".into(),
            open_loop_object(ol, iops, clock, pcts, plus),
        );
    }
    Value::Object(o)
}

/// iolab's open-loop figures of one direction (`rate_open_loop`), in fio's latency shape:
/// response time (due → completion), the schedule's lateness (due → issue), what was
/// offered against what was done, and the I/Os that found every slot busy.
fn open_loop_object(
    ol: &OpenLoop,
    achieved_iops: f64,
    clock: &Timebase,
    pcts: &[f64],
    plus: bool,
) -> Value {
    let judged = ol.judge(achieved_iops, clock);
    json!({
        "response_ns": latency_object(Some(&ol.response), clock, Some(pcts), plus),
        "issue_lateness_ns": latency_object(Some(&ol.lateness), clock, Some(pcts), plus),
        "offered_iops": round6(ol.offered_iops),
        "achieved_iops": round6(achieved_iops),
        "late_for_slot": ol.late_for_slot,
        "sustained": judged.carried(),
        "behind": judged.behind.map(|b| b.label()),
        "behind_why": (!judged.carried()).then_some(judged.why),
        "generator_cpu_wait_ns": ol.cpu_wait_ns,
    })
}

/// fio's `prios`: each priority with latencies, its class, level and completion latency
/// (total latency, named so, with `lat_percentiles`).
fn prios_array(
    r: &DirResult,
    total_lat: bool,
    clock: &Timebase,
    pcts: Option<&[f64]>,
    plus: bool,
) -> Value {
    let key = if total_lat { "lat_ns" } else { "clat_ns" };
    r.prios
        .iter()
        .filter(|p| p.lat.count() > 0)
        .map(|p| {
            json!({
                "prioclass": p.class(),
                "prio": p.level(),
                key: latency_object(Some(&p.lat), clock, pcts, plus),
            })
        })
        .collect()
}

/// fio's percentage maps: each bucket as a share of `total`.
fn percent_map(keys: &[&str], counts: &[u64], total: u64) -> Value {
    Value::Object(
        keys.iter()
            .zip(counts)
            .map(|(k, &n)| {
                let p = if total == 0 {
                    0.0
                } else {
                    n as f64 * 100.0 / total as f64
                };
                (k.to_string(), json!(round6(p)))
            })
            .collect(),
    )
}

/// fio's latency_ns / latency_us / latency_ms: the share of I/Os whose completion latency
/// fell in each bucket ([`JobReport::latency_buckets`]); a key is the bucket's exclusive
/// upper bound in that unit.
fn latency_buckets(job: &JobReport, clock: &Timebase) -> [(String, Value); 3] {
    let b = job.latency_buckets(clock);
    let map = |shares: &[f64], steps: &[u64], open_end: bool| -> Value {
        let mut m = Map::new();
        for (s, v) in steps.iter().zip(shares) {
            m.insert(s.to_string(), json!(round6(*v)));
        }
        if open_end {
            m.insert(">=2000".into(), json!(round6(shares[11])));
        }
        Value::Object(m)
    };
    use iolab_results::LatencyBuckets as B;
    [
        ("latency_ns".into(), map(&b.ns, &B::STEPS, false)),
        ("latency_us".into(), map(&b.us, &B::STEPS, false)),
        ("latency_ms".into(), map(&b.ms, &B::MS_STEPS, true)),
    ]
}

pub(crate) fn job_object(job: &JobReport, out: &RunOutcome, ctx: &JsonContext) -> Value {
    let opts = ctx
        .job_options
        .get(job.job_index)
        .map(|o| options_object(o))
        .unwrap_or_else(|| json!({}));
    let mut o = Map::new();
    o.insert("jobname".into(), json!(job.setup.name));
    o.insert("groupid".into(), json!(job.group_id));
    // fio 3.42's: when the job began, in ms of CLOCK_REALTIME (fio 3.33 has no such key).
    o.insert(
        "job_start".into(),
        json!(job.job_start_ms.unwrap_or(job.started_unix_ms)),
    );
    o.insert(
        "error".into(),
        // Errors gone past (`continue_on_error`): fio's error is the first of them.
        json!(job
            .error
            .as_ref()
            .map(|e| e.errno)
            .or(job.errors.map(|e| e.first))
            .unwrap_or(0)),
    );
    o.insert("eta".into(), json!(0));
    o.insert(
        "elapsed".into(),
        json!(job.elapsed_ns.div_ceil(1_000_000_000)),
    );
    o.insert("job options".into(), opts);
    if !job.setup.description.is_empty() {
        o.insert("desc".into(), json!(job.setup.description));
    }
    insert_directions(&mut o, job, out, ctx.plus);
    insert_cpu(&mut o, job);
    insert_depths(&mut o, job);
    for (k, v) in latency_buckets(job, &out.clock) {
        o.insert(k, v);
    }
    // fio adds these only with continue_on_error.
    if let Some(e) = &job.errors {
        o.insert("total_err".into(), json!(e.total));
        o.insert("first_error".into(), json!(e.first));
    }
    let lt = job.lat_target.as_ref();
    let depth = lt.map_or(job.setup.iodepth, |t| t.depth);
    o.insert("latency_depth".into(), json!(depth));
    let target = json!(lt.map_or(0, |t| t.target_ns));
    let window = json!(lt.map_or(0, |t| t.window_us));
    // fio 3.42 writes each twice, the second name with its unit.
    o.insert("latency_target".into(), target.clone());
    o.insert("latency_target_ns".into(), target);
    o.insert(
        "latency_percentile".into(),
        json!(lt.map_or(100.0, |t| t.percentile)),
    );
    o.insert("latency_window".into(), window.clone());
    o.insert("latency_window_us".into(), window);
    if let Some(ss) = &job.steady {
        o.insert("steadystate".into(), steady_object(ss));
    }
    let mut iolab = iolab_object(job);
    iolab["clat_p99.999_ns"] = tail_object(job, &out.clock);
    if let Some(m) = at_max_object(job) {
        iolab["percentiles_at_max"] = m;
    }
    let pcts = job.setup.percentiles.as_slice();
    if let Some(split) = crate::json_split::lat_split_object(job, &out.clock, pcts) {
        iolab["lat_split"] = split;
    }
    if let Some(r) = crate::json_repeats::repeats_object(job) {
        iolab["repeats"] = r;
    }
    o.insert("iolab".into(), iolab);
    Value::Object(o)
}

/// fio's `steadystate` block: the criterion as given, what was found, and the window (bytes/s
/// and IOPS, and for a `lat` criterion fio 3.42's mean completion latencies, oldest first).
fn steady_object(ss: &SteadyResult) -> Value {
    let pct = if ss.percent { "%" } else { "" };
    let mut o = json!({
        "ss": ss.criterion_spec,
        "duration": ss.duration_s,
        "attained": u8::from(ss.attained),
        "criterion": format!("{:.6}{pct}", ss.criterion as f32),
        "max_deviation": ss.max_deviation,
        "slope": ss.slope_value,
        "data": {
            "bw_mean": ss.bw_mean(),
            "iops_mean": ss.iops_mean(),
            "iops": ss.iops,
            "bw": ss.bw_bytes_per_sec,
        },
    });
    if ss.metric == "lat" {
        o["data"]["lat_mean"] = json!(ss.lat_mean());
        o["data"]["lat_ns"] = json!(ss.lat_ns);
    }
    o
}

/// read, write, trim, mixed and sync, as `unified_rw_reporting` asks.
fn insert_directions(o: &mut Map<String, Value>, job: &JobReport, out: &RunOutcome, plus: bool) {
    let clock = &out.clock;
    let group_kib_s = |d: Option<Direction>| -> f64 {
        out.jobs
            .iter()
            .filter(|j| j.group_id == job.group_id)
            .map(|j| match d {
                Some(d) => j.bw_bytes_per_sec(d) / 1024.0,
                None => per_second(j.mixed().bytes, j.runtime_ns) / 1024.0,
            })
            .sum()
    };
    let empty = DirResult::empty();
    let apart = job.setup.rw_reporting != RwReporting::Mixed;
    if apart {
        for d in Direction::ALL {
            let r = job.dir(d).unwrap_or(&empty);
            let v = dir_object(job, r, clock, group_kib_s(Some(d)), plus);
            o.insert(d.name().into(), v);
        }
    }
    if job.setup.rw_reporting != RwReporting::Separate {
        let v = dir_object(job, &job.mixed(), clock, group_kib_s(None), plus);
        o.insert("mixed".into(), v);
    }
    if apart {
        let pcts = job
            .setup
            .clat_percentiles
            .then_some(job.setup.percentiles.as_slice());
        let sync = match &job.sync {
            // fio's `total_ios` counts fsyncs only; its latencies take fdatasyncs too.
            Some(s) if s.lat.count() > 0 => json!({
                "total_ios": s.ios,
                "lat_ns": latency_object(Some(&s.lat), clock, pcts, plus),
            }),
            _ => json!({"total_ios": 0, "lat_ns": zero_latency()}),
        };
        o.insert("sync".into(), sync);
    }
}

/// fio's CPU figures: percentages of `total_run_time` (summed over a group's jobs).
fn insert_cpu(o: &mut Map<String, Value>, job: &JobReport) {
    let runtime_ns = job.total_runtime_ns.max(1) as f64;
    let cpu = &job.cpu;
    let pct = |ns: u64| round6(ns as f64 * 100.0 / runtime_ns);
    o.insert(
        "job_runtime".into(),
        json!(job.total_runtime_ns / 1_000_000),
    );
    o.insert("usr_cpu".into(), json!(pct(cpu.user_ns)));
    // Kernel helper threads working for the job (io-wq, SQPOLL) are system time too.
    o.insert("sys_cpu".into(), json!(pct(cpu.sys_ns + cpu.helper_ns())));
    o.insert("ctx".into(), json!(cpu.ctx));
    o.insert("majf".into(), json!(cpu.majflt));
    o.insert("minf".into(), json!(cpu.minflt));
}

/// `iodepth_level`, `iodepth_submit`, `iodepth_complete`.
fn insert_depths(o: &mut Map<String, Value>, job: &JobReport) {
    let dc = &job.depth;
    let levels = ["1", "2", "4", "8", "16", "32", ">=64"];
    let level = percent_map(&levels, &dc.level, dc.level.iter().sum());
    o.insert("iodepth_level".into(), level);
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    let submit = percent_map(&batch_keys, &dc.submit, dc.submit.iter().sum());
    o.insert("iodepth_submit".into(), submit);
    let complete = percent_map(&batch_keys, &dc.complete, dc.complete.iter().sum());
    o.insert("iodepth_complete".into(), complete);
}

/// What iolab measures beyond fio, under its own name.
fn iolab_object(job: &JobReport) -> Value {
    let cpu = &job.cpu;
    json!({
        "engine": job.setup.engine,
        "iodepth": job.setup.iodepth,
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
        "write_buffers": job.setup.write_buffers,
        "notes": job.notes,
        "fallback": job.fallback,
        "device_interrupts": job.device_interrupts,
        "engine_setup": job.engine_setup,
        "interrupted": job.interrupted,
        "stonewalled": job.stonewalled,
    })
}

/// iolab's own tail figure, per direction that did I/O: the completion latency's 99.999th
/// percentile (the reviews' p99.999), outside fio's `percentile` keys.
fn tail_object(job: &JobReport, clock: &Timebase) -> Value {
    let tail = iolab_results::IOLAB_TAIL_PERCENTILE;
    let per_dir: Map<String, Value> = iolab_results::Direction::ALL
        .into_iter()
        .filter_map(|d| {
            let r = job.dir(d).filter(|r| r.ios > 0)?;
            let ns = r.clat.summarize(clock, &[tail]).percentile(tail)?;
            Some((d.name().to_string(), json!(ns.round() as u64)))
        })
        .collect();
    Value::Object(per_dir)
}

/// Per direction, the percentiles (fio's list and iolab's p99.999) its I/Os cannot resolve:
/// with fewer than 1 / (1 − p) I/Os (100,000 for p99.999) the percentile is the slowest I/O,
/// which fio's `percentile` keys print under the percentile's name. `None` when every
/// percentile is resolved.
fn at_max_object(job: &JobReport) -> Option<Value> {
    let mut pcts: Vec<f64> = job.setup.percentiles.clone();
    pcts.push(iolab_results::IOLAB_TAIL_PERCENTILE);
    pcts.sort_by(f64::total_cmp);
    pcts.dedup();
    let per_dir: Map<String, Value> = iolab_results::Direction::ALL
        .into_iter()
        .filter_map(|d| {
            let ios = job.dir(d).filter(|r| r.ios > 0)?.ios as f64;
            let keys: Vec<Value> = pcts
                .iter()
                .filter(|p| **p < 100.0 && ios < 100.0 / (100.0 - **p))
                .map(|p| json!(percentile_key(*p)))
                .collect();
            (!keys.is_empty()).then(|| (d.name().to_string(), Value::Array(keys)))
        })
        .collect();
    (!per_dir.is_empty()).then_some(Value::Object(per_dir))
}

/// The keys fio 3.42 adds to a job's object, which iolab writes too (fio 3.33 has none of
/// them): a comparison with fio 3.33 takes them as fio's.
pub const FIO_342_JOB_KEYS: [&str; 3] = ["job_start", "latency_target_ns", "latency_window_us"];

/// fio's `disk_util` entry for one disk.
pub(crate) fn disk_object(d: &DiskUsage) -> Value {
    let c = &d.counters;
    json!({
        "name": d.name,
        "read_ios": c.read_ios,
        "write_ios": c.write_ios,
        // fio 3.42's: the sectors (512 bytes) each direction moved.
        "read_sectors": c.read_sectors,
        "write_sectors": c.write_sectors,
        "read_merges": c.read_merges,
        "write_merges": c.write_merges,
        "read_ticks": c.read_ticks_ms,
        "write_ticks": c.write_ticks_ms,
        "in_queue": c.in_queue_ms,
        "util": round6(d.util_percent()),
    })
}

/// The whole run as fio's JSON document.
pub fn to_json(out: &RunOutcome, ctx: &JsonContext) -> Value {
    let mut top = header(out, ctx);
    top.insert(
        "jobs".into(),
        Value::Array(out.jobs.iter().map(|j| job_object(j, out, ctx)).collect()),
    );
    if !out.disks.is_empty() {
        top.insert(
            "disk_util".into(),
            Value::Array(out.disks.iter().map(disk_object).collect()),
        );
    }
    top.insert(
        "iolab".into(),
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "clock_source": out.clock.source().to_string(),
            "ticks_per_ns": round6(out.clock.ticks_per_ns()),
            "interrupted": out.interrupted,
            "drive_health": out.health.iter().map(health_object).collect::<Vec<_>>(),
        }),
    );
    Value::Object(top)
}

/// A drive's health log around the run, with its judgement in words (`changed` when the
/// drive throttled, crossed its warning temperature or raised a critical warning).
fn health_object(h: &iolab_results::DriveHealth) -> Value {
    let word = h.judge();
    let mut v = serde_json::to_value(h).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        o.insert("verdict".into(), json!(word.to_string()));
        o.insert("changed".into(), json!(word.changed()));
        o.insert("peak_c".into(), json!(h.peak_c()));
    }
    v
}

/// The document's head as fio writes it: version, time, global options. fio dates its
/// document when it writes it (`gettimeofday` in `__show_run_stats`), after the jobs: here
/// the run's start plus its longest job's elapsed time, the same moment for a live run and
/// for one written again later.
pub(crate) fn header(out: &RunOutcome, ctx: &JsonContext) -> Map<String, Value> {
    let longest = out.jobs.iter().map(|j| j.elapsed_ns).max().unwrap_or(0);
    let end = out.started + std::time::Duration::from_nanos(longest);
    let since = end.duration_since(UNIX_EPOCH).unwrap_or_default();
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
    top
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
        let v = latency_object(None, &Timebase::NANOSECONDS, None, false);
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
        let v = latency_object(Some(&h), &Timebase::NANOSECONDS, Some(&[50.0, 99.0]), true);
        assert_eq!(v["N"], 1000);
        assert_eq!(v["min"], 1000);
        assert_eq!(v["max"], 1_000_000);
        let p = v["percentile"].as_object().unwrap();
        assert_eq!(p.keys().collect::<Vec<_>>(), vec!["50.000000", "99.000000"]);
        let bins = v["bins"].as_object().unwrap();
        assert_eq!(
            bins.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
            1000
        );
        let p50 = p["50.000000"].as_u64().unwrap();
        assert!((499_000..=501_000).contains(&p50), "{p50}");
    }
}
