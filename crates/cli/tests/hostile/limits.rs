//! Runaway memory and disk: endless or blocking job files, buffers and threads beyond the
//! machine, layouts beyond the free space, the null engine laying out real files, and
//! layouts cut short by a signal.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{iolab_db, refused};

#[test]
fn job_files_that_never_end_or_block_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    refused(&iolab_db(&db, &["run", "/dev/zero"]), "not a regular file");
    let inc = dir.path().join("inc.fio");
    fs::write(&inc, "include /dev/zero\n[j]\nrw=read\n").unwrap();
    refused(&iolab_db(&db, &["run", inc.to_str().unwrap()]), "/dev/zero");
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let started = Instant::now();
    refused(
        &iolab_db(&db, &["run", fifo.to_str().unwrap()]),
        "not a regular file",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let big = dir.path().join("big.fio");
    fs::write(&big, "# x\n".repeat(400_000)).unwrap();
    refused(&iolab_db(&db, &["run", big.to_str().unwrap()]), "too large");
    assert!(!db.exists());
}

#[test]
fn buffers_threads_and_cpus_beyond_the_machine_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("f");
    let fname = format!("--filename={}", f.display());
    let null = "--ioengine=null";
    let second = [
        "--name=k",
        &fname,
        "--rw=randread",
        "--size=1m",
        null,
        "--numjobs=3000",
    ];
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec!["--ioengine=libaio", "--iodepth=65536", "--bs=1m"],
            "I/O buffers need 64.0 GiB",
        ),
        (vec![null, "--numjobs=100000"], "at most 4096"),
        (
            [null, "--numjobs=3000"].into_iter().chain(second).collect(),
            "at most 4096 can run",
        ),
        (vec!["--cpus_allowed=999"], "CPU 999"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run", "--name=j", &fname, "--rw=randread", "--size=1m"];
        args.extend(&extra);
        refused(&iolab_db(&db, &args), needle);
        assert!(!f.exists(), "{extra:?}: nothing laid out");
    }
    assert!(!db.exists(), "no database row for runs that never started");
}

#[test]
fn layouts_never_fill_a_filesystem() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("huge");
    let fname = format!("--filename={}", f.display());
    let out = iolab_db(
        &db,
        &["run", "--name=j", &fname, "--rw=read", "--size=100t"],
    );
    refused(&out, "free");
    assert!(!f.exists());
    // A small filesystem of its own: a tmpfs of 16 MiB.
    let small = dir.path().join("small");
    fs::create_dir(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(&small)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        println!("skipped the small filesystem: cannot mount a tmpfs here");
        return;
    }
    let fname = format!("--filename={}", small.join("f").display());
    let out = iolab_db(&db, &["run", "--name=j", &fname, "--rw=read", "--size=16m"]);
    let used = fs::read_dir(&small).unwrap().count();
    let _ = Command::new("umount").arg(&small).status();
    refused(&out, "free");
    assert_eq!(used, 0, "nothing laid out on the small filesystem");
}

#[test]
fn the_null_engine_lays_out_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let dirarg = format!("--directory={}", dir.path().join("jobs").display());
    fs::create_dir(dir.path().join("jobs")).unwrap();
    let out = iolab_db(
        &db,
        &[
            "run",
            "--name=n",
            &dirarg,
            "--ioengine=null",
            "--rw=randwrite",
            "--size=20g",
            "--numjobs=8",
            "--time_based",
            "--runtime=100ms",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(fs::read_dir(dir.path().join("jobs")).unwrap().count(), 0);
}

/// SIGINT and SIGTERM during layout stop it within a moment, exit 130/143, and remove the
/// file being laid out (and the main job's scratch directory).
#[test]
fn a_signal_during_layout_stops_it_and_removes_the_file() {
    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big");
        let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .env("IOLAB_DB", dir.path().join("r.db"))
            .args(["run", "--name=j", "--rw=read", "--size=16g"])
            .arg(format!("--filename={}", f.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while !f.exists() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: the child is ours and not yet waited for.
        unsafe { libc::kill(child.id() as i32, sig) };
        let sent = Instant::now();
        let status = child.wait().unwrap();
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "stopped in {:?}",
            sent.elapsed()
        );
        assert_eq!(
            status.code(),
            Some(code),
            "{status:?} {:?}",
            status.signal()
        );
        assert!(!f.exists(), "the half-laid-out file is removed");
    }
}
