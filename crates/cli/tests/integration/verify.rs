//! fio's verify, end to end: a write job reads its blocks back and reports those reads as
//! fio does; a block corrupted behind iolab's back is found and named; and the block format
//! is fio's, so each tool checks what the other wrote.

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::jobfiles::fio_available;
use crate::support::{iolab, Out};

fn counts(v: &Value) -> [(u64, u64); 2] {
    let j = &v["jobs"][0];
    ["read", "write"].map(|d| {
        (
            j[d]["total_ios"].as_u64().unwrap(),
            j[d]["io_bytes"].as_u64().unwrap(),
        )
    })
}

fn json(out: &Out, what: &str) -> Value {
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn fio(args: &[&str]) -> (i32, String, String) {
    // A failed verify makes fio save its state (`local-NAME-N-verify.state`) in the
    // current directory: not the checkout's.
    let o = Command::new("fio")
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("fio runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn job(file: &str, engine: &str, kind: &str) -> Vec<String> {
    [
        "--name=v",
        &format!("--filename={file}"),
        "--size=2m",
        "--bs=4k",
        "--rw=randwrite",
        &format!("--ioengine={engine}"),
        "--iodepth=8",
        &format!("--verify={kind}"),
        "--output-format=json",
    ]
    .map(String::from)
    .to_vec()
}

fn run(args: &[String], extra: &[&str]) -> Out {
    let mut a: Vec<&str> = vec!["run"];
    a.extend(args.iter().map(String::as_str));
    a.extend(extra);
    iolab(&a)
}

/// A write job with verify reads every block back: the same reads and writes as fio's.
#[test]
fn write_and_verify_does_fios_io_on_every_engine() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.dat").display().to_string();
    for engine in ["psync", "libaio", "io_uring"] {
        let args = job(&file, engine, "crc32c");
        let _ = fs::remove_file(&file);
        let ours = counts(&json(&run(&args, &[]), engine));
        let _ = fs::remove_file(&file);
        let (code, out, err) = fio(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "fio: {err}");
        // fio prints notes ("queue depth will be capped at 1") before its JSON.
        let theirs = counts(&serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap());
        assert_eq!(ours, theirs, "{engine}: (ios, bytes) read, write");
        assert_eq!(ours[0], (512, 2 << 20), "{engine}");
    }
}

/// Written with do_verify=0, one byte changed behind iolab's back, then checked with
/// verify_only: the job fails, naming the offset, the checksum written and the one found.
#[test]
fn a_block_corrupted_behind_iolabs_back_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.dat");
    let file = path.display().to_string();
    let args = job(&file, "io_uring", "md5");
    let out = run(&args, &["--do_verify=0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let clean = run(&args, &["--verify_only=1"]);
    assert_eq!(clean.code, 0, "untouched data verifies: {}", clean.stderr);
    let f = fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&[0x5a], 123 * 4096 + 1000).unwrap();
    drop(f);
    let bad = run(&args, &["--verify_only=1"]);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    let line = bad.stderr.lines().find(|l| l.contains("verify")).unwrap();
    assert!(
        line.contains("md5 mismatch at offset 503808 (length 4096): expected 0x"),
        "{line}"
    );
    assert!(
        line.contains(", found 0x") && line.contains(&file),
        "{line}"
    );
    // With verify_dump the block as read is kept.
    let dumped = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(dir.path())
        .args(["run"])
        .args(&args)
        .args(["--verify_only=1", "--verify_dump=1"])
        .output()
        .unwrap();
    assert_eq!(dumped.status.code(), Some(1));
    let block = fs::read(dir.path().join("v.dat.503808.received")).unwrap();
    assert_eq!((block.len(), block[1000]), (4096, 0x5a));
}

/// verify_backlog reads back as it goes: a corruption made after the writes is not seen by
/// the backlog's reads but the reads still add up to every block.
#[test]
fn verify_backlog_reads_every_block_back_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.dat").display().to_string();
    let args = job(&file, "libaio", "crc32c");
    let v = json(&run(&args, &["--verify_backlog=16"]), "backlog");
    assert_eq!(counts(&v), [(512, 2 << 20), (512, 2 << 20)]);
    let v = json(&run(&args, &["--do_verify=0"]), "no read-back");
    assert_eq!(counts(&v)[0], (0, 0));
}

/// Each tool checks what the other wrote, for the checksums fio computes as the standard
/// ones, the header alone, and a pattern with and without a header.
#[test]
fn fio_and_iolab_check_each_others_blocks() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.dat").display().to_string();
    let cases: &[&[&str]] = &[
        &["--verify=crc32c"],
        &["--verify=md5"],
        &["--verify=crc64"],
        &["--verify=sha1"],
        &["--verify=xxhash"],
        &["--verify=meta"],
        &["--verify=crc32c", "--verify_interval=512"],
        &["--verify=pattern", "--verify_pattern=0xaa555aa5"],
    ];
    for case in cases {
        let mut args = job(&file, "psync", "0");
        args.retain(|a| !a.starts_with("--verify"));
        args.extend(case.iter().map(|s| s.to_string()));
        let fio_args = |extra: &'static str| {
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            a.push(extra);
            a
        };
        let _ = fs::remove_file(&file);
        assert_eq!(run(&args, &["--do_verify=0"]).code, 0, "{case:?}");
        let (code, _, err) = fio(&fio_args("--verify_only=1"));
        assert_eq!(code, 0, "fio checks iolab's {case:?}: {err}");
        let _ = fs::remove_file(&file);
        assert_eq!(fio(&fio_args("--do_verify=0")).0, 0, "{case:?}");
        let ours = run(&args, &["--verify_only=1"]);
        assert_eq!(ours.code, 0, "iolab checks fio's {case:?}: {}", ours.stderr);
    }
}

/// A read job checks every read; blocks never written fail on their header at once.
#[test]
fn a_read_job_checks_every_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.dat");
    fs::write(&path, vec![0u8; 1 << 20]).unwrap();
    let out = iolab(&[
        "run",
        "--name=r",
        &format!("--filename={}", path.display()),
        "--rw=read",
        "--bs=4k",
        "--verify=crc32c",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("bad header magic at offset 0 (length 4096): expected 0xacca, found 0x0000"),
        "{}",
        out.stderr
    );
    let sha = iolab(&[
        "run",
        "--name=r",
        &format!("--filename={}", path.display()),
        "--rw=read",
        "--verify=sha256",
    ]);
    assert_eq!(sha.code, 2, "{}", sha.stderr);
    assert!(sha.stderr.contains("can only check blocks this job wrote"));
    assert!(Path::new(&path).exists());
}
