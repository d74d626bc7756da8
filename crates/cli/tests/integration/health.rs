//! The drive's health beside every result (issue 53): a drive without a health log says so;
//! a run whose drive throttled says it in `show`, in `compare`'s verdicts and in the report,
//! whose temperature chart draws in headless Chromium. The NVMe lab reads a real (emulated)
//! drive's log (`nvme_lab.rs`); here the record of a throttling drive is imported.

use serde_json::{json, Value};

use crate::support::iolab;

#[test]
fn a_drive_without_a_health_log_says_so_in_the_output_json_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = format!("--db={}", db.display());
    let f = format!("--filename={}", dir.path().join("f").display());
    let args = ["run", "--name=x", &f, "--size=1m", "--rw=read", &db];
    let out = iolab(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("iolab: drive health ("))
        .unwrap_or_else(|| panic!("no health line:\n{}", out.stdout));
    if line.contains("(nvme") {
        eprintln!("the temp dir is on an NVMe drive: its log was read ({line})");
        return;
    }
    assert!(
        line.contains("no health log to read: ") && line.ends_with("is not an NVMe drive")
            || line.contains("is on no block device"),
        "{line}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--output-format=json");
    let out = iolab(&json_args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let d = &v["iolab"]["drive_health"][0];
    assert!(d["none"].is_string(), "{v}");
    assert_eq!(d["changed"], false);
    let show = iolab(&["show", "1", &db]);
    assert!(
        show.stdout.contains("drive health (") && show.stdout.contains("no health log to read"),
        "{}",
        show.stdout
    );
}

/// A health reading as the store keeps it: QEMU's 50 °C under a 70 °C threshold.
fn sample(at_ms: u64, temp_k: u16, transitions: u32, throttled_s: u32) -> Value {
    json!({
        "at_ms": at_ms, "critical_warning": 0, "temperature_k": temp_k,
        "available_spare": 100, "spare_threshold": 10, "percent_used": 1,
        "thermal_transitions": [transitions, 0], "thermal_seconds": [throttled_s, 0],
        "threshold_k": 343
    })
}

#[test]
fn a_throttled_drive_is_said_in_show_compare_and_a_report_that_draws_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let base = [
        "run",
        "--name=x",
        &f,
        "--size=4m",
        "--rw=randread",
        "--runtime=300ms",
        "--time_based",
        "--repeat=2",
    ];
    for _ in 0..2 {
        let mut a = base.to_vec();
        let d = format!("--db={db}");
        a.push(&d);
        let out = iolab(&a);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    // Run 2 as if its drive had warmed and throttled twice, for 30 s in all; run 1 cool.
    for (id, samples) in [
        (
            1,
            vec![
                sample(0, 318, 0, 0),
                sample(5000, 321, 0, 0),
                sample(9000, 320, 0, 0),
            ],
        ),
        (
            2,
            vec![
                sample(0, 320, 5, 100),
                sample(5000, 352, 6, 110),
                sample(9000, 345, 7, 130),
            ],
        ),
    ] {
        let out = iolab(&["export", &id.to_string(), "--db", db, "--format", "json"]);
        let mut run: Value = serde_json::from_str(&out.stdout).unwrap();
        for j in run["jobs"].as_array_mut().unwrap() {
            let disk = j["disk"].as_str().unwrap_or("vda").to_string();
            j["health"] = json!([{"drive": "nvme9", "disks": [disk], "samples": samples}]);
        }
        let p = dir.path().join(format!("run{id}.json"));
        std::fs::write(&p, run.to_string()).unwrap();
        let out = iolab(&["import", p.to_str().unwrap(), "--db", db]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    // Imported as runs 3 (cool) and 4 (throttled).
    let show = iolab(&["show", "4", "--db", db]);
    let want = "drive health (nvme9) in x: the drive throttled: thermal-management transitions \
                TMT1 5 → 7 (30 s throttled); crossed its warning temperature: 79 °C at 5.0 s, \
                threshold 70 °C";
    assert!(show.stdout.contains(want), "{}", show.stdout);
    let show = iolab(&["show", "3", "--db", db]);
    assert!(
        show.stdout
            .contains("drive health (nvme9): no throttling, peak 48 °C (3 readings)"),
        "{}",
        show.stdout
    );
    let cmp = iolab(&["compare", "3", "4", "--db", db]);
    assert_eq!(cmp.code, 0, "{}", cmp.stderr);
    assert!(
        cmp.stdout
            .contains("- run 4's drive changed under the test"),
        "{}",
        cmp.stdout
    );
    assert!(
        cmp.stderr
            .contains("iolab: warning: run 4's drive changed under the test"),
        "{}",
        cmp.stderr
    );
    assert!(
        !cmp.stdout.contains("run 3's drive changed"),
        "{}",
        cmp.stdout
    );
    let cmp = iolab(&["compare", "3", "4", "--db", db, "--output-format=json"]);
    assert_eq!(cmp.code, 0, "{}", cmp.stderr);
    let v: Value = serde_json::from_str(&cmp.stdout).unwrap();
    assert_eq!(
        (&v[0]["drive_changed"], &v[1]["drive_changed"]),
        (&json!(false), &json!(true))
    );
    assert!(
        v[1]["drive_health"][0]
            .as_str()
            .unwrap()
            .contains("the drive throttled"),
        "{v}"
    );
    let page = dir.path().join("health.html");
    let out = iolab(&["report", "3", "4", "--db", db, "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    for want in [
        "temperature-3",
        "temperature-4",
        "class=\"warn\"",
        "TMT1 5 → 7",
    ] {
        assert!(html.contains(want), "{want} not in the report");
    }
    if let Some(v) = crate::report::check_in_browser(&page, "health-report.png") {
        let ids: Vec<&str> = v["charts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["id"].as_str())
            .collect();
        assert!(ids.contains(&"temperature-4"), "{ids:?}");
    }
}
