//! fio's client/server JSON for a run on many hosts: one `client_stats` entry per host and
//! job, each carrying its `hostname`, then the hosts merged as "All clients"; `disk_util`
//! entries carry their host too. Scripts written for `fio --client` read it unchanged.
//!
//! fio sums every job of every client into a single "All clients" entry (client.c,
//! `handle_ts`); a run of one job, the common case, is the same here. With several jobs,
//! iolab writes one "All clients" entry per job (`iolab.job` names it), since a sum of
//! different jobs' latencies describes none of them.

use serde_json::{json, Map, Value};

use iolab_results::MultiHostOutcome;

use crate::json::{disk_object, header, job_object, JsonContext};

/// The multi-host run as fio's client JSON document.
pub fn to_client_json(m: &MultiHostOutcome, ctx: &JsonContext) -> Value {
    let mut top = header(&m.all, ctx);
    let mut stats = Vec::new();
    for h in &m.hosts {
        for job in &h.outcome.jobs {
            let mut o = job_object(job, &h.outcome, ctx);
            tag_host(&mut o, &h.hostname, Some(h.rank));
            stats.push(o);
        }
    }
    // The "All clients" entry carries the last host's name, as fio's does.
    let last = m.hosts.last().map_or("", |h| h.hostname.as_str());
    for job in &m.all.jobs {
        let mut o = job_object(job, &m.all, ctx);
        if let Value::Object(map) = &mut o {
            map.insert("jobname".into(), json!("All clients"));
            if let Some(Value::Object(iolab)) = map.get_mut("iolab") {
                iolab.insert("job".into(), json!(job.setup.name));
                iolab.insert("hosts".into(), json!(m.hosts.len()));
            }
        }
        tag_host(&mut o, last, None);
        stats.push(o);
    }
    top.insert("client_stats".into(), Value::Array(stats));
    let disks: Vec<Value> = m
        .hosts
        .iter()
        .flat_map(|h| {
            h.outcome.disks.iter().map(|d| {
                let mut o = disk_object(d);
                tag_host(&mut o, &h.hostname, Some(h.rank));
                o
            })
        })
        .collect();
    if !disks.is_empty() {
        top.insert("disk_util".into(), Value::Array(disks));
    }
    top.insert("iolab".into(), run_object(m));
    Value::Object(top)
}

/// fio's client info (`hostname`), and the MPI rank under `iolab`.
fn tag_host(o: &mut Value, hostname: &str, rank: Option<u32>) {
    let Value::Object(map) = o else { return };
    map.insert("hostname".into(), json!(hostname));
    if let (Some(rank), Some(Value::Object(iolab))) = (rank, map.get_mut("iolab")) {
        iolab.insert("rank".into(), json!(rank));
    }
}

/// What iolab knows of the run beyond fio: how many hosts, how far apart they started,
/// whether a stonewall was asked for and whether it cut any job short.
fn run_object(m: &MultiHostOutcome) -> Value {
    let mut o = Map::new();
    o.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    o.insert(
        "clock_source".into(),
        json!(m.all.clock.source().to_string()),
    );
    o.insert("hosts".into(), json!(m.hosts.len()));
    o.insert("start_skew_ns".into(), json!(m.start_skew_ns));
    o.insert("stonewall".into(), json!(m.stonewall));
    o.insert("stonewalled".into(), json!(m.stonewalled()));
    o.insert("interrupted".into(), json!(m.all.interrupted));
    Value::Object(o)
}
