//! One workload's figures as named numbers, the names `iolab show`, `compare` and the JSON
//! use: db_bench's own (`app`) and the device's over the run (`disk`), plus the per-second
//! series of both.

use crate::WorkloadRun;

/// (direction, name, value): `app` for db_bench's figures, `disk` for the device's means.
pub fn metrics(r: &WorkloadRun) -> Vec<(&'static str, String, f64)> {
    let b = &r.result;
    let mut m: Vec<(&'static str, String, f64)> = vec![
        ("app", "ops_per_sec".into(), b.ops_per_sec),
        ("app", "micros_per_op".into(), b.micros_per_op),
        ("app", "seconds".into(), b.seconds),
        ("app", "operations".into(), b.operations as f64),
    ];
    if let Some(mb) = b.mb_per_sec {
        m.push(("app", "mb_per_sec".into(), mb));
    }
    if let Some(l) = &b.latency {
        for (name, v) in [
            ("lat_mean_us", l.average),
            ("p50_us", l.p50),
            ("p75_us", l.p75),
            ("p99_us", l.p99),
            ("p99.9_us", l.p99_9),
            ("p99.99_us", l.p99_99),
            ("lat_max_us", l.max),
        ] {
            m.push(("app", name.into(), v));
        }
    }
    if let Some(s) = b.stall_micros {
        m.push(("app", "stall_micros".into(), s as f64));
    }
    // db_bench's own share from its last interval report; for runs too short to print one,
    // the stall counter over the run's time (the same quantity, from the statistics).
    let derived = b
        .stall_micros
        .filter(|_| b.seconds > 0.0)
        .map(|us| us as f64 / (b.seconds * 1e6) * 100.0);
    if let Some(p) = r.stall_percent.or(derived) {
        m.push(("app", "stall_percent".into(), p));
    }
    if !r.disk.is_empty() {
        let n = r.disk.len() as f64;
        let mean = |f: fn(&crate::DiskSample) -> f64| r.disk.iter().map(f).sum::<f64>() / n;
        m.push(("disk", "iops_mean".into(), mean(|s| s.iops)));
        m.push(("disk", "mb_per_sec_mean".into(), mean(|s| s.mb_per_sec)));
        m.push(("disk", "latency_ms_mean".into(), mean(|s| s.latency_ms)));
        m.push(("disk", "queue_depth_mean".into(), mean(|s| s.queue_depth)));
        let peak = r.disk.iter().map(|s| s.mb_per_sec).fold(0.0, f64::max);
        m.push(("disk", "mb_per_sec_max".into(), peak));
    }
    m
}

/// A named series: (direction, name, points as (ms since the start, value)).
pub type Series = (&'static str, &'static str, Vec<(i64, f64)>);

/// db_bench's per-interval ops/s and the device's per-second IOPS, MB/s, latency and queue
/// depth.
pub fn series(r: &WorkloadRun) -> Vec<Series> {
    let disk = |f: fn(&crate::DiskSample) -> f64| -> Vec<(i64, f64)> {
        r.disk.iter().map(|s| (s.t_ms as i64, f(s))).collect()
    };
    let mut out = vec![(
        "app",
        "ops_per_sec",
        r.progress
            .iter()
            .map(|(t, _, rate)| ((t * 1000.0) as i64, *rate))
            .collect(),
    )];
    if !r.disk.is_empty() {
        out.push(("disk", "iops", disk(|s| s.iops)));
        out.push(("disk", "mb_per_sec", disk(|s| s.mb_per_sec)));
        out.push(("disk", "latency_ms", disk(|s| s.latency_ms)));
        out.push(("disk", "queue_depth", disk(|s| s.queue_depth)));
    }
    out.retain(|s| !s.2.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{BenchResult, LatencySummary};
    use crate::DiskSample;

    #[test]
    fn figures_and_series_of_a_run() {
        let r = WorkloadRun {
            result: BenchResult {
                name: "fillseq".into(),
                micros_per_op: 3.0,
                ops_per_sec: 333_333.0,
                seconds: 0.3,
                operations: 100_000,
                mb_per_sec: Some(257.0),
                latency: Some(LatencySummary {
                    p99: 3.7,
                    ..LatencySummary::default()
                }),
                stall_micros: Some(0),
            },
            stall_percent: Some(12.5),
            disk: vec![
                DiskSample {
                    t_ms: 1000,
                    iops: 100.0,
                    mb_per_sec: 10.0,
                    latency_ms: 1.0,
                    queue_depth: 2.0,
                },
                DiskSample {
                    t_ms: 2000,
                    iops: 300.0,
                    mb_per_sec: 30.0,
                    latency_ms: 3.0,
                    queue_depth: 4.0,
                },
            ],
            progress: vec![(1.0, 1000, 900.0)],
            wall_seconds: 2.0,
            assertions: false,
        };
        let m = metrics(&r);
        let get = |d: &str, n: &str| m.iter().find(|x| x.0 == d && x.1 == n).map(|x| x.2);
        assert_eq!(get("app", "ops_per_sec"), Some(333_333.0));
        assert_eq!(get("app", "p99_us"), Some(3.7));
        assert_eq!(get("app", "stall_percent"), Some(12.5));
        assert_eq!(get("disk", "iops_mean"), Some(200.0));
        assert_eq!(get("disk", "mb_per_sec_max"), Some(30.0));
        let s = series(&r);
        assert_eq!(s.len(), 5);
        assert_eq!(s[0], ("app", "ops_per_sec", vec![(1000, 900.0)]));
        assert_eq!(s[4].2, vec![(1000, 2.0), (2000, 4.0)]);
        // No device under the database: only db_bench's own figures.
        let bare = WorkloadRun {
            disk: Vec::new(),
            progress: Vec::new(),
            ..r
        };
        assert!(metrics(&bare).iter().all(|x| x.0 == "app"));
        assert!(series(&bare).is_empty());
    }
}
