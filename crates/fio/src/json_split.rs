//! iolab's latency split in the JSON (`iolab.lat_split.<read|write|trim>` of each job):
//! iolab's own figures, so its own names; percentiles under fio's keys.

use iolab_results::{Direction, JobReport, LatSplit, LatencyHistogram, TailShare, Timebase};
use serde_json::{json, Map, Value};

use crate::json::{percentile_key, round6};

/// The tails whose account is reported: the I/Os slower than p99 and than p99.9.
pub const TAILS: [(f64, &str); 2] = [(99.0, "p99"), (99.9, "p99.9")];

/// Each direction's split of `job`, or `None` when it has none.
pub(crate) fn lat_split_object(job: &JobReport, clock: &Timebase, pcts: &[f64]) -> Option<Value> {
    let dirs: Map<String, Value> = Direction::ALL
        .into_iter()
        .filter_map(|d| {
            let s = job.dir(d)?.lat_split.as_ref()?;
            Some((d.name().to_string(), direction(s, clock, pcts)))
        })
        .collect();
    (!dirs.is_empty()).then_some(Value::Object(dirs))
}

fn direction(s: &LatSplit, clock: &Timebase, pcts: &[f64]) -> Value {
    let tail: Map<String, Value> = TAILS
        .iter()
        .filter_map(|&(p, name)| Some((name.to_string(), tail(&s.tail.share(p)?, clock))))
        .collect();
    let mut v = json!({
        "issued_ios": s.issued,
        "joined_ios": s.joined,
        "split_or_merged_ios": s.split_or_merged,
        "unmapped_ios": s.unmapped,
        "unseen_ios": s.unseen,
        "not_recorded_ios": s.not_recorded,
        "submit": part(&s.submit, clock, pcts),
        "device": part(&s.device, clock, pcts),
        "completion": part(&s.completion, clock, pcts),
        "tail": tail,
    });
    if let Some(h) = &s.nvme_device {
        v["nvme_device"] = part(h, clock, pcts);
    }
    v
}

/// One part: its mean and spread in ns, and the job's percentiles under fio's keys.
fn part(h: &LatencyHistogram, clock: &Timebase, pcts: &[f64]) -> Value {
    let s = h.summarize(clock, pcts);
    let p: Map<String, Value> = s
        .percentiles_ns
        .iter()
        .map(|(p, v)| (percentile_key(*p), json!(v.round() as u64)))
        .collect();
    json!({
        "N": s.count,
        "min_ns": s.min_ns.round() as u64,
        "max_ns": s.max_ns.round() as u64,
        "mean_ns": round6(s.mean_ns),
        "stddev_ns": round6(s.stddev_ns),
        "percentile": p,
    })
}

fn tail(t: &TailShare, clock: &Timebase) -> Value {
    json!({
        "ios": t.ios,
        "from_lat_ns": clock.ticks_to_ns(t.from_ticks).round() as u64,
        "submit_share": round6(t.submit),
        "device_share": round6(t.device),
        "completion_share": round6(t.completion),
    })
}
