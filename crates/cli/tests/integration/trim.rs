//! fio's trim workloads (`rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`): on a block
//! device each runs through iolab and fio with the same trims and writes; on a file iolab
//! punches holes; and a trim, like a write, needs consent.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::{device_lock, iolab, loop_device};

/// (I/Os, bytes) of read, write and trim of the run's first job.
fn counts(v: &Value) -> [(u64, u64); 3] {
    let j = &v["jobs"][0];
    ["read", "write", "trim"].map(|d| {
        (
            j[d]["total_ios"].as_u64().unwrap(),
            j[d]["io_bytes"].as_u64().unwrap(),
        )
    })
}

fn run(tool: &str, target: &Path, args: &[&str]) -> Value {
    let name = format!("--filename={}", target.display());
    let mut all = vec!["--name=t", name.as_str(), "--output-format=json"];
    all.extend_from_slice(args);
    let (code, out, err) = if tool == "fio" {
        let o = Command::new("fio").args(&all).output().expect("fio runs");
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (o.status.code().unwrap_or(-1), s(&o.stdout), s(&o.stderr))
    } else {
        let mut a = vec!["run", "--allow-destroy"];
        a.extend_from_slice(&all);
        let o = iolab(&a);
        (o.code, o.stdout, o.stderr)
    };
    assert_eq!(code, 0, "{tool} {args:?}: {err}");
    let json = &out[out.find('{').unwrap_or(0)..];
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{tool}: {e}: {out}"))
}

#[test]
fn trim_workloads_match_fio_on_a_block_device() {
    if !fio_available() {
        return;
    }
    let _lock = device_lock();
    let Some(dev) = loop_device(16 << 20, false) else {
        return;
    };
    let path = dev.path.clone();
    for rw in ["trim", "randtrim", "trimwrite", "randtrimwrite"] {
        for engine in [
            &["--ioengine=psync"][..],
            &["--ioengine=io_uring", "--iodepth=4"],
        ] {
            let rw_arg = format!("--rw={rw}");
            let mut args = vec![rw_arg.as_str(), "--bs=64k", "--size=4m", "--direct=1"];
            args.extend_from_slice(engine);
            let f = counts(&run("fio", &path, &args));
            let i = counts(&run("iolab", &path, &args));
            assert_eq!(i, f, "{rw} {engine:?}: iolab {i:?}, fio {f:?}");
            let pairs = if rw.contains("write") { 64 } else { 0 };
            assert_eq!(i[2], (64, 4 << 20), "{rw}: 64 trims of 64 KiB");
            assert_eq!(i[1].0, pairs, "{rw}: a write after each trim, or none");
        }
    }
}

#[test]
fn trims_on_a_file_punch_holes_and_need_consent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    fs::write(&path, vec![0xABu8; 1 << 20]).unwrap();
    let name = format!("--filename={}", path.display());
    let job = ["--name=t", name.as_str(), "--rw=randtrim", "--bs=64k"];
    let mut refused = vec!["run"];
    refused.extend_from_slice(&job);
    let o = iolab(&refused);
    assert_eq!(
        o.code, 2,
        "an existing file is not trimmed unasked: {}",
        o.stderr
    );
    assert_eq!(
        fs::read(&path).unwrap(),
        vec![0xABu8; 1 << 20],
        "nothing trimmed"
    );

    let mut given = vec!["run", "--allow-destroy", "--output-format=json"];
    given.extend_from_slice(&job);
    let o = iolab(&given);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(counts(&v)[2], (16, 1 << 20));
    assert_eq!(v["jobs"][0]["job options"]["rw"], "randtrim");
    let meta = fs::metadata(&path).unwrap();
    assert_eq!(meta.len(), 1 << 20, "a trimmed file keeps its size");
    assert!(
        meta.blocks() < 256,
        "holes free the blocks: {}",
        meta.blocks()
    );
    let data = fs::read(&path).unwrap();
    assert!(
        data.iter().all(|&b| b == 0),
        "every block was trimmed: zeros"
    );
}

#[test]
fn verify_of_a_trim_workload_is_refused_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("--filename={}", dir.path().join("f").display());
    let o = iolab(&[
        "run",
        "--name=t",
        &name,
        "--size=1m",
        "--rw=trimwrite",
        "--verify=crc32c",
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
    assert!(
        o.stderr.contains("not supported by iolab yet"),
        "{}",
        o.stderr
    );
}

#[test]
fn time_based_trims_on_an_asynchronous_engine_end_on_time_with_samples() {
    // Trims complete inside queue even on io_uring: the loop must still see the clock.
    let dir = tempfile::tempdir().unwrap();
    let name = format!("--filename={}", dir.path().join("f").display());
    let started = std::time::Instant::now();
    let o = iolab(&[
        "run",
        "--output-format=json",
        "--name=t",
        &name,
        "--size=4m",
        "--rw=randtrim",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--time_based",
        "--runtime=1",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let t = &v["jobs"][0]["trim"];
    assert!(t["total_ios"].as_u64().unwrap() > 64, "{t}");
    assert!(
        t["bw_samples"].as_u64().unwrap() >= 1,
        "bandwidth samples: {t}"
    );
}
