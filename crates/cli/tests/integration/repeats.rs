//! `--repeat N` and `compare`'s verdicts: each repeat kept with its figures and each
//! figure's 95 % interval, a job file's jobs interleaved across repeats, the pooled job's
//! I/Os all the repeats', and `compare` saying slower at half the rate and no difference at
//! the same, with `--fail-if-worse`'s exit status.

use std::fs;

use serde_json::Value;

use crate::support::{iolab, iolab_json, test_db};

/// The run id `iolab run` said it saved as.
fn saved_id(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("iolab: saved as run "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run saved: {stderr}"))
        .to_string()
}

#[test]
fn repeats_keep_each_figure_with_an_interval_and_interleave_a_job_files_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("two.fio");
    fs::write(
        &job,
        format!(
            "[global]\nfilename={}\nsize=8m\nbs=4k\nioengine=psync\nruntime=200ms\n\
             time_based\n[first]\nrw=randread\n[second]\nstonewall\nrw=read\n",
            dir.path().join("f").display()
        ),
    )
    .unwrap();
    let doc = iolab_json(&["--repeat=5".into(), job.display().to_string()]);
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "one pooled job per job of the file");
    let mut starts: Vec<(u64, &str)> = Vec::new();
    for j in jobs {
        let name = j["jobname"].as_str().unwrap();
        let reps = &j["iolab"]["repeats"];
        assert_eq!(reps["count"], 5, "{name}: {reps}");
        let runs = reps["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 5);
        for (k, r) in runs.iter().enumerate() {
            assert_eq!(r["repeat"], k as u64 + 1);
            assert!(r["read"]["iops"].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["read"]["clat_p99_ns"].as_f64().unwrap() > 0.0, "{r}");
            starts.push((r["started_unix_ms"].as_u64().unwrap(), name));
        }
        // The pooled job ran every repeat's time: five windows of 200 ms.
        let runtime = j["read"]["runtime"].as_u64().unwrap();
        assert!(
            crate::support::holds_or_busy(
                (990..=1100).contains(&runtime),
                "the pooled runtime's 1100 ms bound"
            ) && runtime >= 990,
            "{name}: runtime {runtime} ms"
        );
        for fig in ["iops", "clat_p99_ns", "lat_mean_ns"] {
            let i = &reps["intervals"]["read"][fig];
            let (lo, mean, hi) = (
                i["ci95_low"].as_f64().unwrap(),
                i["mean"].as_f64().unwrap(),
                i["ci95_high"].as_f64().unwrap(),
            );
            assert!(lo <= mean && mean <= hi, "{name} {fig}: {i}");
            let vals: Vec<f64> = runs
                .iter()
                .map(|r| r["read"][fig].as_f64().unwrap())
                .collect();
            let m = vals.iter().sum::<f64>() / 5.0;
            assert!(
                (m - mean).abs() <= 1e-6 * m.abs().max(1.0),
                "{fig}: {m} vs {mean}"
            );
        }
    }
    starts.sort();
    let order: Vec<&str> = starts.iter().map(|s| s.1).collect();
    assert_eq!(
        order,
        ["first", "second"].repeat(5),
        "repeats interleave the file's jobs: {starts:?}"
    );
}

