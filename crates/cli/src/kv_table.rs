//! The tables of `iolab kv` runs, from stored jobs: one run's workloads with db_bench's
//! figures and the device's beside them (`iolab kv`, `iolab show`), and runs side by side
//! with workloads as columns, as the hosting review set Optane against Micron
//! (`iolab compare`).

use iolab_report::format::{compact, micros};
use iolab_results::{JobRecord, RunRecord};

/// A db_bench latency (µs) as the reviews print latencies.
fn us(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| micros(v * 1e3))
}

/// Seconds as `0.31 s`, `42.0 s`, `23m05s`.
pub fn duration(secs: f64) -> String {
    if secs < 10.0 {
        format!("{secs:.2} s")
    } else if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let s = secs.round() as u64;
        if s >= 3600 {
            format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
        } else {
            format!("{}m{:02}s", s / 60, s % 60)
        }
    }
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or("-".into(), f)
}

/// One line per workload: throughput, latency percentiles, stalls, the device's means.
pub fn workloads_table(jobs: &[JobRecord]) -> String {
    let mut out = String::from(
        "| workload | threads | ops/s | µs/op | MB/s | time | P50 | P99 | P99.9 | P99.99 | stall | disk MB/s | disk IOPS | disk latency | disk QD |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for j in jobs.iter().filter(|j| j.engine == "db_bench") {
        let a = |n: &str| j.metric("app", n);
        let d = |n: &str| j.metric("disk", n);
        let fill = if j.notes.iter().any(|n| n.starts_with("run to fill")) {
            " (fill)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| {}{fill} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            j.name,
            j.iodepth,
            opt(a("ops_per_sec"), compact),
            opt(a("micros_per_op"), |v| format!("{v:.2}")),
            opt(a("mb_per_sec"), |v| format!("{v:.1}")),
            opt(a("seconds"), duration),
            us(a("p50_us")),
            us(a("p99_us")),
            us(a("p99.9_us")),
            us(a("p99.99_us")),
            opt(a("stall_percent"), |v| format!("{v:.1}%")),
            opt(d("mb_per_sec_mean"), |v| format!("{v:.1}")),
            opt(d("iops_mean"), compact),
            opt(d("latency_ms_mean"), |v| micros(v * 1e6)),
            opt(d("queue_depth_mean"), |v| format!("{v:.2}")),
        ));
    }
    out
}

/// The device a kv run ran on: its model, else its name, else its directory.
pub fn device(r: &RunRecord) -> String {
    let f = r.facts();
    f.disk_model.or(f.disk).or(f.dir).unwrap_or("?").to_string()
}

/// Runs as rows, workloads as columns: ops/s, MB/s and time in each cell, then the same
/// layout for P99 latency.
pub fn compare_table(runs: &[RunRecord]) -> String {
    let mut columns: Vec<String> = Vec::new();
    for r in runs {
        for j in &r.jobs {
            if j.engine == "db_bench" && !columns.contains(&j.name) {
                columns.push(j.name.clone());
            }
        }
    }
    let job = |r: &'_ RunRecord, w: &str| -> Option<JobRecord> {
        r.jobs.iter().find(|j| j.name == w).cloned()
    };
    let mut out = format!(
        "| run | device | keys | {} |\n|---|---|---:|{}\n",
        columns.join(" | "),
        "---:|".repeat(columns.len())
    );
    let keys = |r: &RunRecord| r.facts().num.map_or("-".into(), |n| compact(n as f64));
    for r in runs {
        let cells: Vec<String> = columns
            .iter()
            .map(|w| match job(r, w) {
                Some(j) => {
                    let a = |n: &str| j.metric("app", n);
                    format!(
                        "{} ops/s, {} MB/s, {}",
                        opt(a("ops_per_sec"), compact),
                        opt(a("mb_per_sec"), |v| format!("{v:.1}")),
                        opt(a("seconds"), duration)
                    )
                }
                None => "n/a".into(),
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.id,
            device(r),
            keys(r),
            cells.join(" | ")
        ));
    }
    out.push_str(&format!(
        "\n| run | device | {} |\n|---|---|{}\n",
        columns
            .iter()
            .map(|c| format!("{c} P99"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---:|".repeat(columns.len())
    ));
    for r in runs {
        let cells: Vec<String> = columns
            .iter()
            .map(|w| us(job(r, w).and_then(|j| j.metric("app", "p99_us"))))
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            r.id,
            device(r),
            cells.join(" | ")
        ));
    }
    out
}

