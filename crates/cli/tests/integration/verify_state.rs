//! fio's verify state files (`verify_state_save`, `verify_state_load`, `--aux-path`)
//! against real fio: the file iolab saves is byte for byte the one fio 3.33 saves for the
//! same job (fio's own t0036 and t0037 jobs), fio reads iolab's and iolab reads fio 3.33's
//! and 3.42's, and a verify that loads one stops where the writing job stopped.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::jobfiles::fio_available;
use crate::support::{iolab, test_db};

/// fio's t/jobs/t0036 (psync) and t0037 (libaio at depth 32 over four files, four loops).
const T0036: &str = "[global]\nfilename=t0036file\nverify=md5\nsize=512k\n";
const T0037: &str = "[global]\nfilename=t0037file.1:t0037file.2:t0037file.3:t0037file.4\n\
                     verify=md5\nioengine=libaio\niodepth=32\nsize=512k\nloops=4\n";

fn job_file(dir: &Path, global: &str, body: &str) -> PathBuf {
    let p = dir.join("job.fio");
    std::fs::write(&p, format!("{global}\n[job]\n{body}\n")).unwrap();
    p
}

/// Runs a tool in `dir` (where the state files go); its JSON's read and write I/O counts.
fn run_in(dir: &Path, tool: &str, args: &[&str]) -> (i32, [u64; 2], String) {
    let mut c = match tool {
        "iolab" => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
            c.arg("run").arg(format!("--db={}", test_db().display()));
            c
        }
        fio => Command::new(fio),
    };
    let o = c
        .args(args)
        .arg("--output-format=json")
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let json = stdout.find('{').map(|i| &stdout[i..]);
    let ios = json
        .and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
        .map(|v| ["read", "write"].map(|d| v["jobs"][0][d]["total_ios"].as_u64().unwrap_or(0)))
        .unwrap_or_default();
    (
        o.status.code().unwrap_or(-1),
        ios,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn state(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("local-job-0-verify.state")).expect("a state file was saved")
}

#[test]
fn the_saved_state_is_fios_byte_for_byte() {
    if !fio_available() {
        return;
    }
    for (global, what) in [(T0036, "t0036"), (T0037, "t0037")] {
        let mut saved = Vec::new();
        for tool in ["iolab", "fio"] {
            let dir = tempfile::tempdir().unwrap();
            let f = job_file(dir.path(), global, "readwrite=write\nverify_state_save=1");
            let (code, _, err) = run_in(dir.path(), tool, &[f.to_str().unwrap()]);
            assert_eq!(code, 0, "{what} {tool}: {err}");
            saved.push(state(dir.path()));
        }
        assert_eq!(
            saved[0], saved[1],
            "{what}: iolab's state file differs from fio's"
        );
    }
}

#[test]
fn a_loaded_state_stops_the_verify_where_the_writer_stopped() {
    if !fio_available() {
        return;
    }
    let f342 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/fio");
    // 64 of the 128 blocks written, by each writer; each reader verifies exactly those 64.
    let writers: Vec<&str> = ["iolab", "fio"].into_iter().collect();
    for writer in writers {
        for reader in ["iolab", "fio"] {
            let dir = tempfile::tempdir().unwrap();
            let w = job_file(dir.path(), T0036, "readwrite=write\nnumber_ios=64");
            let (code, ios, err) = run_in(dir.path(), writer, &[w.to_str().unwrap()]);
            assert_eq!((code, ios[1]), (0, 64), "{writer} writes: {err}");
            let r = job_file(dir.path(), T0036, "readwrite=read\nverify_state_load=1");
            let (code, ios, err) = run_in(dir.path(), reader, &[r.to_str().unwrap()]);
            assert_eq!(
                (code, ios[0]),
                (0, 64),
                "{writer}'s state read by {reader}: {err}"
            );
        }
    }
    // fio 3.42's state (version 5, another rule) over blocks iolab wrote: fio 3.42's own
    // blocks carry a header iolab does not read yet.
    if !f342.exists() {
        println!("note: no fio 3.42 build here (bash scripts/fio-build.sh): its state untried");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let w = job_file(dir.path(), T0036, "readwrite=write\nnumber_ios=64");
    let (code, ..) = run_in(dir.path(), "iolab", &[w.to_str().unwrap()]);
    assert_eq!(code, 0);
    let other = job_file(
        dir.path(),
        &T0036.replace("t0036file", "other"),
        "readwrite=write\nnumber_ios=40",
    );
    let (code, ..) = run_in(
        dir.path(),
        f342.to_str().unwrap(),
        &[other.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    assert_eq!(state(dir.path())[0], 5, "fio 3.42 saves version 5");
    let r = job_file(dir.path(), T0036, "readwrite=read\nverify_state_load=1");
    let (code, ios, err) = run_in(dir.path(), "iolab", &[r.to_str().unwrap()]);
    assert_eq!(
        (code, ios[0]),
        (0, 40),
        "fio 3.42's state read by iolab: {err}"
    );
}

#[test]
fn a_missing_or_corrupt_state_is_one_line_and_aux_path_moves_it() {
    let dir = tempfile::tempdir().unwrap();
    let aux = dir.path().join("aux");
    std::fs::create_dir(&aux).unwrap();
    let data = dir.path().join("data");
    let common = |rw: &str| {
        vec![
            "run".to_string(),
            "--name=job".into(),
            format!("--filename={}", data.display()),
            "--verify=crc32c".into(),
            "--size=256k".into(),
            format!("--rw={rw}"),
            format!("--aux-path={}", aux.display()),
        ]
    };
    let args = |v: &[String]| v.iter().map(String::as_str).collect::<Vec<_>>().join(" ");
    let mut read = common("read");
    read.push("--verify_state_load=1".into());
    let read_refs: Vec<&str> = read.iter().map(String::as_str).collect();
    // Nothing saved yet: bad input, one line naming the file, nothing laid out.
    let out = iolab(&read_refs);
    assert_eq!(out.code, 2, "{}", args(&read));
    assert!(!data.exists(), "the refused job laid its file out");
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("local-job-0-verify.state: no such file"),
        "{}",
        out.stderr
    );
    // Saved into --aux-path, not the current directory; then loaded from there.
    let write = common("write");
    let write_refs: Vec<&str> = write.iter().map(String::as_str).collect();
    let out = iolab(&write_refs);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let saved = aux.join("local-job-0-verify.state");
    assert!(saved.exists(), "no state in --aux-path");
    assert_eq!(iolab(&read_refs).code, 0);
    // A changed byte is found by its checksum.
    let mut bytes = std::fs::read(&saved).unwrap();
    bytes[40] ^= 0xff;
    std::fs::write(&saved, bytes).unwrap();
    let out = iolab(&read_refs);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("corrupt"), "{}", out.stderr);
    // verify_state_save=0 saves nothing.
    std::fs::remove_file(&saved).unwrap();
    let mut quiet = write.clone();
    quiet.push("--verify_state_save=0".into());
    let quiet: Vec<&str> = quiet.iter().map(String::as_str).collect();
    assert_eq!(iolab(&quiet).code, 0);
    assert!(!saved.exists(), "verify_state_save=0 saved a state");
}