/// A rate-limited run of the same job (its IOPS are the rate's, whatever the machine does).
fn rated(dir: &std::path::Path, rate: u32) -> String {
    let out = iolab(&[
        "run",
        "--name=rated",
        &format!("--filename={}", dir.join("f").display()),
        "--size=8m",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=500ms",
        "--time_based",
        &format!("--rate_iops={rate}"),
        "--repeat=3",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("repeats (iolab): 3"), "{}", out.stdout);
    saved_id(&out.stderr)
}

#[test]
fn compare_says_slower_at_half_the_rate_and_fails_if_worse() {
    let dir = tempfile::tempdir().unwrap();
    let iops_row = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("| rated read | iops |"))
            .unwrap_or_else(|| panic!("no verdict row: {s}"))
            .to_string()
    };

    // The same rate: no difference (a noise threshold of 10 %, since the test machine may be
    // loaded by the tests beside this one), and not worse by 10 %. A repeat the loaded
    // machine could not hold at the rate makes the pair inconclusive, said so: up to three
    // pairs are taken, one must say "no difference" and none may fail.
    let mut rows = Vec::new();
    for _ in 0..3 {
        let (a, b) = (rated(dir.path(), 4000), rated(dir.path(), 4000));
        let out = iolab(&[
            "compare",
            &a,
            &b,
            "--fail-if-worse",
            "10",
            "--noise-threshold",
            "10",
        ]);
        let row = iops_row(&out.stdout);
        eprintln!("same rate: {row}");
        let done = row.ends_with("| no difference |");
        // Not worse shown (0), or, where a repeat fell short of the rate on a loaded
        // machine, cannot tell (3); never worse (1). "no difference" within ±10 % is
        // necessarily short of a 10 % loss.
        assert!(
            out.code == 0 || (out.code == 3 && !done),
            "{}{}",
            out.stdout,
            out.stderr
        );
        rows.push(row);
        if done {
            break;
        }
    }
    // Three pairs at one rate: a busy machine (iolab's own check) may hold none at it.
    if !crate::support::holds_or_busy(
        rows.iter().any(|r| r.ends_with("| no difference |")),
        "the same-rate pairs",
    ) {
        panic!("{rows:#?}");
    }
    if !rows.iter().any(|r| r.ends_with("| no difference |")) {
        return;
    }

    // Half the rate: slower, and worse by 10 %. A loaded machine can make a pair
    // inconclusive (a repeat short of its rate): up to three pairs, one must be "slower".
    let (mut fast, mut slow, mut out) = (String::new(), String::new(), None);
    for _ in 0..3 {
        (fast, slow) = (rated(dir.path(), 4000), rated(dir.path(), 2000));
        let o = iolab(&["compare", &fast, &slow, "--fail-if-worse", "10"]);
        eprintln!("half the rate: {}", iops_row(&o.stdout));
        let done = iops_row(&o.stdout).ends_with("| slower |");
        out = Some(o);
        if done {
            break;
        }
    }
    let out = out.unwrap();
    let slower = iops_row(&out.stdout).ends_with("| slower |");
    if !crate::support::holds_or_busy(slower, "the half-rate pairs") {
        panic!("{}", out.stdout);
    }
    if !slower {
        return;
    }
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        iops_row(&out.stdout).ends_with("| slower |"),
        "{}",
        out.stdout
    );
    // About half: a loaded machine may fall a little short of either rate.
    let worse: f64 = out
        .stderr
        .split("iops is ")
        .nth(1)
        .and_then(|t| t.split('%').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no worse line: {}", out.stderr));
    assert!(
        crate::support::holds_or_busy((40.0..=60.0).contains(&worse), "the half-rate share"),
        "{}",
        out.stderr
    );

    let out = iolab(&["compare", &fast, &slow, "--output-format=json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let iops = &v[1]["verdicts"]["rated/read"]["iops"];
    assert_eq!(iops["verdict"], "slower", "{iops}");
    let ratio = iops["ratio"].as_f64().unwrap();
    assert!(
        crate::support::holds_or_busy((ratio - 0.5).abs() < 0.1, "the half-rate ratio"),
        "{iops}"
    );
    assert!(iops["ci95_low"].as_f64().unwrap() <= ratio);

    // Worse on a named percentile only when it is: half the rate does not lengthen p99 by
    // 500 %.
    // On a busy machine the repeats' p99 scatter so far that the interval holds a 500 % loss:
    // "cannot tell" (3) is then the honest answer, never "worse" (1).
    let out = iolab(&["compare", &fast, &slow, "--fail-if-worse", "p99=500"]);
    let told = out.code == 0
        || (out.code == 3 && crate::support::holds_or_busy(false, "p99 within 500 % told apart"));
    assert!(told, "exit {}: {}{}", out.code, out.stdout, out.stderr);
    let out = iolab(&["compare", &fast, &slow, "--fail-if-worse", "fast=5"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.lines().count() <= 3, "{}", out.stderr);
    // No percentile beyond 100, and none the runs lack: bad input (2), never "worse" (1).
    for rule in ["p101=5", "p99.12345=5"] {
        let out = iolab(&["compare", &fast, &slow, "--fail-if-worse", rule]);
        assert_eq!(out.code, 2, "{rule}: {}", out.stderr);
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
}

#[test]
fn a_bad_repeat_count_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("never");
    for n in ["0", "x", "1001"] {
        let out = iolab(&[
            "run",
            "--name=j",
            &format!("--filename={}", f.display()),
            "--size=1m",
            &format!("--repeat={n}"),
        ]);
        assert_eq!(out.code, 2, "--repeat={n}: {}", out.stderr);
        assert!(out.stderr.contains("repeat"), "{}", out.stderr);
        assert!(!f.exists(), "nothing laid out");
    }
    let _ = test_db();
}

#[test]
fn the_main_job_measures_its_cells_in_rounds_with_intervals() {
    let out = iolab(&[
        "--engines=psync",
        "--runtime=300ms",
        "--repeat=2",
        "--output-format=json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "one pooled job per cell: {}", out.stdout);
    let starts = |j: &Value| -> Vec<u64> {
        let runs = j["iolab"]["repeats"]["runs"].as_array().unwrap().clone();
        runs.iter()
            .map(|r| r["started_unix_ms"].as_u64().unwrap())
            .collect()
    };
    let (read, write) = (starts(&jobs[0]), starts(&jobs[1]));
    assert_eq!((read.len(), write.len()), (2, 2));
    // A percentile the cell's I/Os cannot resolve is listed beside fio's keys as the max.
    for j in jobs {
        let dir = if j["read"]["total_ios"].as_u64() > Some(0) {
            "read"
        } else {
            "write"
        };
        let ios = j[dir]["total_ios"].as_u64().unwrap();
        let at_max = j["iolab"]["percentiles_at_max"][dir].to_string();
        assert_eq!(
            at_max.contains("\"99.999000\""),
            ios < 100_000,
            "{ios} I/Os: {at_max}"
        );
    }
    assert!(
        read[0] <= write[0] && write[0] <= read[1] && read[1] <= write[1],
        "rounds interleave the cells: read {read:?}, write {write:?}"
    );

    let out = iolab(&["--engines=psync", "--runtime=300ms", "--repeat=2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let iops = out
        .stdout
        .lines()
        .skip_while(|l| *l != "4KiB Random Read:")
        .find(|l| l.starts_with("| IOPS "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(iops.contains('–'), "{}", out.stdout);
    // 0.6 s of I/Os on a scratch file: far fewer than p99.999's 100,000, so the cell is the
    // slowest I/O and says so.
    let tail = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("| 99.999th Percentile Latency"))
        .find(|l| l.starts_with("| 4KiB Random Read"))
        .unwrap();
    let cell = tail.split('|').nth(2).unwrap().trim();
    let reads: f64 = out
        .stdout
        .lines()
        .find(|l| l.starts_with("| 4KiB Random Read"))
        .and_then(|l| l.split('|').nth(2))
        .map(|c| c.trim().trim_matches('*'))
        .and_then(|c| match c.strip_suffix('k') {
            Some(k) => k.parse::<f64>().ok().map(|k| k * 1e3),
            None => c.parse().ok(),
        })
        .unwrap_or_else(|| panic!("{}", out.stdout));
    if reads * 0.6 < 50_000.0 {
        assert!(cell.starts_with("max "), "{tail}");
        assert!(out.stdout.contains("(max): the cell's I/Os are too few"));
    }
    assert!(
        out.stdout
            .contains("95 % intervals of the 2 rounds' figures"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_reviews_points_are_repeated_and_stored_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = iolab(&[
        "review",
        "--quick",
        "--steps",
        "qd-sweep",
        "--max-qd",
        "2",
        "--runtime",
        "100ms",
        "--ramp-time",
        "0",
        "--repeat",
        "2",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["export", "1", "--db", db.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run: Value = serde_json::from_str(&out.stdout).unwrap();
    let jobs = run["jobs"].as_array().unwrap();
    assert!(!jobs.is_empty());
    for j in jobs {
        let reps = j["repeats"].as_array().map_or(0, Vec::len);
        assert_eq!(reps, 2, "each point once, pooled from two: {}", j["name"]);
    }
}

/// One CPU-bound run pinned to CPU 0 (buffered 4 KiB reads of a cached file), three repeats
/// of 1.5 s; with `hog`, two busy loops share CPU 0 during the middle repeat.
fn pinned(dir: &std::path::Path, hog: bool) -> String {
    let file = format!("--filename={}", dir.join("p").display());
    let child = std::process::Command::new("taskset")
        .args([
            "-c",
            "0",
            env!("CARGO_BIN_EXE_iolab"),
            "run",
            "--name=pinned",
            &file,
        ])
        .args(["--size=16m", "--rw=randread", "--bs=4k", "--ioengine=psync"])
        .args([
            "--invalidate=0",
            "--runtime=1500ms",
            "--time_based",
            "--repeat=3",
        ])
        .env("IOLAB_DB", test_db())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut hogs = Vec::new();
    if hog {
        // Repeat 1 runs from about 0.2 s to 1.7 s; the hogs take 2.0 s to 3.2 s.
        std::thread::sleep(std::time::Duration::from_millis(2000));
        for _ in 0..2 {
            hogs.push(
                std::process::Command::new("timeout")
                    .args([
                        "1.2",
                        "taskset",
                        "-c",
                        "0",
                        "sh",
                        "-c",
                        "while :; do :; done",
                    ])
                    .spawn()
                    .unwrap(),
            );
        }
    }
    let out = child.wait_with_output().unwrap();
    for mut h in hogs {
        let _ = h.wait();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    saved_id(&stderr)
}

/// A run whose middle repeat shared its CPU with a hog is judged `inconclusive` against a
/// clean one, with the noisy run's CV and the repeats that would decide as the reason,
/// never with an interval below zero;
/// two clean runs are "no difference" (of up to three pairs, since runs drift).
#[test]
fn a_disturbed_repeat_makes_the_verdict_inconclusive_with_its_reason() {
    if std::process::Command::new("taskset")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("skipped: no taskset");
        return;
    }
    let _dev = crate::support::device_lock();
    let dir = tempfile::tempdir().unwrap();
    let window = crate::support::Window::open();
    let clean = pinned(dir.path(), false);
    let again = pinned(dir.path(), false);
    let hogged = pinned(dir.path(), true);
    // Beside other work every run is disturbed, not only the hogged one's middle repeat:
    // the contrast the verdict must see is then the machine's, not the test's.
    let busy = |ok: bool, what: &str, figures: &str| {
        crate::support::holds_or_busy_in(ok, Some(&window), what, figures)
    };
    let verdicts = |a: &str, b: &str| {
        let out = iolab(&[
            "compare",
            a,
            b,
            "--output-format=json",
            "--noise-threshold=10",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        v[1]["verdicts"]["pinned/read"].clone()
    };
    let v = verdicts(&clean, &hogged);
    for f in ["iops", "mean"] {
        let x = &v[f];
        assert!(x["ci95_low"].as_f64().unwrap() > 0.0, "{x}");
        let inconclusive = x["verdict"] == "inconclusive";
        assert!(
            busy(inconclusive, "the hogged run's verdict", &x.to_string()),
            "{f}: {v:#}"
        );
        if !inconclusive {
            continue;
        }
        let why = x["reason"].as_str().unwrap();
        // On a machine busy beyond the test's own hogs the clean run may be the noisier.
        let ours = why.contains("CV") && why.contains("new run's 3 repeats");
        assert!(
            crate::support::holds_or_busy(ours, "which run the CV names")
                && why.contains("CV")
                && why.contains("repeats each"),
            "{why}"
        );
    }
    let out = iolab(&["compare", &clean, &hogged]);
    let said = out
        .stdout
        .contains("| inconclusive (the interval holds 1 and more than a 3 % change (CV");
    assert!(
        busy(said, "the hogged run's verdict", "in the table"),
        "{}",
        out.stdout
    );
    // Clean pairs: the runs drift between them on a shared machine (other tests run beside
    // this one), so up to three pairs are taken; one must be "no difference".
    let mut words = Vec::new();
    let (mut a, mut b) = (clean, again);
    for _ in 0..3 {
        let v = verdicts(&a, &b);
        eprintln!("clean pair {a} {b}: {v:#}");
        words.push(v["iops"]["verdict"].as_str().unwrap_or("").to_string());
        if words.last().is_some_and(|w| w == "no_difference") {
            break;
        }
        (a, b) = (pinned(dir.path(), false), pinned(dir.path(), false));
    }
    assert!(
        crate::support::holds_or_busy(
            words.iter().any(|w| w == "no_difference"),
            "the clean pairs' no difference"
        ),
        "{words:?}"
    );
}

/// A run of the same job on another engine, once (no --repeat).
fn once(dir: &std::path::Path, engine: &str) -> String {
    let out = iolab(&[
        "run",
        "--name=once",
        &format!("--filename={}", dir.join("f").display()),
        "--size=8m",
        "--rw=randread",
        "--bs=4k",
        &format!("--ioengine={engine}"),
        "--runtime=200ms",
        "--time_based",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    saved_id(&out.stderr)
}

/// Issue 69: `--fail-if-worse` never fails on runs measured once (it refuses, exit 2, before
/// any table, naming --repeat); a compare of runs whose job ran on different engines says so
/// above its verdicts; `history` shows each run's engines and keeps only what its filters
/// name.
#[test]
fn fail_if_worse_needs_intervals_and_compare_and_history_name_the_engines() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (once(dir.path(), "psync"), once(dir.path(), "io_uring"));
    // A 0 % threshold: any single-run dip would have failed before.
    let out = iolab(&["compare", &a, &b, "--fail-if-worse", "0"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains("no interval on iops (measured once)")
            && out.stderr.contains("--repeat"),
        "{}",
        out.stderr
    );
    let out = iolab(&["compare", &a, &b]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("- job once ran differently in run")
            && out.stdout.contains("engine psync vs io_uring"),
        "{}",
        out.stdout
    );
    let h = iolab(&[
        "history", "--engine", "io_uring", "--since", "1h", "-n", "100",
    ]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    let lines: Vec<&str> = h.stdout.lines().collect();
    assert!(lines[0].contains("engines"), "{}", h.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with(&format!("{b} "))),
        "{}",
        h.stdout
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.trim_start().starts_with(&format!("{a} "))),
        "{}",
        h.stdout
    );
    let h = iolab(&["history", "--since", "tomorrow"]);
    assert_eq!(h.code, 2, "{}", h.stderr);
    assert_eq!(h.stderr.trim().lines().count(), 1, "{}", h.stderr);
}
