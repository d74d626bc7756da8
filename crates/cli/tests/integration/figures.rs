//! Figures that carry fio's names mean what fio's mean: the same job through both tools on
//! /dev/zram0, asynchronous engines at QD 1, 8 and 32. slat, clat and lat means each within
//! 3x of fio's (before iolab submitted as fio does, its libaio slat was 7x fio's and its
//! clat 40x smaller), and the same peak bucket in iodepth_level, iodepth_submit and
//! iodepth_complete.

use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::{device_lock, iolab_json, zram};

fn peak(m: &Value) -> String {
    m.as_object()
        .unwrap()
        .iter()
        .max_by(|a, b| a.1.as_f64().unwrap().total_cmp(&b.1.as_f64().unwrap()))
        .map(|(k, _)| k.clone())
        .unwrap()
}

/// fio and a sized zram device, held for this test alone; None (with the reason printed)
/// where either is missing.
fn fio_and_zram() -> Option<(std::sync::MutexGuard<'static, ()>, std::path::PathBuf)> {
    if !fio_available() {
        return None;
    }
    let guard = device_lock();
    match zram() {
        Ok(d) => Some((guard, d)),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn job_of(stdout: &[u8]) -> Value {
    let s = String::from_utf8_lossy(stdout);
    let v: Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
    v["jobs"][0].clone()
}

#[test]
fn async_latency_split_and_depth_distributions_match_fio() {
    let Some((_g, dev)) = fio_and_zram() else {
        return;
    };
    for engine in ["libaio", "io_uring"] {
        for qd in [1, 8, 32] {
            let opts: Vec<String> = vec![
                "--name=q".into(),
                format!("--filename={}", dev.display()),
                "--direct=1".into(),
                "--rw=randread".into(),
                "--bs=4k".into(),
                format!("--ioengine={engine}"),
                format!("--iodepth={qd}"),
                "--time_based".into(),
                "--runtime=1".into(),
                "--size=64m".into(),
                "--norandommap".into(),
                "--output-format=json".into(),
            ];
            let what = format!("{engine} QD{qd}");
            // A busy moment on a 2-CPU machine can land on one tool's second only: a pair
            // out of range is run again (twice at most) before it counts as a difference.
            let mut attempt = 0;
            let (ours, theirs) = loop {
                attempt += 1;
                let (ours, theirs) = both(&opts);
                let mut off = None;
                for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                    let (a, b) = (
                        ours["read"][lat]["mean"].as_f64().unwrap(),
                        theirs["read"][lat]["mean"].as_f64().unwrap(),
                    );
                    let r = a / b;
                    println!("{what} {lat} mean iolab/fio: {r:.2} ({a:.0} / {b:.0} ns)");
                    if !(1.0 / 3.0..=3.0).contains(&r) {
                        off.get_or_insert(format!("{what} {lat}: {a:.0} vs {b:.0} ns"));
                    }
                }
                match off {
                    None => break (ours, theirs),
                    Some(why) if attempt == 3 => panic!("{why}, three times"),
                    Some(_) => continue,
                }
            };
            for dist in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
                assert_eq!(peak(&ours[dist]), peak(&theirs[dist]), "{what} {dist}");
            }
        }
    }
}

/// fio sums `job_runtime` over a reporting group (`total_run_time` in `sum_thread_stats()`),
/// and its CPU percentages are relative to that sum.
#[test]
fn job_runtime_of_a_group_is_summed_as_fios() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let opts: Vec<String> = vec![
        "--name=g".into(),
        format!("--filename={}", dir.path().join("g").display()),
        "--size=8m".into(),
        "--rw=randread".into(),
        "--numjobs=2".into(),
        "--group_reporting".into(),
        "--time_based".into(),
        "--runtime=1".into(),
        "--output-format=json".into(),
    ];
    let (ours, theirs) = both(&opts);
    let ours = ours["job_runtime"].as_f64().unwrap();
    let theirs = theirs["job_runtime"].as_f64().unwrap();
    assert!((1900.0..2300.0).contains(&ours), "iolab {ours} ms");
    assert!(
        (0.8..1.25).contains(&(ours / theirs)),
        "iolab {ours} ms, fio {theirs} ms"
    );
}

/// `iolab run` (with consent to write the target) and `fio` on the same job; each one's
/// first JSON job.
fn both(opts: &[String]) -> (Value, Value) {
    let mut with_consent = opts.to_vec();
    with_consent.push("--allow-destroy".into());
    let ours = iolab_json(&with_consent);
    let fio = Command::new("fio")
        .args(opts)
        .args(["--thread", "--output-format=json"])
        .output()
        .unwrap();
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    (ours["jobs"][0].clone(), job_of(&fio.stdout))
}

/// The same job's I/O count and bytes, reads and writes together, in both tools (how a
/// random mix splits depends on each tool's generator).
fn assert_same_io(ours: &Value, theirs: &Value, what: &str) {
    for k in ["total_ios", "io_bytes"] {
        let sum = |j: &Value| j["read"][k].as_u64().unwrap() + j["write"][k].as_u64().unwrap();
        assert_eq!(sum(ours), sum(theirs), "{what}: {k}");
        assert!(sum(ours) > 0, "{what}: {k}");
    }
}

