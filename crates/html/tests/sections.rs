//! The report built from synthetic runs: sections present exactly when their data is, two
//! runs overlaid on one chart (named by run, the second dashed), the QD1 best marked but
//! never the null engine, and the page self-contained.

use std::collections::BTreeMap;

use iolab_html::{build, RunData};
use iolab_results::{CpuRecord, HostRecord, JobRecord, RunRecord, StepRecord};
use serde_json::{json, Value};

/// Each chart's figure in the page, by chart id.
fn figures(html: &str) -> BTreeMap<String, Value> {
    html.split("<script type=\"application/json\" class=\"figure\" data-for=\"")
        .skip(1)
        .map(|s| {
            let (id, rest) = s.split_once("\">").unwrap();
            let json = &rest[..rest.find("</script>").unwrap()];
            (id.to_string(), serde_json::from_str(json).unwrap())
        })
        .collect()
}

/// The trace names of chart `id`.
fn names(html: &str, id: &str) -> Vec<String> {
    figures(html)[id]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn step(name: &str, data: Value) -> StepRecord {
    StepRecord {
        name: name.into(),
        status: "ok".into(),
        reason: String::new(),
        data,
        started_ms: 0,
        finished_ms: 0,
    }
}

fn job(id: i64, step: &str, engine: &str, rw: &str) -> JobRecord {
    JobRecord {
        id,
        idx: id,
        name: format!("{step}-{engine}"),
        group_id: 0,
        description: String::new(),
        engine: engine.into(),
        iodepth: 1,
        rw: rw.into(),
        block_size: 4096,
        target: "/dev/x".into(),
        disk: None,
        disk_model: None,
        runtime_ns: 1_000_000_000,
        notes: vec![],
        step: step.into(),
        cpu: CpuRecord {
            user_ns: 2e8,
            sys_ns: 3e8,
            iops_per_cpu_sec: 200000.0,
            ..CpuRecord::default()
        },
        ..JobRecord::default()
    }
}

fn review(id: i64, model: &str, iops_scale: f64) -> RunData {
    // Three rounds each, intervals 1 % of each figure: the marks' evidence (issue 69).
    let interval = |v: f64| json!({"n": 3, "mean": v, "ci95_low": v * 0.99, "ci95_high": v * 1.01});
    let cell = |engine: &str, iops: f64, mean: f64| {
        json!({"engine": engine, "rw": "randread",
               "figures": {"iops": iops, "mean_ns": mean, "p99_ns": mean * 1.5, "p99.999_ns": mean * 9.0, "ios": 1e6},
               "repeats": {"count": 3, "intervals": {"iops": interval(iops), "lat_mean_ns": interval(mean),
                           "lat_p99_ns": interval(mean * 1.5), "lat_p99.999_ns": interval(mean * 9.0)}}})
    };
    let sweep: Vec<Value> = (1..=8)
        .map(|qd| json!({"rw": "randread", "qd": qd, "figures": {"iops": iops_scale * (qd.min(6) as f64), "mean_ns": 10_000.0 * qd as f64, "p99_ns": 12_000.0 * qd as f64}}))
        .collect();
    let mut curves = BTreeMap::new();
    curves.insert(
        id * 100,
        vec![(50.0, 9_000.0), (99.0, 12_000.0), (99.999, 90_000.0)],
    );
    RunData {
        detail: RunRecord {
            id,
            kind: "review".into(),
            status: "ok".into(),
            started_ms: 1_795_000_000_000,
            finished_ms: None,
            command: "iolab review".into(),
            jobs: vec![job(id * 100, "qd1-engines", "io_uring", "randread")],
            iolab_version: "0.1.0".into(),
            host: HostRecord {
                hostname: "h".into(),
                cpu_model: "cpu".into(),
                cpus: 2,
                kernel: "6.18".into(),
                ..HostRecord::default()
            },
            clock_source: Some("tsc".into()),
            meta: json!({"profile": "quick", "target": "/dev/x"}),
            steps: vec![
                step(
                    "info",
                    json!({"disk": {"model": model, "name": "x"}, "host": {"governor": "performance", "kernel_clocksource": "tsc"}}),
                ),
                step(
                    "qd1-engines",
                    json!({"cells": [
                        cell("psync", iops_scale, 11_000.0),
                        cell("io_uring", iops_scale * 1.1, 10_000.0),
                        cell("null", iops_scale * 50.0, 20.0),
                        {"engine": "io_uring+iopoll", "rw": "randread", "unavailable": "no poll queues"}
                    ]}),
                ),
                step(
                    "qd-sweep",
                    json!({"engine": "io_uring", "points": sweep, "saturation": {"randread": {"qd": 6}}}),
                ),
                StepRecord {
                    status: "skipped".into(),
                    reason: "no poll queues here".into(),
                    ..step("poll-vs-irq", json!({}))
                },
            ],
            ..RunRecord::default()
        },
        curves,
    }
}

#[test]
fn two_reviews_overlay_on_every_chart() {
    let html = build(&[review(1, "Optane", 90_000.0), review(2, "P3700", 12_000.0)]);
    for id in ["header", "qd1", "sweep", "distribution", "ladder"] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "no {id}");
    }
    for id in ["transfer", "consistency", "profiles", "application"] {
        assert!(
            !html.contains(&format!("<section id=\"{id}\">")),
            "{id} without data"
        );
    }
    // The sweep overlays both runs, named by run, the second dashed; both saturation marks.
    assert_eq!(
        names(&html, "sweep-iops"),
        [
            "run 1 (Optane) · randread io_uring",
            "run 2 (P3700) · randread io_uring"
        ]
    );
    let sweep = &figures(&html)["sweep-iops"];
    assert_eq!(sweep["data"][1]["line"]["dash"], "dash");
    assert!(sweep["data"][0]["line"].get("dash").is_none());
    let marks: Vec<&str> = sweep["layout"]["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        marks,
        [
            "read saturates at QD6 (run 1)",
            "read saturates at QD6 (run 2)"
        ]
    );
    // QD1: io_uring is best on IOPS and mean; the null engine never is.
    assert!(
        html.contains("<td class=\"best\"><strong>99.0k</strong> ★</td>"),
        "best IOPS"
    );
    assert!(
        html.contains("<td class=\"best\"><strong>10.00 µs</strong> ★</td>"),
        "best mean"
    );
    assert!(!html.contains("<strong>4.50M</strong>"), "null marked best");
    // A million I/Os leave 10 beyond the 99.999th percentile: not judged, and said so.
    assert!(html.contains("99.999th percentile not marked: a cell had only 10 I/Os beyond it"));
    assert!(
        html.contains("best beyond the 95 % intervals of the cells&#39; 3 rounds")
            || html.contains("best beyond the 95 % intervals of the cells' 3 rounds")
    );
    assert!(html.contains("io_uring+iopoll: no poll queues"));
    assert!(html.contains("Polling vs interrupts: not measured — no poll queues here"));
    // The ladder places both devices.
    assert!(html.contains("run 1 (Optane) QD1 4k read (io_uring)"));
    // Self-contained: no external script, style or image; plotly.js inline, once.
    assert!(!html.contains("<script src") && !html.contains("<link ") && !html.contains("<img"));
    assert_eq!(
        html.matches("<script type=\"text/javascript\">").count(),
        1,
        "plotly.js"
    );
    assert_eq!(html.matches("<script>").count(), 1, "the page's own");
    // Every chart's div has its figure.
    let figs = figures(&html);
    assert_eq!(html.matches("<div class=\"chart\"").count(), figs.len());
    assert!(figs.contains_key("latency-ladder") && figs.contains_key("distribution-randread"));
    assert!(html.contains("2026-11-18"), "the run's date");
}

