//! `iolab kv` end to end with the real db_bench (Debian's rocksdb-tools), skipped with the
//! reason when it is missing: the four workloads at ~100k keys in a temp directory, all
//! stored with non-zero figures and a device series; show, compare and history of the run;
//! db_bench failing mid-way (finished workloads kept, run failed, its last lines shown); an
//! interrupted run; bad input refused before anything is written.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::iolab;

fn db_bench() -> Option<PathBuf> {
    let ok = Command::new("db_bench")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: db_bench is not installed (apt-get install rocksdb-tools)");
        return None;
    }
    Some(PathBuf::from("db_bench"))
}

fn show(db: &Path, run: i64) -> Value {
    let out = iolab(&[
        "show",
        &run.to_string(),
        "--db",
        db.to_str().unwrap(),
        "--output-format=json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// The run id from `saved as run N in ...`.
fn run_id(stderr: &str) -> i64 {
    let i = stderr.find("saved as run ").expect(stderr) + "saved as run ".len();
    stderr[i..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn metric(job: &Value, dir: &str, name: &str) -> f64 {
    job["metrics"][dir][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no {dir}.{name} in {job:#}"))
}

#[test]
fn four_workloads_at_100k_keys_are_stored_with_device_series() {
    let Some(_) = db_bench() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let out = iolab(&[
        "kv",
        "--dir",
        dir,
        "--num",
        "100000",
        "--threads",
        "8",
        "--db",
        dbs,
    ]);
    assert_eq!(
        out.code, 0,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert!(out.stderr.contains("open-file limit"), "{}", out.stderr);
    let id = run_id(&out.stderr);
    let run = show(&db, id);
    assert_eq!(
        (run["kind"].as_str(), run["status"].as_str()),
        (Some("kv"), Some("ok"))
    );
    assert_eq!(run["meta"]["num"], 100_000);
    assert!(run["meta"]["db_bench_version"]
        .as_str()
        .unwrap()
        .contains('.'));
    let jobs = run["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["fillseq", "readrandom", "overwrite", "fillrandom"]);
    let on_device = run["meta"]["disk"].is_string();
    for j in jobs {
        let name = j["name"].as_str().unwrap();
        assert_eq!(j["engine"], "db_bench");
        for m in [
            "ops_per_sec",
            "micros_per_op",
            "seconds",
            "mb_per_sec",
            "p50_us",
            "p99_us",
        ] {
            assert!(metric(j, "app", m) > 0.0, "{name}: {m} is zero");
        }
        for m in ["p75_us", "p99.9_us", "p99.99_us"] {
            assert!(
                metric(j, "app", m) >= metric(j, "app", "p50_us"),
                "{name}: {m}"
            );
        }
        let ops = metric(j, "app", "operations");
        assert!(ops >= 100_000.0, "{name}: {ops} operations");
        if on_device {
            assert!(metric(j, "disk", "queue_depth_mean") >= 0.0);
            // The run's JSON carries the job's series whole.
            let series = j["series"].as_array().into_iter().flatten();
            let iops = series
                .clone()
                .find(|s| s["direction"] == "disk" && s["name"] == "iops");
            assert!(
                iops.is_some_and(|s| !s["points"].as_array().unwrap().is_empty()),
                "{name}: no device series"
            );
        }
    }
    assert_eq!(jobs[1]["iodepth"], 8, "readrandom ran with --threads");
    if on_device {
        // The fills wrote to the device (db_bench's files reach it at the latest when the
        // database is closed, while the sampler still runs).
        let written: f64 = jobs
            .iter()
            .filter(|j| j["name"] != "readrandom")
            .map(|j| metric(j, "disk", "mb_per_sec_mean"))
            .sum();
        assert!(
            written > 0.0,
            "no bytes reached the device during the fills"
        );
    } else {
        eprintln!("device checks skipped: the temp directory is on no block device");
    }
    // The work directory was removed; only the results database is left.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("iolab-kv-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // Printed as a table, again by show, side by side by compare, listed by history.
    assert!(out.stdout.contains("| readrandom | 8 |"), "{}", out.stdout);
    let s = iolab(&["show", &id.to_string(), "--db", dbs]);
    assert!(s.stdout.contains("| fillrandom | 1 |"), "{}", s.stdout);
    // The drive's health around each workload: read where it is NVMe, said where it is not.
    for text in [&out.stdout, &s.stdout] {
        assert!(text.contains("drive health ("), "{text}");
    }
    let second = iolab(&[
        "kv",
        "--dir",
        dir,
        "--num",
        "20000",
        "--workloads",
        "fillseq",
        "--db",
        dbs,
    ]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let c = iolab(&[
        "compare",
        &id.to_string(),
        &run_id(&second.stderr).to_string(),
        "--db",
        dbs,
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let head = c.stdout.lines().next().unwrap();
    assert_eq!(
        head,
        "| run | device | keys | fillseq | readrandom | overwrite | fillrandom |"
    );
    assert!(c.stdout.contains("| 20.0k |"), "{}", c.stdout);
    let cj = iolab(&[
        "compare",
        &id.to_string(),
        &run_id(&second.stderr).to_string(),
        "--db",
        dbs,
        "--output-format=json",
    ]);
    let v: Value = serde_json::from_str(&cj.stdout).unwrap();
    assert!(
        v[0]["workloads"]["overwrite"]["app"]["ops_per_sec"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(v[1]["workloads"].get("overwrite").is_none());
    let h = iolab(&["history", "--db", dbs]);
    assert!(
        h.stdout.contains("fillseq") && h.stdout.contains("ops/s"),
        "{}",
        h.stdout
    );
}

/// A db_bench that fails on `overwrite` with a real db_bench error (an unknown flag).
fn failing_db_bench(dir: &Path) -> PathBuf {
    let p = dir.join("db_bench_fails_on_overwrite");
    std::fs::write(
        &p,
        "#!/bin/sh\ncase \"$*\" in *benchmarks=overwrite*) exec db_bench \"$@\" --no_such_flag=1;; esac\nexec db_bench \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn db_bench_failing_mid_way_keeps_what_finished() {
    let Some(_) = db_bench() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let bin = failing_db_bench(tmp.path());
    let out = iolab(&[
        "kv",
        "--dir",
        tmp.path().to_str().unwrap(),
        "--num",
        "20000",
        "--db-bench",
        bin.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("overwrite: db_bench failed"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("no_such_flag"),
        "its last lines: {}",
        out.stderr
    );
    let run = show(&db, run_id(&out.stderr));
    assert_eq!(run["status"], "failed");
    let names: Vec<&str> = run["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fillseq", "readrandom"]);
}

#[test]
fn an_interrupted_run_keeps_the_finished_workloads() {
    let Some(_) = db_bench() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "kv",
            "--num",
            "2000000",
            "--workloads",
            "fillseq,fillrandom",
        ])
        .arg("--dir")
        .arg(tmp.path())
        .arg("--db")
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first summary line on stdout: fillseq is done and stored, fillrandom starting.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.starts_with("fillseq"), "{line}");
    // SIGINT to iolab alone: it must stop db_bench itself.
    // SAFETY: plain kill(2) on our child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let run = show(&db, run_id(&stderr));
    assert_eq!(run["status"], "interrupted");
    assert_eq!(run["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(run["jobs"][0]["name"], "fillseq");
}

#[test]
fn bad_input_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--workloads", "scan"], "unknown workload 'scan'"),
        (vec!["--num", "0"], "--num"),
        (
            vec!["--num", "10", "--data-size", "1g"],
            "cannot be used with",
        ),
        (vec!["--data-size", "4x"], "is no unit"),
        (
            vec!["--db-bench", "/nonexistent/db_bench"],
            "no program at /nonexistent/db_bench",
        ),
        (
            vec!["--dir", "/nonexistent/dir"],
            "/nonexistent/dir is not a directory",
        ),
        (vec!["--dir", file.to_str().unwrap()], "is not a directory"),
        (vec!["--threads", "0"], "--threads"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["kv", "--db", dbs];
        args.extend(extra.iter().copied());
        let out = iolab(&args);
        assert_eq!(out.code, 2, "{extra:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.trim().lines().count(),
            1,
            "{extra:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(needle),
            "{extra:?}: wanted {needle} in {}",
            out.stderr
        );
        assert!(!db.exists(), "{extra:?} wrote the results database");
    }
    if db_bench().is_some() {
        // More data than the filesystem holds: refused with the sizes, nothing left behind.
        let out = iolab(&[
            "kv",
            "--dir",
            tmp.path().to_str().unwrap(),
            "--data-size",
            "1p",
            "--db",
            dbs,
        ]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains("free, but"), "{}", out.stderr);
        assert!(!db.exists());
        let left = std::fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(left, 1, "only a-file is left");
    }
    // Without db_bench on PATH: the command that installs it.
    let out = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(["kv", "--db", dbs])
        .env("PATH", tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("apt-get install rocksdb-tools"), "{stderr}");
    assert!(!db.exists());
}
