//! `iolab pts --quick` in the NVMe lab (`scripts/nvme-lab.sh`: QEMU's emulated NVMe drive
//! under TCG): every test of the suite runs to its end within 15 minutes, each purged by
//! NVMe Format NVM on the namespace with a user data erase (a purge in the specification's
//! sense: only `--quick` keeps the results from being comparable), with a steady-state
//! decision per test; the drive's volatile write cache is disabled for the run, as PTS-E
//! requires, and restored after; the header names the drive's serial and firmware from
//! Identify Controller; the report comes back and every chart is drawn in headless
//! Chromium. Skipped with a printed reason where the lab cannot be set up.

use std::sync::OnceLock;

#[allow(dead_code)]
#[path = "support/lab.rs"]
mod lab;
use lab::{parts, Sections};

#[allow(dead_code)]
#[path = "support/browser.rs"]
mod browser;
use browser::{Browser, CHART_CHECK};

fn lab() -> Option<&'static Sections> {
    static LAB: OnceLock<Option<Sections>> = OnceLock::new();
    LAB.get_or_init(|| lab::boot(&["--timeout", "2400"], include_str!("pts_lab/guest.sh")))
        .as_ref()
}

fn doc(s: &Sections) -> serde_json::Value {
    let (out, err, rc) = parts(s, "pts");
    assert_eq!(rc, 0, "{err}");
    serde_json::from_str(&out[out.find('{').expect("JSON")..]).expect("the pts JSON")
}

#[test]
fn every_test_runs_to_its_end_purged_by_nvme_format_within_fifteen_minutes() {
    let Some(s) = lab() else { return };
    let (_, err, _) = parts(s, "pts");
    let secs: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("seconds "))
        .and_then(|x| x.trim().parse().ok())
        .unwrap_or_else(|| panic!("no time: {err}"));
    println!("the quick suite took {secs} s in the lab");
    assert!(secs < 900, "{secs} s");
    let v = doc(s);
    let names: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["iops", "tp-128k", "tp-1024k", "lat", "wsat", "hir", "xsr", "cbw", "dirth"]
    );
    for t in v["tests"].as_array().unwrap() {
        assert!(t["unavailable"].is_null(), "{t}");
        let purge = t["purge"].as_str().unwrap();
        assert!(
            purge.starts_with("purged by NVMe Format NVM of namespace 1 (user data erase"),
            "{purge}"
        );
        // A real purge: only --quick keeps the test from being comparable.
        let why: Vec<&str> = t["not_comparable"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].starts_with("--quick"), "{why:?}");
        let ss = &t["steady_state"];
        let n = ss["values"].as_array().unwrap().len();
        assert_eq!(n, t["rounds"].as_array().unwrap().len());
        // A decision either way: steady in a window, a series run out, or rounds used up.
        assert!(
            ss["reached"].as_bool().unwrap() || ss["series"].as_bool().unwrap() || n == 10,
            "{}: {ss}",
            t["name"]
        );
    }
    // Identify Controller names the drive; its cache was disabled for the run and is back.
    let p = &v["pts"];
    assert!(p["serial"].as_str().is_some_and(|s| !s.is_empty()), "{p}");
    assert!(p["firmware"].as_str().is_some_and(|s| !s.is_empty()), "{p}");
    assert_eq!(p["write_cache"]["required"], "disabled");
    assert_eq!(p["write_cache"]["during"], "disabled", "{p}");
    assert!(p["write_cache"]["departs"].is_null(), "{p}");
    let (before, _, _) = parts(s, "cache_before");
    let (after, _, _) = parts(s, "cache_after");
    assert_eq!(before.trim(), after.trim(), "the cache is restored");
    if p["write_cache"]["found"] == "enabled" {
        assert!(
            after.contains("0x00000001") || after.contains("0x1"),
            "{after}"
        );
    }
    // The drive's 512-byte blocks: nothing is left out.
    assert!(v["tests"][0]["left_out"].as_array().unwrap().is_empty());
    assert_eq!(
        v["tests"][0]["rounds"][0]["elements"]
            .as_array()
            .unwrap()
            .len(),
        56
    );
}

/// PTS-C: its four tests over 75 % of the namespace, each purged by Format; the write cache,
/// found disabled, enabled for the run and disabled again after.
#[test]
fn the_client_profile_runs_its_tests_with_the_cache_enabled() {
    let Some(s) = lab() else { return };
    let (out, err, rc) = parts(s, "client");
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
    let p = &v["pts"];
    assert_eq!(p["profile"], "PTS-C 2.0.2");
    let names: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["iops", "tp-1024k", "lat", "wsat"]);
    assert_eq!(p["write_cache"]["found"], "disabled", "{p}");
    assert_eq!(p["write_cache"]["during"], "enabled", "{p}");
    assert_eq!(p["write_cache"]["required"], "enabled", "{p}");
    let (after, _, _) = parts(s, "cache_client");
    // nvme-cli prints the current value: 0x00000001 when enabled, 00000000 when not.
    assert!(
        after.contains("Current value") && !after.contains("00000001"),
        "{after}"
    );
    for t in v["tests"].as_array().unwrap() {
        assert!(t["unavailable"].is_null(), "{t}");
        assert!(
            t["purge"].as_str().unwrap().contains("user data erase"),
            "{t}"
        );
    }
}

