//! Figures that carry fio's names mean what fio's mean: the same job through both tools on
//! /dev/zram0, asynchronous engines at QD 1, 8 and 32. slat, clat and lat means each within
//! 3x of fio's (before iolab submitted as fio does, its libaio slat was 7x fio's and its
//! clat 40x smaller), and the same peak bucket in iodepth_level, iodepth_submit and
//! iodepth_complete.

use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::{device_lock, iolab, zram};

fn peak(m: &Value) -> String {
    m.as_object()
        .unwrap()
        .iter()
        .max_by(|a, b| a.1.as_f64().unwrap().total_cmp(&b.1.as_f64().unwrap()))
        .map(|(k, _)| k.clone())
        .unwrap()
}

fn job_of(stdout: &[u8]) -> Value {
    let s = String::from_utf8_lossy(stdout);
    let v: Value = serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap();
    v["jobs"][0].clone()
}

#[test]
fn async_latency_split_and_depth_distributions_match_fio() {
    if !fio_available() {
        return;
    }
    let _g = device_lock();
    let dev = match zram() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
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
            let mut args = vec!["run"];
            args.extend(opts.iter().map(String::as_str));
            let ours = iolab(&args);
            assert_eq!(ours.code, 0, "{}", ours.stderr);
            let ours = job_of(ours.stdout.as_bytes());
            let fio = Command::new("fio")
                .args(&opts)
                .arg("--thread")
                .output()
                .unwrap();
            assert!(
                fio.status.success(),
                "{}",
                String::from_utf8_lossy(&fio.stderr)
            );
            let theirs = job_of(&fio.stdout);
            let what = format!("{engine} QD{qd}");
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                let (a, b) = (
                    ours["read"][lat]["mean"].as_f64().unwrap(),
                    theirs["read"][lat]["mean"].as_f64().unwrap(),
                );
                let r = a / b;
                println!("{what} {lat} mean iolab/fio: {r:.2} ({a:.0} / {b:.0} ns)");
                assert!(
                    (1.0 / 3.0..=3.0).contains(&r),
                    "{what} {lat}: {a:.0} vs {b:.0} ns"
                );
            }
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
    let mut args = vec!["run", "--allow-destroy"];
    args.extend(opts.iter().map(String::as_str));
    let ours = iolab(&args);
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let ours = job_of(ours.stdout.as_bytes())["job_runtime"]
        .as_f64()
        .unwrap();
    let fio = Command::new("fio")
        .args(&opts)
        .arg("--thread")
        .output()
        .unwrap();
    let theirs = job_of(&fio.stdout)["job_runtime"].as_f64().unwrap();
    assert!((1900.0..2300.0).contains(&ours), "iolab {ours} ms");
    assert!(
        (0.8..1.25).contains(&(ours / theirs)),
        "iolab {ours} ms, fio {theirs} ms"
    );
}
