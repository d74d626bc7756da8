//! `iolab pts`: SNIA's PTS, PTS-style. On zram with `--quick`, every test runs to its end;
//! each steady-state decision is recomputed here from the test's own per-round values (the
//! first window of 5 whose range is within 20 % and slope excursion within 10 % of its
//! average); the IOPS test's 4 KiB read element agrees with `iolab run` of the same point;
//! the plan for a 375 GB drive has the specification's hours; bad input is one line, exit 2.

use serde_json::Value;

use crate::support::iolab;

/// (range %, slope excursion %) of a window, as the specification computes them.
fn excursions(w: &[f64]) -> (f64, f64) {
    let n = w.len() as f64;
    let avg = w.iter().sum::<f64>() / n;
    let (lo, hi) = w
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &y| (l.min(y), h.max(y)));
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in w.iter().enumerate() {
        sxy += (i as f64 - xm) * (y - avg);
        sxx += (i as f64 - xm) * (i as f64 - xm);
    }
    let slope = sxy / sxx;
    (
        100.0 * (hi - lo) / avg,
        100.0 * (slope * (n - 1.0)).abs() / avg,
    )
}

/// The steady-state decision of one test, checked against its values.
fn check_steady_state(t: &Value) {
    let name = t["name"].as_str().unwrap();
    let s = &t["steady_state"];
    let values: Vec<f64> = s["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(
        values.len(),
        t["rounds"].as_array().unwrap().len(),
        "{name}"
    );
    let steady_at = (5..=values.len()).find(|&last| {
        let (r, sl) = excursions(&values[last - 5..last]);
        r <= 20.0 && sl <= 10.0
    });
    assert_eq!(
        s["reached"].as_bool().unwrap(),
        steady_at.is_some(),
        "{name}: {s}"
    );
    if let Some(last) = steady_at {
        assert_eq!(
            s["window_rounds"],
            serde_json::json!([last - 4, last]),
            "{name}"
        );
        let (r, sl) = excursions(&values[last - 5..last]);
        assert!(
            (s["range_pct"].as_f64().unwrap() - r).abs() < 1e-6,
            "{name}"
        );
        assert!(
            (s["slope_excursion_pct"].as_f64().unwrap() - sl).abs() < 1e-6,
            "{name}"
        );
        // A test to steady state stops at its first steady window.
        if !s["series"].as_bool().unwrap() {
            assert_eq!(values.len(), last, "{name}");
        }
    } else {
        assert!(
            values.len() >= 10 || s["series"].as_bool().unwrap(),
            "{name}: {s}"
        );
    }
}