/// What a restore case printed: its `before`, `during` and `after` lines.
fn cache_states(s: &Sections, name: &str) -> (String, String, String) {
    let (out, err, rc) = parts(s, name);
    assert_eq!(rc, 0, "{out}\n{err}");
    let line = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no '{key}' in: {out}\n{err}"))
            .trim()
            .to_string()
    };
    (line("before"), line("during"), line("after"))
}

/// A signal stops the run and the write cache it disabled for PTS-E is enabled again.
#[test]
fn the_write_cache_is_restored_after_sigterm_and_sigint() {
    let Some(s) = lab() else { return };
    for case in ["sigterm", "sigint"] {
        let (before, during, after) = cache_states(s, case);
        assert_eq!((before.as_str(), during.as_str()), ("1", "0"), "{case}");
        assert_eq!(after, "1", "{case}: the cache was left disabled");
    }
}

/// SIGKILL runs nothing: the cache stays disabled until the next command that opens the
/// run's database, which puts it back from the state the run recorded, and says so.
#[test]
fn the_write_cache_left_by_a_killed_run_is_restored_by_the_next_command() {
    let Some(s) = lab() else { return };
    let (before, during, after) = cache_states(s, "sigkill");
    assert_eq!((before.as_str(), during.as_str()), ("1", "0"));
    assert_eq!(after, "0", "nothing runs on SIGKILL");
    let (out, err, _) = parts(s, "sigkill");
    let said = out
        .lines()
        .find_map(|l| l.strip_prefix("next said: "))
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    assert!(
        said.contains("restored the write cache of /dev/nvme0n1 to enabled"),
        "{said}"
    );
    assert!(out.contains("next rc 0"), "{out}");
    assert!(out.contains("after next 1"), "{out}");
}

/// The watchdog gives up on I/O that does not complete (a disk whose every command takes
/// 20 s) and ends the process without unwinding: the write cache is restored first.
#[test]
fn the_write_cache_is_restored_when_the_watchdog_gives_up() {
    let Some(s) = lab() else { return };
    let (out, err, _) = parts(s, "watchdog");
    if out.contains("rc 3") && !out.contains("device") {
        return println!("skipped: no scsi_debug in the lab's kernel: {err}");
    }
    let (before, during, after) = cache_states(s, "watchdog");
    assert_eq!(before, "write back", "{out}");
    assert_eq!(during, "write through", "{out}\n{err}");
    assert!(err.contains("giving up"), "the watchdog gave up: {err}");
    assert!(out.contains("rc 1"), "{out}");
    assert_eq!(after, "write back", "{out}\n{err}");
}

/// On a partition of the namespace the purge is BLKDISCARD of the partition: a Format would
/// erase the whole namespace, which the user did not name.
#[test]
fn a_partition_is_never_formatted() {
    let Some(s) = lab() else { return };
    let (out, err, rc) = parts(s, "partition");
    assert_eq!(rc, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
    let purge = v["tests"][0]["purge"].as_str().unwrap();
    assert!(purge.contains("the target is a partition"), "{purge}");
    assert!(purge.contains("BLKDISCARD"), "{purge}");
}

#[test]
fn the_report_has_a_section_per_test_and_draws_every_chart() {
    let Some(s) = lab() else { return };
    let (out, err, rc) = parts(s, "report");
    assert_eq!(rc, 0, "{err}");
    let kept = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("pts-lab-report.b64");
    std::fs::write(&kept, &out).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("pts.html");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("base64 -d | gzip -d > {}", page.display()))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), out.as_bytes()).unwrap();
    drop(child.stdin.take());
    assert!(
        child.wait().unwrap().success(),
        "the report did not come back whole: {err}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    for n in [
        "iops", "tp-128k", "tp-1024k", "lat", "wsat", "hir", "xsr", "cbw", "dirth",
    ] {
        assert!(html.contains(&format!("id=\"pts-{n}\"")), "pts-{n}");
    }
    assert!(html.contains("NVMe Format NVM"));
    let mut b = match Browser::launch() {
        Ok(b) => b,
        Err(why) => return println!("skipped the browser check: {why}"),
    };
    b.open(&page).unwrap();
    let v = b.eval(CHART_CHECK).unwrap();
    let charts = v["charts"].as_array().unwrap();
    for c in charts {
        let id = c["id"].as_str().unwrap();
        assert!(c["traces"].as_u64().unwrap() > 0, "{id}: {c}");
        assert_eq!(c["rendered"], c["traces"], "{id}: traces not drawn: {c}");
    }
    for id in [
        "pts-iops-surface",
        "pts-hir-recovery",
        "pts-dirth-histograms",
    ] {
        assert!(charts.iter().any(|c| c["id"] == id), "{id}");
    }
    let shot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("iolab-pts-lab-report.png");
    b.screenshot(&shot, None).unwrap();
    println!(
        "Chromium drew {} charts of the lab's report: {}",
        charts.len(),
        shot.display()
    );
    assert!(b.problems.is_empty(), "browser problems: {:#?}", b.problems);
}
