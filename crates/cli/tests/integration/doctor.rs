//! `iolab doctor`: every check of the machine (and of a target's disk) with its value, what a
//! benchmark wants and a verdict, as a table or JSON; and every stored run keeps the machine's.

use serde_json::Value;

use crate::support::iolab;

fn checks(args: &[&str]) -> Vec<Value> {
    let mut a = vec!["doctor"];
    a.extend(args);
    a.push("--output-format=json");
    let out = iolab(&a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["checks"].as_array().unwrap().clone()
}

#[test]
fn doctor_lists_each_check_with_its_value_and_verdict() {
    let machine = checks(&[]);
    let names: Vec<&str> = machine
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for want in [
        "cpu governor",
        "turbo",
        "deep C-states",
        "io_uring_disabled",
        "NVMe power states",
        "virtual machine",
        "memory",
        "NUMA nodes",
    ] {
        assert!(names.contains(&want), "no {want} in {names:?}");
    }
    for c in &machine {
        assert!(!c["value"].as_str().unwrap().is_empty(), "{c}");
        let verdict = c["verdict"].as_str().unwrap();
        assert!(
            ["ok", "distorts", "note", "not_applicable"].contains(&verdict),
            "{c}"
        );
    }
    // A target adds its disk's checks.
    let dir = tempfile::tempdir().unwrap();
    let with = checks(&[dir.path().to_str().unwrap()]);
    assert!(with.len() > machine.len());
    assert!(
        with.iter().any(|c| c["name"] == "I/O scheduler"),
        "{with:?}"
    );
    // A file's filesystem, with its type and mount options, as /proc/self/mountinfo has them.
    let fs = with
        .iter()
        .find(|c| c["name"] == "filesystem")
        .unwrap_or_else(|| panic!("no filesystem check: {with:?}"));
    let value = fs["value"].as_str().unwrap();
    assert!(value.contains(" on /") && value.contains(" from "), "{fs}");
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let fstype = value.split_whitespace().next().unwrap();
    assert!(
        mounts
            .lines()
            .any(|l| l.split_whitespace().nth(2) == Some(fstype)),
        "{fstype} is mounted nowhere: {fs}"
    );
    // A device has no filesystem check, and zram (a whole disk without partitions) none of
    // partitions.
    if std::path::Path::new("/dev/zram0").exists() {
        let zram = checks(&["/dev/zram0"]);
        for no in ["filesystem", "partitions"] {
            assert!(!zram.iter().any(|c| c["name"] == no), "{no}: {zram:?}");
        }
    }
    let table = iolab(&["doctor"]);
    assert_eq!(table.code, 0);
    assert!(table
        .stdout
        .starts_with("| check | value | wanted | verdict | what to do |"));
}

#[test]
fn every_stored_run_keeps_the_machines_checks() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let out = iolab(&[
        "run",
        "--name=x",
        &format!("--filename={}", f.display()),
        "--size=1m",
        "--rw=read",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["history", "-n", "1", "--output-format=json"]);
    let runs: Value = serde_json::from_str(&out.stdout).unwrap();
    let id = runs[0]["id"].as_i64().unwrap().to_string();
    let out = iolab(&["export", &id, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run: Value = serde_json::from_str(&out.stdout).unwrap();
    let kept: Vec<&str> = run["host"]["machine"]
        .as_array()
        .unwrap_or_else(|| panic!("no machine checks in {}", run["host"]))
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let now: Vec<String> = checks(&[])
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept, now, "the same checks as iolab doctor's");
}

#[test]
fn compare_warns_when_runs_were_measured_on_differing_machines() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let f = dir.path().join("f");
    let out = iolab(&[
        "run",
        "--name=x",
        &format!("--filename={}", f.display()),
        "--size=1m",
        "--rw=read",
        &format!("--db={db}"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The same run as if measured on another kernel, with swap on, on a drive with other
    // firmware.
    let out = iolab(&["export", "1", "--db", db, "--format", "json"]);
    let mut run: Value = serde_json::from_str(&out.stdout).unwrap();
    run["host"]["kernel"] = "5.4.0-other".into();
    for j in run["jobs"].as_array_mut().unwrap() {
        j["disk_model"] = "INTEL SSDPED1K375GA".into();
        j["disk_firmware"] = "E2010600".into();
    }
    for c in run["host"]["machine"].as_array_mut().unwrap() {
        if c["name"] == "swap" {
            c["value"] = "/dev/sdz9".into();
        }
    }
    let other = dir.path().join("other.json");
    std::fs::write(&other, run.to_string()).unwrap();
    let out = iolab(&["import", other.to_str().unwrap(), "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["compare", "1", "2", "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warning = out
        .stderr
        .lines()
        .find(|l| l.contains("differing machines"))
        .unwrap_or_else(|| panic!("no warning: {}", out.stderr));
    assert!(warning.contains("vs 5.4.0-other"), "{warning}");
    // The same drive after a firmware update.
    for j in run["jobs"].as_array_mut().unwrap() {
        j["disk_firmware"] = "E2010650".into();
    }
    std::fs::write(&other, run.to_string()).unwrap();
    let out = iolab(&["import", other.to_str().unwrap(), "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["compare", "2", "3", "--db", db]);
    assert!(
        out.stderr.contains("device firmware E2010600 vs E2010650"),
        "{}",
        out.stderr
    );
    assert!(warning.contains("swap none vs /dev/sdz9") || warning.contains("vs /dev/sdz9"));
    let same = iolab(&["compare", "1", "1", "--db", db]);
    assert!(
        !same.stderr.contains("differing machines"),
        "{}",
        same.stderr
    );
}

/// A machine whose CPUs other work keeps busy is said in one line before the run measures
/// anything (issue 53): two busy loops on two CPUs make `iolab run` name the load.
#[test]
fn a_busy_machine_is_flagged_before_the_run_starts() {
    let _dev = crate::support::device_lock();
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let hogs: Vec<_> = (0..cpus)
        .map(|_| {
            std::process::Command::new("timeout")
                .args(["3", "sh", "-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", crate::support::test_db())
        .args(["run", "--name=busy", "--size=4m", "--rw=randread"])
        .arg(format!("--filename={}", dir.path().join("f").display()))
        .args(["--runtime=100ms", "--time_based"])
        .output()
        .unwrap();
    for mut h in hogs {
        let _ = h.wait();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let at = |s: &str| {
        stderr
            .find(s)
            .unwrap_or_else(|| panic!("no '{s}': {stderr}"))
    };
    let line = stderr[at(crate::support::MACHINE_WARNING)..]
        .lines()
        .next()
        .unwrap();
    assert!(line.contains("load from others"), "{line}");
    assert!(
        at(crate::support::MACHINE_WARNING) < at("iolab: saved as run"),
        "said before the run: {stderr}"
    );
}