#[test]
fn a_quick_pts_on_zram_runs_every_test_to_a_steady_state_decision_the_rule_confirms() {
    let _g = crate::support::device_lock();
    let dev = match crate::support::zram() {
        Ok(d) => d,
        Err(why) => return println!("skipped: {why}"),
    };
    let dev = dev.to_str().unwrap();
    let t0 = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("pts.html");
    let report = format!("--report={}", page.display());
    let out = iolab(&[
        "pts",
        dev,
        "--allow-destroy",
        "--quick",
        "--quiet",
        "--output-format=json",
        &report,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        t0.elapsed().as_secs() < 600,
        "the quick suite takes minutes"
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v["pts"]["disclaimer"],
        "PTS-style run by iolab: not a certified SNIA result"
    );
    assert!(v["pts"]["scaled"]
        .as_str()
        .unwrap()
        .contains("not comparable"));
    let tests = v["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["iops", "tp", "lat", "wsat", "hir", "xsr", "ecw", "dirth"]
    );
    for t in tests {
        assert!(t["unavailable"].is_null(), "{t}");
        assert!(t["purge"].as_str().unwrap().contains("BLKDISCARD"), "{t}");
        // Write saturation, host idle recovery and demand intensity start from the purge.
        match t["name"].as_str().unwrap() {
            "wsat" | "hir" | "dirth" => assert!(t["wipc"].is_null()),
            _ => assert_eq!(
                t["wipc"]["bytes"],
                2 * v["pts"]["region_bytes"].as_u64().unwrap()
            ),
        }
        check_steady_state(t);
    }
    check_host_idle_recovery(&tests[4]);
    check_cross_stimulus(&tests[5]);
    check_demand_intensity(&tests[6], &tests[7]);
    // A report section per test, every chart drawn in headless Chromium.
    if let Some(v) = crate::report::check_in_browser(&page, "iolab-pts-report.png") {
        let ids = |key: &str, field: &str| -> Vec<String> {
            v[key]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|x| match field {
                    "" => x.as_str(),
                    f => x[f].as_str(),
                })
                .map(String::from)
                .collect()
        };
        let sections = ids("sections", "");
        for t in names.iter().map(|n| format!("pts-{n}")) {
            assert!(sections.contains(&t), "{t}: {sections:?}");
        }
        let charts = ids("charts", "id");
        for c in [
            "pts-iops-convergence",
            "pts-iops-window",
            "pts-iops-surface",
            "pts-wsat-written",
            "pts-hir-recovery",
            "pts-xsr-recovery",
            "pts-ecw-demand",
            "pts-dirth-demand",
            "pts-dirth-histograms",
        ] {
            assert!(charts.iter().any(|x| x == c), "{c}: {charts:?}");
        }
        let html = std::fs::read_to_string(&page).unwrap();
        let said = html
            .matches("PTS-style run by iolab: not a certified SNIA result")
            .count();
        assert_eq!(said, 8, "every section says so");
        assert!(html.contains("heat map"), "the IOPS surface as a heat map");
    }
    // zram's 4 KiB blocks: the 0.5 KiB elements are left out, and said to be.
    let iops = &tests[0];
    assert_eq!(iops["left_out"].as_array().unwrap().len(), 7);
    assert_eq!(iops["rounds"][0]["elements"].as_array().unwrap().len(), 49);
    // The 4 KiB 100 % read element against `iolab run` of the same point.
    let mut ours: Vec<f64> = iops["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["elements"].as_array().unwrap().iter())
        .filter(|e| e["element"]["bs"] == 4096 && e["element"]["read_pct"] == 100)
        .map(|e| e["iops"].as_f64().unwrap())
        .collect();
    ours.sort_by(f64::total_cmp);
    let median = ours[ours.len() / 2];
    let name = format!("--filename={dev}");
    let run = iolab(&[
        "run",
        "--name=p",
        &name,
        "--rw=randread",
        "--bs=4k",
        "--direct=1",
        "--ioengine=libaio",
        "--iodepth=8",
        "--numjobs=2",
        "--group_reporting",
        "--runtime=1",
        "--time_based",
        "--norandommap",
        "--size=256m",
        "--output-format=json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let r: Value = serde_json::from_str(&run.stdout[run.stdout.find('{').unwrap()..]).unwrap();
    let single = r["jobs"][0]["read"]["iops"].as_f64().unwrap();
    let ratio = median / single;
    assert!(
        (0.7..1.43).contains(&ratio),
        "pts {median:.0} against run {single:.0}"
    );
}

/// Host idle recovery: five wait states, each 8 bursts with idle of 1, 2, 3, 5 and 10
/// bursts and then 8 without; the idle really passes between bursts.
fn check_host_idle_recovery(t: &Value) {
    let phases = t["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 10, "{t}");
    for (i, w) in [1.0, 2.0, 3.0, 5.0, 10.0].iter().enumerate() {
        let (idle, base) = (&phases[2 * i]["points"], &phases[2 * i + 1]["points"]);
        assert_eq!(idle.as_array().unwrap().len(), 8);
        assert_eq!(base.as_array().unwrap().len(), 8);
        for k in 0..7 {
            let (a, b) = (&idle[k], &idle[k + 1]);
            let time = a["time_s"].as_f64().unwrap();
            assert!((a["idle_s"].as_f64().unwrap() - w * time).abs() < 1e-9);
            let gap = b["at_s"].as_f64().unwrap() - a["at_s"].as_f64().unwrap();
            assert!(
                gap >= time * (1.0 + w),
                "wait state {w}: {gap} s between bursts"
            );
            assert!(a["iops"].as_f64().unwrap() > 0.0);
            assert_eq!(base[k]["idle_s"], 0.0);
        }
    }
}

/// Cross-stimulus recovery: 1024 KiB sequential writes as the series, then 8 KiB random
/// and 1024 KiB sequential again, 16 samples each.
fn check_cross_stimulus(t: &Value) {
    assert!(t["steady_state"]["series"].as_bool().unwrap());
    assert_eq!(t["rounds"].as_array().unwrap().len(), 16);
    let phases = t["phases"].as_array().unwrap();
    let first = |p: &Value| p["points"][0]["element"].clone();
    assert_eq!(
        (
            first(&phases[0])["bs"].as_u64(),
            first(&phases[0])["random"].as_bool()
        ),
        (Some(8192), Some(true))
    );
    assert_eq!(
        (
            first(&phases[1])["bs"].as_u64(),
            first(&phases[1])["random"].as_bool()
        ),
        (Some(1 << 20), Some(false))
    );
    for p in phases {
        assert_eq!(p["points"].as_array().unwrap().len(), 16);
    }
}

/// The composite workload and demand intensity: rounds of the thread × depth matrix (T2Q8
/// first); the histograms at three operating points hold every I/O the point did.
fn check_demand_intensity(ecw: &Value, dirth: &Value) {
    for t in [ecw, dirth] {
        let e = t["rounds"][0]["elements"].as_array().unwrap();
        assert_eq!(e.len(), 8);
        assert_eq!(
            (
                e[0]["element"]["threads"].as_u64(),
                e[0]["element"]["depth"].as_u64()
            ),
            (Some(2), Some(8))
        );
    }
    assert!(ecw["rounds"][0]["elements"][0]["label"]
        .as_str()
        .unwrap()
        .starts_with("composite 40/60"));
    let points = dirth["phases"][0]["points"].as_array().unwrap();
    let roles: Vec<&str> = points.iter().map(|p| p["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["maximum IOPS", "midpoint IOPS", "minimum outstanding I/O"]
    );
    assert_eq!(
        (
            points[2]["element"]["threads"].as_u64(),
            points[2]["element"]["depth"].as_u64()
        ),
        (Some(1), Some(1))
    );
    for p in points {
        let ios: f64 = p["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b[1].as_f64().unwrap())
            .sum();
        let expected = p["iops"].as_f64().unwrap() * p["time_s"].as_f64().unwrap();
        assert!(
            (0.9..1.1).contains(&(ios / expected)),
            "{ios} I/Os in the histogram, {expected} done"
        );
    }
}

#[test]
fn the_plan_for_a_375_gb_drive_has_the_specs_hours() {
    let out = iolab(&["pts", "/dev/null", "--plan", "--capacity", "375000000000"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |n: &str| {
        out.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(n))
            .unwrap_or_else(|| panic!("{n}: {}", out.stdout))
            .to_string()
    };
    assert!(out.stdout.starts_with("PTS-E 2.0.2"), "{}", out.stdout);
    // 750 GB of preconditioning at 1 GB/s is 12.5 minutes; then 56 one-minute elements a
    // round, 5 to 25 rounds.
    assert!(line("iops").contains("12 min of preconditioning, then 56 element(s) a round, 5 to 25 rounds: 4 h 52 min to 23 h 32 min"), "{}", line("iops"));
    assert!(line("lat").contains("9 element(s) a round, 5 to 25 rounds"));
    // Write saturation starts from the purged drive: no preconditioning, 24 hours.
    assert!(
        line("wsat").contains(
            "0 s of preconditioning, then 1 element(s) a round, 1440 rounds: 24 h to 24 h"
        ),
        "{}",
        line("wsat")
    );
    // Host idle recovery's five wait states take 15 h 30 min after its rounds.
    assert!(
        line("hir").contains("5 to 25 rounds, then 15 h 30 min: 15 h 35 min to 15 h 55 min"),
        "{}",
        line("hir")
    );
    assert!(
        line("xsr").contains("480 rounds, then 16 h"),
        "{}",
        line("xsr")
    );
    assert!(
        line("dirth").contains("36 element(s) a round, 5 to 25 rounds, then 30 min"),
        "{}",
        line("dirth")
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let out = iolab(&[
        "pts",
        "/dev/null",
        "--tests",
        "iops,nope",
        "--allow-destroy",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("unknown test 'nope'"), "{}", out.stderr);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    let out = iolab(&["pts", f.to_str().unwrap(), "--quick", "--tests", "lat"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--allow-destroy"), "{}", out.stderr);
    assert_eq!(
        std::fs::read(&f).unwrap(),
        vec![7u8; 1 << 20],
        "nothing written"
    );
}

/// `compare` of two quick PTS runs: a verdict for each test's tracked variable and each of
/// its elements, with `compare`'s words.
#[test]
fn compare_of_two_pts_runs_gives_per_test_verdicts() {
    let _g = crate::support::device_lock();
    let dev = match crate::support::zram() {
        Ok(d) => d,
        Err(why) => return println!("skipped: {why}"),
    };
    let dev = dev.to_str().unwrap();
    let db = tempfile::tempdir().unwrap();
    let db_arg = format!("--db={}", db.path().join("r.db").display());
    for _ in 0..2 {
        let args = [
            "pts",
            dev,
            "--allow-destroy",
            "--quick",
            "--quiet",
            "--tests",
            "tp,wsat",
            &db_arg,
        ];
        let out = iolab(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let out = iolab(&["compare", "1", "2", &db_arg, "--output-format=json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let tests = v["runs"][0]["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tp", "wsat"]);
    let words = ["faster", "slower", "no_difference", "inconclusive"];
    for t in tests {
        assert!(
            words.contains(&t["steady"]["verdict"].as_str().unwrap()),
            "{t}"
        );
        let elements = t["elements"].as_array().unwrap();
        assert!(!elements.is_empty(), "{t}");
        for e in elements {
            assert!(words.contains(&e["verdict"].as_str().unwrap()), "{e}");
            assert!(e["ci95_low"].as_f64().unwrap() <= e["ratio"].as_f64().unwrap());
        }
    }
    let shown = iolab(&["show", "2", &db_arg]);
    assert!(shown.stdout.contains("tp: Throughput"), "{}", shown.stdout);
    assert!(shown.stdout.contains("steady state"), "{}", shown.stdout);
    let text = iolab(&["compare", "1", "2", &db_arg]);
    assert!(
        text.stdout
            .contains("run 2 tp: 128 KiB sequential write throughput"),
        "{}",
        text.stdout
    );
}
