//! fio's normal output, line for line: a set of jobs (sync, async at depth, mixed,
//! group_reporting with numjobs, rate-limited, latency_target) runs through fio and iolab,
//! and every kind of line fio prints (its label, numbers and units masked) is in iolab's
//! output, in fio's order; iolab's own lines say they are iolab's.

use std::process::Command;

use crate::support::test_db;

/// A line's kind: its label with every figure, unit and name masked.
fn kind(line: &str, job: &str) -> String {
    if line.contains(": ios=") {
        return "  DISK".into();
    }
    let line = line.replacen(job, "JOB", 1);
    let head = match line.find([':', '=']) {
        Some(i) if !line.trim_start().starts_with('|') => &line[..i],
        _ if line.trim_start().starts_with('|') => "     |",
        _ => &line[..],
    };
    let mut k = head.to_string();
    for unit in ["(nsec)", "(usec)", "(msec)", "(  KiB/s)", "(  MiB/s)"] {
        k = k.replace(unit, "(unit)");
    }
    k.chars()
        .map(|c| if c.is_ascii_digit() { 'N' } else { c })
        .collect()
}

/// The kinds of a job's normal output, in order, without fio's start lines (version,
/// "Starting", layout) and the disks' names.
fn kinds(out: &str, job: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| {
            !l.starts_with("fio-") && !l.starts_with("iolab-") && !l.starts_with("Starting")
        })
        .filter(|l| !l.contains("Laying out IO file"))
        .map(|l| kind(l, job))
        .fold(Vec::new(), |mut v: Vec<String>, k| {
            // Rows of one kind (percentile rows, bucket lines) count once: how many a
            // block needs depends on the figures.
            if v.last() != Some(&k) {
                v.push(k);
            }
            v
        })
}

fn iolabs_own(line: &str) -> bool {
    let t = line.trim_start();
    [
        "iolab",
        "engine setup",
        "note:",
        "kernel helpers",
        "| (iolab)",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

#[test]
fn every_line_kind_fio_prints_is_in_iolabs_normal_output_in_fios_order() {
    if !crate::jobfiles::fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = ["--size=8m", "--runtime=1", "--time_based", "--bs=4k"];
    let jobs: [(&str, &[&str]); 6] = [
        ("sync", &["--rw=randread", "--ioengine=psync"]),
        (
            "async",
            &["--rw=randread", "--ioengine=libaio", "--iodepth=8"],
        ),
        (
            "mixed",
            &[
                "--rw=randrw",
                "--rwmixread=70",
                "--ioengine=libaio",
                "--iodepth=4",
            ],
        ),
        (
            "grouped",
            &["--rw=randread", "--numjobs=2", "--group_reporting"],
        ),
        ("rated", &["--rw=randread", "--rate_iops=500"]),
        (
            "target",
            &[
                "--rw=randread",
                "--ioengine=libaio",
                "--iodepth=8",
                "--latency_target=50ms",
                "--latency_window=500ms",
                "--latency_percentile=99",
            ],
        ),
    ];
    for (name, opts) in jobs {
        let fio_file = format!(
            "--filename={}",
            dir.path().join(format!("{name}.fio")).display()
        );
        let ours_file = format!(
            "--filename={}",
            dir.path().join(format!("{name}.iolab")).display()
        );
        let fio = Command::new("fio")
            .arg(format!("--name={name}"))
            .arg(&fio_file)
            .args(base)
            .args(opts)
            .output()
            .unwrap();
        assert!(fio.status.success(), "{name}: fio failed");
        let fio_out = String::from_utf8_lossy(&fio.stdout).to_string();
        let ours = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .arg("run")
            .arg(format!("--db={}", test_db().display()))
            .arg(format!("--name={name}"))
            .arg(&ours_file)
            .args(base)
            .args(opts)
            .output()
            .unwrap();
        let our_out = String::from_utf8_lossy(&ours.stdout).to_string();
        assert!(
            ours.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        let theirs = kinds(&fio_out, name);
        let mine: Vec<String> = kinds(
            &our_out
                .lines()
                .filter(|l| !iolabs_own(l))
                .collect::<Vec<_>>()
                .join("\n"),
            name,
        );
        // fio's kinds, in its order, each in iolab's output after the one before.
        let mut at = 0;
        for k in &theirs {
            match mine[at..].iter().position(|m| m == k) {
                Some(p) => at += p + 1,
                None => panic!(
                    "{name}: fio's line kind {k:?} is missing (or out of order) in iolab's \
                     output\n--- fio\n{fio_out}\n--- iolab\n{our_out}"
                ),
            }
        }
        // Every line iolab adds is fio's kind or says it is iolab's.
        for l in our_out.lines().filter(|l| !l.trim().is_empty()) {
            let k = kind(l, name);
            let known = theirs.contains(&k)
                || iolabs_own(l)
                || l.starts_with("iolab-")
                || l.starts_with("Starting");
            // A bucket line or percentile row fio happened not to need this time.
            let optional = k.starts_with("  lat (") || k == "     |" || k.contains("percentiles");
            assert!(
                known || optional,
                "{name}: iolab's line is neither fio's nor marked iolab's: {l}\n{our_out}"
            );
        }
    }
}

/// The `samples=` of a bw or iops line.
fn samples(out: &str, line: &str) -> u64 {
    out.lines()
        .find(|l| l.trim_start().starts_with(line))
        .and_then(|l| l.split("samples=").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {line} samples in\n{out}"))
}

#[test]
fn group_reporting_counts_every_copys_samples_as_fio() {
    if !crate::jobfiles::fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Two copies for 3 s, a bandwidth sample every 500 ms: fio reports 2 × 5 or 6.
    let job = |f: &str| {
        vec![
            "--name=g".to_string(),
            format!("--filename={}", dir.path().join(f).display()),
            "--size=8m".into(),
            "--rw=randread".into(),
            "--numjobs=2".into(),
            "--group_reporting".into(),
            "--runtime=3".into(),
            "--time_based".into(),
        ]
    };
    let fio = Command::new("fio").args(job("fio")).output().unwrap();
    let fio = String::from_utf8_lossy(&fio.stdout).to_string();
    let ours = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .arg("run")
        .arg(format!("--db={}", test_db().display()))
        .args(job("iolab"))
        .output()
        .unwrap();
    let ours = String::from_utf8_lossy(&ours.stdout).to_string();
    for line in ["bw (", "iops "] {
        let (f, o) = (samples(&fio, line), samples(&ours, line));
        assert!((8..=14).contains(&f), "fio's {line} samples={f}\n{fio}");
        assert!(
            (8..=14).contains(&o) && o.abs_diff(f) <= 2,
            "iolab's {line} samples={o}, fio's {f}\n--- iolab\n{ours}\n--- fio\n{fio}"
        );
    }
}
