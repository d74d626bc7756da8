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
    fs::File::create(&big).unwrap().set_len(65 << 20).unwrap();
    refused(&iolab_db(&db, &["run", big.to_str().unwrap()]), "too large");
    assert!(!db.exists());
}

/// A generated job file of 100,000 jobs (about 8 MB) is refused as it is read, at fio's own
/// limit (4096 jobs: fio stops with "maximum number of jobs reached"), quickly, in one line;
/// one of 4096 jobs is read.
#[test]
fn a_generated_job_file_past_fios_job_limit_is_refused_as_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let gen = |n: usize| {
        let mut text = String::from("[global]\nioengine=null\nsize=1m\n");
        for i in 0..n {
            text.push_str(&format!(
                "[job{i}]\nrw=randread\nbs=4k\ndescription=generated job {i} of a large corpus\n"
            ));
        }
        let f = dir.path().join(format!("gen{n}.fio"));
        fs::write(&f, text).unwrap();
        f
    };
    let big = gen(100_000);
    let started = Instant::now();
    refused(
        &iolab_db(&db, &["run", "--parse-only", big.to_str().unwrap()]),
        "more than 4096 jobs",
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let most = gen(4096);
    let out = iolab_db(&db, &["run", "--parse-only", most.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 4096);
}

/// A million empty sections under `ulimit -v 1000000` (about 1 GB of address space): refused
/// at the 4097th, before the jobs are built, in one line; and a 64 MiB file of options is
/// read, or refused at the count of options it applies, within 500 MB.
#[test]
fn a_million_empty_sections_are_refused_within_a_gigabyte_of_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("empty.fio");
    let text: String = (0..1_000_000).map(|i| format!("[j{i}]\n")).collect();
    fs::write(&f, text).unwrap();
    let script = format!(
        "ulimit -v 1000000 && exec {} run --parse-only {}",
        env!("CARGO_BIN_EXE_iolab"),
        f.display()
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &script])
        .env("IOLAB_DB", &db)
        .output()
        .unwrap();
    let out = crate::support::Out::of(&o);
    refused(&out, "more than 4096 jobs");
    assert!(out.stderr.contains(":4097:"), "{}", out.stderr);
    // 64 MiB of short options: the most memory a job file can take, measured by the kernel.
    let opts = dir.path().join("opts.fio");
    let mut text = String::from("[j]\n");
    while text.len() < (64 << 20) - 64 {
        text.push_str("bs=4k\n");
    }
    fs::write(&opts, text).unwrap();
    let o = std::process::Command::new("/usr/bin/time")
        .args([
            "-f",
            "maxrss=%M",
            env!("CARGO_BIN_EXE_iolab"),
            "run",
            "--parse-only",
        ])
        .arg(&opts)
        .env("IOLAB_DB", &db)
        .output();
    match o {
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            let kb: u64 = err
                .lines()
                .find_map(|l| l.strip_prefix("maxrss="))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no maxrss in: {err}"));
            assert!(kb < 500 * 1024, "{kb} KiB to read 64 MiB of options");
            assert!(err.contains("options") || o.status.success(), "{err}");
        }
        Err(e) => println!("skipped the 64 MiB case: /usr/bin/time did not run ({e})"),
    }
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

/// What the kernel would refuse mid-run (ring size, SQPOLL CPU, libaio's event budget, open
/// files, name length) is refused before anything is laid out.
#[test]
fn kernel_limits_are_refused_before_layout() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("f");
    let fname = format!("--filename={}", f.display());
    let long = format!("--filename={}/{}", dir.path().display(), "a".repeat(300));
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec![&fname, "--ioengine=io_uring", "--iodepth=65536"],
            "at most 32768 entries",
        ),
        (
            vec![
                &fname,
                "--ioengine=io_uring",
                "--sqthread_poll=1",
                "--sqthread_poll_cpu=999",
            ],
            "sqthread_poll_cpu=999",
        ),
        (
            vec![
                &fname,
                "--ioengine=libaio",
                "--iodepth=4096",
                "--numjobs=100",
                "--bs=512",
            ],
            "fs.aio-max-nr",
        ),
        (vec![&long], "longer than a filesystem takes"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run", "--name=j", "--rw=randread", "--size=1m"];
        args.extend(&extra);
        refused(&iolab_db(&db, &args), needle);
        assert!(!f.exists(), "{extra:?}: nothing laid out");
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 32; IOLAB_DB={} exec {} run --name=j {fname} --rw=read --size=1m \
             --numjobs=20",
            db.display(),
            env!("CARGO_BIN_EXE_iolab")
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ulimit -n"));
    assert!(!f.exists(), "nothing laid out");
}

/// Job files as fio reads them: from stdin (`-`), with bytes that are not UTF-8 in
/// comments; never from a pseudo filesystem's endless streams.
#[test]
fn job_files_from_stdin_latin1_and_pseudo_filesystems() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let job = format!(
        "# caf\n[j]\nfilename={}\nsize=1m\nrw=read\nruntime=50ms\n",
        dir.path().join("f").display()
    );
    // "café" in Latin-1: one byte that is not UTF-8.
    let mut bytes = job.into_bytes();
    bytes.insert(5, 0xe9);
    let file = dir.path().join("latin1.fio");
    fs::write(&file, &bytes).unwrap();
    let out = iolab_db(
        &db,
        &["run", file.to_str().unwrap(), "--output-format=json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", &db)
        .args(["run", "-", "--output-format=json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["jobs"][0]["jobname"], "j");
    for pseudo in ["/sys/kernel/tracing/trace_pipe", "/proc/self/status"] {
        if !std::path::Path::new(pseudo).exists() {
            continue;
        }
        let inc = dir.path().join("inc.fio");
        fs::write(&inc, format!("include {pseudo}\n[j]\nrw=read\n")).unwrap();
        let started = Instant::now();
        refused(
            &iolab_db(&db, &["run", inc.to_str().unwrap()]),
            "not job files",
        );
        assert!(started.elapsed() < Duration::from_secs(10));
    }
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