#[test]
fn one_run_has_unprefixed_names() {
    let html = build(&[review(1, "Optane", 90_000.0)]);
    assert_eq!(names(&html, "sweep-iops"), ["randread io_uring"]);
    assert!(figures(&html)
        .values()
        .flat_map(|f| f["data"].as_array().unwrap())
        .all(|t| t["line"].get("dash").is_none()));
}

/// A hipri cell the kernel served by interrupts: shown with the kernel's note, never the best
/// (not even when its figures are the best ones), never on the latency ladder.
#[test]
fn a_path_that_fell_back_shows_the_note_and_gets_no_star() {
    let mut run = review(1, "Optane", 90_000.0);
    let qd1 = run
        .detail
        .steps
        .iter_mut()
        .find(|s| s.name == "qd1-engines")
        .unwrap();
    let why = "pvsync2 --hipri: /dev/x has no poll queues (queue/io_poll=0), so the kernel ignores RWF_HIPRI and every I/O completes by interrupt";
    qd1.data["cells"].as_array_mut().unwrap().push(json!({
        "engine": "pvsync2+hipri", "rw": "randread", "fallback": why,
        "figures": {"iops": 500_000.0, "mean_ns": 2_000.0, "p99_ns": 2_500.0, "p99.999_ns": 9_000.0, "ios": 1e6}
    }));
    let html = build(&[run]);
    assert!(
        html.contains("<td class=\"fallback\""),
        "the cell is marked"
    );
    assert!(
        !html.contains("<strong>500.0k</strong>"),
        "a fallen-back cell got the star"
    );
    assert!(
        html.contains("<td class=\"best\"><strong>99.0k</strong> ★</td>"),
        "io_uring stays best"
    );
    assert!(
        html.contains("every I/O completes by interrupt"),
        "the kernel's note is shown"
    );
    assert!(
        html.contains("QD1 4k read (io_uring)"),
        "the ladder keeps the path that polled nothing"
    );
    assert!(
        !html.contains("QD1 4k read (pvsync2+hipri)"),
        "a fallen-back cell on the ladder"
    );
}
