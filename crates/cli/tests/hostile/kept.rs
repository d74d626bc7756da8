//! A finished measurement is never thrown away: not by a database that fills up, a job that
//! fails beside another, an ssh session that drops (SIGHUP), a slow rate or a long think
//! time the watchdog took for a hung device. And what iolab prints never drives the
//! terminal, and a run that cannot fit is refused before it lays anything out.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{iolab_db, iolab_env, refused};

/// iolab with `args`, its database `db`, and `limit` (resource, bytes) set in the child.
fn iolab_limited(
    db: &Path,
    args: &[&str],
    limit: (libc::__rlimit_resource_t, u64),
) -> crate::support::Out {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", db).args(args);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(move || {
            let l = libc::rlimit {
                rlim_cur: limit.1,
                rlim_max: limit.1,
            };
            if libc::setrlimit(limit.0, &l) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = c.output().unwrap();
    crate::support::Out::of(&o)
}

/// A tmpfs of `bytes` mounted on a fresh directory (unmounted on drop), or `None` with the
/// reason printed.
struct SmallFs {
    dir: tempfile::TempDir,
}

impl SmallFs {
    fn mount(bytes: u64) -> Option<SmallFs> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "iolab-test"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("skipped: cannot mount a small tmpfs here (needs root)");
            return None;
        }
        Some(SmallFs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not one JSON document ({e}): {out}"))
}

