//! "Cannot tell" is an answer (issue 79): every verdict `compare` prints is the one its own
//! interval shows, on runs made noisy on purpose; `--fail-if-worse` has three outcomes, each
//! with its exit status; no interval of a positive figure reaches below zero.

use std::process::{Child, Command};

use serde_json::Value;

use crate::support::{iolab, test_db};

/// The run id `iolab run` said it saved as (on stderr), or `iolab import` imported as (on
/// stdout).
fn saved_id(said: &str) -> String {
    said.lines()
        .find_map(|l| {
            l.strip_prefix("iolab: saved as run ")
                .or_else(|| l.strip_prefix("imported run "))
        })
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run saved: {said}"))
        .to_string()
}

/// A job of 4 KiB random reads on a temp file, repeated 5 times.
fn run(dir: &std::path::Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "run".to_string(),
        "--name=q".into(),
        format!("--filename={}", dir.join("f").display()),
        "--size=8m".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--runtime=150ms".into(),
        "--time_based".into(),
        "--repeat=5".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = iolab(&a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (saved_id(&out.stderr), out.stdout)
}

/// Two CPU hogs, killed on drop.
struct Hogs(Vec<Child>);

impl Hogs {
    fn start() -> Hogs {
        Hogs(
            (0..2)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The "[low, high]" of a ratio text "0.85 [0.61, 1.18]".
fn bounds(ratio: &str) -> Option<(f64, f64)> {
    let inner = ratio.split_once('[')?.1.trim_end_matches(']');
    let (lo, hi) = inner.split_once(',')?;
    Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?))
}

/// Checks one verdict against its own interval (printed to two decimals, so the bounds
/// are compared with that much slack).
fn agrees(word: &str, lo: f64, hi: f64, threshold: f64, what: &str) {
    let e = 0.005;
    match word {
        "no difference" => assert!(
            lo >= 1.0 - threshold - e && hi <= 1.0 + threshold + e,
            "{what}: no difference outside ±{threshold}"
        ),
        "faster" | "slower" => assert!(
            lo > 1.0 - e || hi < 1.0 + e,
            "{what}: {word} with an interval that holds 1"
        ),
        w if w.starts_with("inconclusive") => {
            assert!(lo <= 1.0 + e && hi >= 1.0 - e, "{what}: inconclusive off 1");
            assert!(
                lo < 1.0 - threshold + e || hi > 1.0 + threshold - e,
                "{what}: inconclusive within the threshold"
            );
            assert!(w.contains("repeats each"), "{what}: says what would decide");
        }
        w => panic!("{what}: unexpected verdict {w}"),
    }
}

/// Runs made noisy on purpose (two CPU hogs through the second run's first repeats): every
/// verdict row of `compare`, in the table and in the JSON, is the one its interval shows,
/// and no figure's interval reaches below zero.
#[test]
fn every_verdict_of_compare_is_the_one_its_interval_shows() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = run(dir.path(), &[]);
    let b = {
        let hogs = Hogs::start();
        let killer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(450));
            drop(hogs);
        });
        let (b, stdout) = run(dir.path(), &[]);
        killer.join().unwrap();
        // `run --repeat`'s own intervals: never below zero.
        for line in stdout
            .lines()
            .filter(|l| l.contains(" [") && l.contains(" … "))
        {
            assert!(!line.contains("[-"), "{line}");
        }
        b
    };
    let out = iolab(&["compare", &a, &b]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("no difference: the whole interval within ±3 %"),
        "{}",
        out.stdout
    );
    let mut seen = 0;
    for line in out.stdout.lines().filter(|l| l.starts_with("| q read |")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | job | figure | run a | run b | ratio | verdict |
        let (base, new, ratio, word) = (cells[3], cells[4], cells[5], cells[6]);
        for figure in [base, new] {
            assert!(!figure.contains("[-"), "an interval below zero: {line}");
        }
        let (lo, hi) = bounds(ratio).unwrap_or_else(|| panic!("{line}"));
        assert!(lo > 0.0, "{line}");
        agrees(word, lo, hi, 0.03, line);
        seen += 1;
    }
    assert!(seen >= 2, "{}", out.stdout);
    let out = iolab(&["compare", &a, &b, "--output-format=json"]);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let verdicts = v[1]["verdicts"].as_object().unwrap();
    for (job, figures) in verdicts {
        for (figure, x) in figures.as_object().unwrap() {
            let (lo, hi) = (
                x["ci95_low"].as_f64().unwrap(),
                x["ci95_high"].as_f64().unwrap(),
            );
            let word = x["verdict"].as_str().unwrap().replace('_', " ");
            let why = x["reason"].as_str().unwrap_or("");
            let what = format!("{job} {figure}: {x}");
            agrees(format!("{word} {why}").trim(), lo, hi, 0.03, &what);
        }
    }
}