/// How many io_uring_enter calls `iolab run ARGS` makes, counted by strace.
fn enters(args: &[String]) -> Option<u64> {
    let out = Command::new("strace")
        .args([
            "-f",
            "-c",
            "-e",
            "trace=io_uring_enter",
            "-o",
            "/dev/stdout",
        ])
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .arg("run")
        .args(args)
        .env("IOLAB_DB", crate::support::test_db())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.ends_with("io_uring_enter"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// With no latency wanted (`gtod_reduce=1`) a job does the same I/O as fio's and reports every
/// latency as zero, as fio does; on io_uring the reap's one `io_uring_enter` also submits, so
/// a QD1 job makes about one call per I/O instead of two.
#[test]
fn gtod_reduce_does_fios_io_with_one_enter_per_round() {
    let Some((_g, dev)) = fio_and_zram() else {
        return;
    };
    for engine in ["libaio", "io_uring"] {
        for qd in [1, 8] {
            let opts: Vec<String> = vec![
                "--name=g".into(),
                format!("--filename={}", dev.display()),
                "--direct=1".into(),
                "--rw=randrw".into(),
                "--bs=4k".into(),
                format!("--ioengine={engine}"),
                format!("--iodepth={qd}"),
                "--size=8m".into(),
                "--gtod_reduce=1".into(),
            ];
            let (ours, theirs) = both(&opts);
            let what = format!("{engine} QD{qd}");
            assert_same_io(&ours, &theirs, &what);
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                assert_eq!(
                    ours["read"][lat]["mean"].as_f64(),
                    Some(0.0),
                    "{what} {lat}"
                );
                assert_eq!(theirs["read"][lat]["mean"].as_f64(), Some(0.0), "fio {lat}");
            }
        }
    }
    let qd1 = |gtod: &str| -> Vec<String> {
        vec![
            "--name=e".into(),
            format!("--filename={}", dev.display()),
            "--direct=1".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--ioengine=io_uring".into(),
            "--size=4m".into(),
            format!("--gtod_reduce={gtod}"),
            "--output-format=json".into(),
            "--allow-destroy".into(),
        ]
    };
    let (Some(plain), Some(reduced)) = (enters(&qd1("0")), enters(&qd1("1"))) else {
        eprintln!("skipped the system call count: no strace");
        return;
    };
    // 1024 I/Os: two calls each with latencies on (submit, wait), one each without (plus a
    // few at setup; a submit call may find the completion already posted).
    println!("io_uring_enter calls for 1024 I/Os: {plain} with latencies, {reduced} without");
    assert!((1900..2100).contains(&plain), "{plain}");
    assert!((1000..1100).contains(&reduced), "{reduced}");
}

/// fio's io_uring options iolab takes on (`nonvectored=0`, `force_async`, `sqthread_poll_cpu`)
/// do the same I/O as fio's, and the setup the kernel accepted is reported.
#[test]
fn io_uring_setup_options_do_fios_io_and_are_reported() {
    let Some((_g, dev)) = fio_and_zram() else {
        return;
    };
    for (extra, shown) in [
        ("--nonvectored=0", "readv/writev"),
        ("--force_async=2", "every 2 async"),
        ("--sqthread_poll_cpu=0", "sqpoll on cpu 0"),
    ] {
        let mut opts: Vec<String> = vec![
            "--name=o".into(),
            format!("--filename={}", dev.display()),
            "--direct=1".into(),
            "--rw=randrw".into(),
            "--bs=4k".into(),
            "--ioengine=io_uring".into(),
            "--iodepth=8".into(),
            "--size=8m".into(),
            extra.into(),
        ];
        if extra.starts_with("--sqthread_poll_cpu") {
            opts.push("--sqthread_poll".into());
        }
        let (ours, theirs) = both(&opts);
        assert_same_io(&ours, &theirs, extra);
        let setup = ours["iolab"]["engine_setup"].as_str().unwrap_or_default();
        assert!(setup.contains(shown), "{extra}: {setup}");
        assert!(setup.contains("submit all"), "{extra}: {setup}");
    }
}

/// `ioengine=sync` (read/write at the file position, lseek only when it must) does fio's
/// I/O: sequential and random, reads and writes, on a file.
#[test]
fn the_sync_engine_does_fios_io() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for rw in ["write", "read", "randrw"] {
        let opts: Vec<String> = vec![
            "--name=s".into(),
            format!("--filename={}", dir.path().join("s").display()),
            format!("--rw={rw}"),
            "--bs=8k".into(),
            "--ioengine=sync".into(),
            "--size=4m".into(),
        ];
        let (ours, theirs) = both(&opts);
        assert_same_io(&ours, &theirs, rw);
    }
}

/// fio's offset modifiers on `rw` (`read:-8k` backwards as fio's backwards-read.fio,
/// `write:8k` with holes, `randread:4`) are read as fio reads them and do fio's I/O.
#[test]
fn rw_offset_modifiers_do_fios_io() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for rw in ["write:8k", "read:-8k", "randread:4", "randwrite:0"] {
        let opts: Vec<String> = vec![
            "--name=m".into(),
            format!("--filename={}", dir.path().join("m").display()),
            format!("--rw={rw}"),
            "--bs=4k".into(),
            "--size=2m".into(),
        ];
        let (ours, theirs) = both(&opts);
        assert_same_io(&ours, &theirs, rw);
    }
}