fn history(db: &Path) -> Value {
    let out = iolab_db(db, &["history", "--output-format=json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    json(&out.stdout)
}

fn status_of_last(db: &Path) -> String {
    let h = history(db);
    let runs = h["runs"]
        .as_array()
        .or_else(|| h.as_array())
        .cloned()
        .unwrap_or_default();
    let last = runs
        .iter()
        .max_by_key(|r| r["id"].as_i64())
        .cloned()
        .unwrap_or_default();
    last["status"].as_str().unwrap_or_default().to_string()
}

/// Starts a time-based JSON run of `runtime` recording into `db`, and returns once the run is
/// recorded as started (its database exists): the moment to make the final save fail.
fn started_run(db: &Path, runtime: &str) -> (std::process::Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let t = format!("--filename={}", dir.path().join("t").display());
    let r = format!("--runtime={runtime}");
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", db)
        .args(["run", "--name=j", &t, "--size=1m", "--rw=randread", &r])
        .args(["--time_based", "--output-format=json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !db.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    (child, dir)
}

/// The run printed its whole results as JSON, said the save failed, and exited 1.
fn printed_but_not_saved(o: std::process::Output) {
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let doc = json(&stdout);
    let read = doc["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
    assert!(read > 0, "{stdout}");
    assert!(stderr.contains("not saved"), "{stderr}");
    assert_eq!(o.status.code(), Some(1), "{stderr}");
}

#[test]
fn a_database_that_fills_up_still_gets_the_results_printed() {
    let Some(fs) = SmallFs::mount(2 << 20) else {
        return;
    };
    let db = fs.path().join("r.db");
    let (child, _dir) = started_run(&db, "1500ms");
    // The run is recorded as started: fill what is left of the filesystem.
    let _ = std::fs::write(fs.path().join("filler"), vec![0u8; 4 << 20]);
    printed_but_not_saved(child.wait_with_output().unwrap());
}

#[test]
fn one_failing_job_keeps_every_jobs_figures_and_the_run_is_stored_failed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let (fa, fb) = (
        format!("--filename={}", a.display()),
        format!("--filename={}", b.display()),
    );
    // Both files laid out first, with no limit.
    for f in [&fa, &fb] {
        let out = iolab_db(
            &db,
            &[
                "run",
                "--name=lay",
                f,
                "--size=8m",
                "--rw=read",
                "--runtime=10ms",
            ],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    // Under `ulimit -f 4m`, the writer fails with EFBIG halfway; the reader runs on.
    let args = [
        "run",
        "--output-format=json",
        "--name=reader",
        &fa,
        "--rw=randread",
        "--runtime=1",
        "--time_based",
        "--name=writer",
        &fb,
        "--rw=write",
        "--bs=64k",
        "--size=8m",
    ];
    let out = iolab_limited(&db, &args, (libc::RLIMIT_FSIZE, 4 << 20));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = json(&out.stdout);
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{}", out.stdout);
    let reader = jobs.iter().find(|j| j["jobname"] == "reader").unwrap();
    let writer = jobs.iter().find(|j| j["jobname"] == "writer").unwrap();
    assert_eq!(reader["error"], 0);
    assert!(reader["read"]["io_bytes"].as_u64().unwrap() > 0);
    assert_eq!(writer["error"], libc::EFBIG);
    assert_eq!(writer["write"]["io_bytes"].as_u64().unwrap(), 4 << 20);
    assert!(out.stderr.contains("File too large"), "{}", out.stderr);
    assert_eq!(status_of_last(&db), "failed");
    let normal = iolab_limited(
        &db,
        &[
            "run",
            "--name=w",
            &fb,
            "--rw=write",
            "--bs=64k",
            "--size=8m",
        ],
        (libc::RLIMIT_FSIZE, 4 << 20),
    );
    // fio's job line (err=%2d (error=...)), and iolab's line with the whole message.
    assert!(
        normal
            .stdout
            .contains("err=27 (error=File too large): pid="),
        "{}",
        normal.stdout
    );
    assert!(
        normal.stdout.contains("  iolab error  : ") && normal.stdout.contains("offset 4194304"),
        "{}",
        normal.stdout
    );
}

/// Sends `sig` to a child once it has run `after`, and waits for it.
fn signalled(mut c: Command, after: Duration, sig: i32) -> std::process::Output {
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    // SAFETY: plain kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, sig) };
    child.wait_with_output().unwrap()
}

#[test]
fn sighup_mid_run_keeps_an_interrupted_run_and_no_scratch_directory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let t = format!("--filename={}", dir.path().join("t").display());
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", &db).args([
        "run",
        "--name=j",
        &t,
        "--size=1m",
        "--rw=randread",
        "--runtime=20",
        "--time_based",
        "--output-format=json",
    ]);
    let o = signalled(c, Duration::from_millis(1500), libc::SIGHUP);
    assert_eq!(
        o.status.code(),
        Some(129),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc = json(&String::from_utf8_lossy(&o.stdout));
    assert!(doc["jobs"][0]["read"]["io_bytes"].as_u64().unwrap() > 0);
    assert_eq!(status_of_last(&db), "interrupted");
    // The review's scratch directory goes with it.
    let tmp = tempfile::tempdir().unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", &db).env("TMPDIR", tmp.path()).args([
        "review",
        "--quick",
        "--steps",
        "qd1-engines",
    ]);
    let o = signalled(c, Duration::from_millis(1500), libc::SIGHUP);
    let left: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "left behind: {left:?} ({})",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        o.status.code(),
        Some(129),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn pauses_end_with_the_runtime_and_the_watchdog_knows_them_from_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let t = format!("--filename={}", dir.path().join("t").display());
    let base = [
        "run",
        "--name=j",
        &t,
        "--size=1m",
        "--rw=read",
        "--output-format=json",
    ];
    let timed = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let mut env = env.to_vec();
        let dbs = db.to_str().unwrap().to_string();
        env.push(("IOLAB_DB", &dbs));
        let start = Instant::now();
        let out = iolab_env(&args, &env);
        (out, start.elapsed())
    };
    // fio's pacer ends at the runtime: so does iolab's, whatever the rate.
    let (out, took) = timed(&["--rate=1", "--runtime=2"], &[("IOLAB_WATCHDOG", "1")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(took < Duration::from_secs(3), "{took:?}");
    json(&out.stdout);
    // A think time longer than a minute is a pause, not a hung device.
    let (out, took) = timed(
        &["--thinktime=70s", "--runtime=2"],
        &[("IOLAB_WATCHDOG", "1")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(took < Duration::from_secs(4), "{took:?}");
    // 0 turns the watchdog off; it used to end every run at its planned end.
    let (out, _) = timed(&["--runtime=1", "--time_based"], &[("IOLAB_WATCHDOG", "0")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        json(&out.stdout)["jobs"][0]["read"]["io_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    let (out, _) = timed(&["--runtime=1"], &[("IOLAB_WATCHDOG", "soon")]);
    refused(&out, "IOLAB_WATCHDOG=soon");
}

#[test]
fn logs_that_do_not_fit_and_buffers_past_ulimit_v_are_refused_before_layout() {
    let Some(fs) = SmallFs::mount(1 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let target = dir.path().join("t");
    let t = format!("--filename={}", target.display());
    let log = format!("--write_lat_log={}", fs.path().join("lat").display());
    let args = [
        "run",
        "--name=j",
        &t,
        "--size=1m",
        "--rw=randread",
        "--runtime=10",
        "--time_based",
        &log,
    ];
    refused(&iolab_db(&db, &args), "lat log");
    assert!(!target.exists(), "nothing laid out");
    // With averaged logs the same job fits.
    let fits = [&args[..], &["--log_avg_msec=1000", "--runtime=1"]].concat();
    let out = iolab_db(&db, &fits);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Buffers that fit the machine but not the address space ulimit -v leaves.
    let args = [
        "run",
        "--name=j",
        &t,
        "--rw=randread",
        "--ioengine=libaio",
        "--iodepth=256",
        "--bs=1m",
        "--runtime=1",
    ];
    let out = iolab_limited(&db, &args, (libc::RLIMIT_AS, 400 << 20));
    refused(&out, "ulimit -v");
    // From just above what the binary needs to load (found here: it carries the report's
    // plotly.js, 1 MB, so it grows with that), up: a refusal or a run, never an abort from a
    // failed allocation.
    let loads = (8..=128u64)
        .step_by(2)
        .find(|mb| iolab_limited(&db, &["--version"], (libc::RLIMIT_AS, mb << 20)).code == 0)
        .expect("the binary loads under some address-space limit");
    let log = format!("--write_lat_log={}", dir.path().join("ll").display());
    let mut ran = 0;
    for mb in (loads..=loads + 36).step_by(4) {
        for engine in ["--ioengine=psync", "--ioengine=io_uring"] {
            let args = [
                "run",
                "--name=j",
                &t,
                "--rw=randread",
                engine,
                "--iodepth=32",
                "--numjobs=2",
                "--runtime=100ms",
                &log,
            ];
            let out = iolab_limited(&db, &args, (libc::RLIMIT_AS, mb << 20));
            match out.code {
                0 => ran += 1,
                2 => assert!(out.stderr.contains("ulimit -v"), "{mb} MiB: {}", out.stderr),
                c => panic!("{mb} MiB {engine}: exit {c}: {}", out.stderr),
            }
        }
    }
    assert!(ran > 0, "some limit in the sweep lets the job run");
}

#[test]
fn control_characters_in_names_are_shown_escaped_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let t = format!("--filename={}", dir.path().join("t").display());
    let name = "--name=evil\x1b[2J\u{9b}1m";
    let out = iolab_db(
        &db,
        &["run", name, &t, "--size=1m", "--rw=read", "--runtime=50ms"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let shown = "evil\\x1b[2J\\u{9b}1m";
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains('\x1b') && !text.contains('\u{9b}'), "{text}");
    }
    assert!(out.stdout.contains(shown), "{}", out.stdout);
    for args in [vec!["history"], vec!["show", "1"]] {
        let out = iolab_db(&db, &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stdout.contains('\x1b'), "{}", out.stdout);
        assert!(
            out.stdout.contains(shown) || args[0] == "history",
            "{}",
            out.stdout
        );
    }
    let bad = iolab_db(
        &db,
        &["run", name, "--filename=/nonexistent/x", "--rw=read"],
    );
    assert_eq!(bad.code, 2);
    assert!(
        !bad.stderr.contains('\x1b') && bad.stderr.contains("evil\\x1b"),
        "{}",
        bad.stderr
    );
}

/// A database another process keeps locked past the busy timeout: the results are printed
/// (before the save is even tried), and the failed save is said.
#[test]
fn a_database_locked_past_the_timeout_still_gets_the_results_printed() {
    if Command::new("python3")
        .arg("-c")
        .arg("import sqlite3")
        .status()
        .map_or(true, |s| !s.success())
    {
        println!("skipped: no python3 with sqlite3 to hold the lock");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    // Once the run is recorded as started, another process takes the write lock for 40 s.
    let (child, _scratch) = started_run(&db, "2");
    let script = format!(
        "import sqlite3, time\nc = sqlite3.connect({:?}, isolation_level=None)\n\
         c.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\ntime.sleep(40)\n",
        db.to_str().unwrap()
    );
    let mut locker = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(locker.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    let o = child.wait_with_output().unwrap();
    let _ = locker.kill();
    let _ = locker.wait();
    printed_but_not_saved(o);
}

/// SIGUSR1 asks for a status line, as fio's does; the run goes on to its end.
#[test]
fn sigusr1_prints_a_status_line_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let t = format!("--filename={}", dir.path().join("t").display());
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", &db).args([
        "run",
        "--name=j",
        &t,
        "--size=1m",
        "--rw=randread",
        "--runtime=2",
        "--time_based",
        "--output-format=json",
    ]);
    let o = signalled(c, Duration::from_millis(1200), libc::SIGUSR1);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("iolab: status: "), "{stderr}");
    json(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(status_of_last(&db), "ok");
}