/// A run whose repeats' figures are `iops` (each latency the inverse), imported from an
/// export of `template`: the verdicts' inputs exactly as a test wants them.
fn crafted(dir: &std::path::Path, template: &Value, iops: &[f64]) -> String {
    let mut v = template.clone();
    let job = &mut v["jobs"][0];
    let reps = job["repeats"].as_array_mut().unwrap();
    assert_eq!(reps.len(), iops.len());
    for (r, x) in reps.iter_mut().zip(iops) {
        let read = r["metrics"]["read"].as_object_mut().unwrap();
        let scale = x / read["iops"].as_f64().unwrap();
        for (name, val) in read.iter_mut() {
            let f = val.as_f64().unwrap();
            *val = match name.as_str() {
                "iops" | "bw_bytes" => (f * scale).into(),
                _ => (f / scale).into(),
            };
        }
    }
    let path = dir.join(format!("crafted-{}.json", iops[0] as u64 + iops[1] as u64));
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let out = iolab(&["import", path.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    saved_id(&out.stdout)
}

/// `--fail-if-worse 10`'s three outcomes on runs whose repeats are known: worse shown
/// (exit 1), not worse shown (exit 0), cannot tell (exit 3, saying how many repeats would
/// decide); and `--help` documents each status.
#[test]
fn fail_if_worse_has_three_outcomes_each_with_its_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let (id, _) = run(dir.path(), &[]);
    let out = iolab(&["export", &id]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let template: Value = serde_json::from_str(&out.stdout).unwrap();
    let base = crafted(
        dir.path(),
        &template,
        &[10_000.0, 10_100.0, 9_900.0, 10_050.0, 9_950.0],
    );
    let same = crafted(
        dir.path(),
        &template,
        &[10_020.0, 9_980.0, 10_060.0, 9_940.0, 10_001.0],
    );
    let half = crafted(
        dir.path(),
        &template,
        &[5_000.0, 5_050.0, 4_950.0, 5_025.0, 4_975.0],
    );
    let noisy = crafted(
        dir.path(),
        &template,
        &[10_000.0, 5_000.0, 9_000.0, 6_000.0, 9_500.0],
    );
    let gate = |new: &str| iolab(&["compare", &base, new, "--fail-if-worse", "10"]);

    let out = gate(&same);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("iolab: not worse: run"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("| no difference |"), "{}", out.stdout);

    let out = gate(&half);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("iops is 50.0% worse than run"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("| slower |"), "{}", out.stdout);

    let out = gate(&noisy);
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("iolab: cannot tell: run"))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(
        line.contains("its interval holds a 10% loss") && line.contains("repeats each"),
        "{line}"
    );
    // The table's verdict for the same row: inconclusive, with what would decide it.
    assert!(
        out.stdout.contains("| inconclusive (the interval holds 1"),
        "{}",
        out.stdout
    );
    // Worse beats cannot tell: a later run shown worse fails the gate whatever the others.
    let out = iolab(&["compare", &base, &noisy, &half, "--fail-if-worse", "10"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);

    let help = iolab(&["compare", "--help"]);
    for status in [
        "Exit 1: worse shown",
        "Exit 0: not worse shown",
        "Exit 3: cannot tell",
    ] {
        assert!(help.stdout.contains(status), "{status}: {}", help.stdout);
    }
    let _ = test_db();
}