/// Runs side by side as JSON: each workload's figures.
pub fn compare_json(runs: &[RunRecord]) -> serde_json::Value {
    runs.iter()
        .map(|r| {
            let w: serde_json::Map<String, serde_json::Value> = r
                .jobs
                .iter()
                .filter(|j| j.engine == "db_bench")
                .map(|j| {
                    (
                        j.name.clone(),
                        serde_json::to_value(&j.metrics).unwrap_or_default(),
                    )
                })
                .collect();
            serde_json::json!({
                "run": r.id,
                "device": device(r),
                "num": r.facts().num,
                "workloads": w,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, ops: f64, p99: f64) -> JobRecord {
        JobRecord {
            id: 1,
            idx: 0,
            name: name.into(),
            group_id: 0,
            description: String::new(),
            engine: "db_bench".into(),
            iodepth: 1,
            rw: name.into(),
            block_size: 0,
            target: "/tmp/x".into(),
            disk: Some("vda".into()),
            disk_model: None,
            runtime_ns: 1,
            notes: vec![],
            step: "kv".into(),
            metrics: iolab_results::Metrics(vec![
                ("app".into(), "ops_per_sec".into(), ops),
                ("app".into(), "mb_per_sec".into(), 259.1),
                ("app".into(), "seconds".into(), 1383.0),
                ("app".into(), "p99_us".into(), p99),
                ("disk".into(), "mb_per_sec_mean".into(), 120.5),
            ]),
            ..JobRecord::default()
        }
    }

    #[test]
    fn one_line_per_workload_with_the_device_beside() {
        let t = workloads_table(&[job("fillseq", 335_373.0, 3.72)]);
        let line = t.lines().nth(2).unwrap();
        assert!(
            line.starts_with("| fillseq | 1 | 335k | - | 259.1 | 23m03s | - | 3.72 µs |"),
            "{line}"
        );
        assert!(line.contains("| 120.5 |"), "{line}");
        assert_eq!(duration(0.312), "0.31 s");
        assert_eq!(duration(42.04), "42.0 s");
        assert_eq!(duration(18_120.0), "5h02m");
    }

    #[test]
    fn runs_as_rows_workloads_as_columns() {
        let run = |id: i64, jobs: Vec<JobRecord>, model: &str| RunRecord {
            id,
            kind: "kv".into(),
            jobs,
            meta: serde_json::json!({"disk_model": model, "num": 500_000_000u64}),
            ..RunRecord::default()
        };
        let t = compare_table(&[
            run(1, vec![job("fillseq", 663_000.0, 2.0)], "Optane"),
            run(
                2,
                vec![job("fillseq", 470_000.0, 4.0), job("readrandom", 1e5, 90.0)],
                "Micron",
            ),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "| run | device | keys | fillseq | readrandom |");
        assert_eq!(
            lines[2],
            "| 1 | Optane | 500M | 663k ops/s, 259.1 MB/s, 23m03s | n/a |"
        );
        assert!(
            lines[3].starts_with("| 2 | Micron | 500M | 470k ops/s"),
            "{}",
            lines[3]
        );
        assert_eq!(lines[5], "| run | device | fillseq P99 | readrandom P99 |");
        assert_eq!(lines[7], "| 1 | Optane | 2.00 µs | - |");
        assert_eq!(lines[8], "| 2 | Micron | 4.00 µs | 90.00 µs |");
    }
}
