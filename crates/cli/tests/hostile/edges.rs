//! The edges of the process: a file-size limit, SIGQUIT, a TMPDIR that cannot be used, a
//! doctor asked about nothing that exists. Each ends with a word and the right status.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{iolab_db, iolab_env, refused};

/// `ulimit -f 1`: SQLite's first write passes the limit. SIGXFSZ is ignored before anything
/// starts, so the write fails and is said, instead of the process dying without a word.
#[test]
fn a_file_size_limit_is_an_error_said_not_a_silent_death() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f 1; exec {} run --name=j --ioengine=null --size=1m --runtime=100ms \
             --time_based --db={}",
            env!("CARGO_BIN_EXE_iolab"),
            db.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some(),
        "killed by a signal: {:?}",
        out.status
    );
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("iolab: error:") && stderr.contains("r.db"),
        "{stderr}"
    );
}

/// fio dies of SIGQUIT's default (a core dump, its output lost); iolab quits as promptly and
/// keeps what it measured: results printed, the run saved as interrupted, exit 131. Even
/// where SIGQUIT was inherited as ignored (a script's background job).
#[test]
fn sigquit_quits_promptly_keeping_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    for inherit_ignored in [false, true] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
        c.args([
            "run",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
        ])
        .args(["--runtime=20", "--output-format=json"])
        .env("IOLAB_DB", &db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        if inherit_ignored {
            use std::os::unix::process::CommandExt;
            // SAFETY: signal() is async-signal-safe, as pre_exec requires.
            unsafe {
                c.pre_exec(|| {
                    libc::signal(libc::SIGQUIT, libc::SIG_IGN);
                    Ok(())
                });
            }
        }
        let child = c.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(700));
        // SAFETY: kill with our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGQUIT) };
        let start = std::time::Instant::now();
        let out = child.wait_with_output().unwrap();
        assert!(start.elapsed() < Duration::from_secs(5), "it quit promptly");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(131), "{stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["jobs"][0]["jobname"], "j");
        assert!(stderr.contains("saved as run"), "{stderr}");
    }
}

#[test]
fn a_bad_tmpdir_and_a_missing_doctor_target_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    for tmp in ["/nonexistent/iolab-tmp", file.to_str().unwrap()] {
        let out = iolab_env(
            &["--runtime=100ms", "--ramp_time=0", "--engines=psync"],
            &[("TMPDIR", tmp), ("IOLAB_DB", db.to_str().unwrap())],
        );
        refused(&out, &format!("TMPDIR={tmp}"));
    }
    refused(
        &iolab_db(&db, &["doctor", "/nonexistent/disk"]),
        "/nonexistent/disk",
    );
}

/// A run stopped during ramp_time measured nothing: the warm-up's I/O is not reported as
/// the job's results, and the run is kept as interrupted, without figures.
#[test]
fn an_interrupted_ramp_reports_no_warm_up_as_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
        ])
        .args(["--runtime=5", "--ramp_time=30", "--output-format=json"])
        .env("IOLAB_DB", &db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    // SAFETY: kill with our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["total_ios"], 0, "{j}");
    assert_eq!(j["read"]["io_bytes"], 0);
    let show = iolab_db(&db, &["show", "1", "--output-format=json"]);
    let run: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    assert_eq!(run["status"], "interrupted");
    let figures = run["jobs"][0]["metrics"].as_object().unwrap().len();
    assert_eq!(figures, 0, "no figures kept: {}", run["jobs"][0]);
}

/// A home directory the user may not write: the default database cannot be made there, and
/// the refusal says how to run anyway; with `--db` the run goes through.
#[test]
fn an_unwritable_home_says_how_to_run_anyway() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 || Command::new("setpriv").arg("-V").output().is_err() {
        eprintln!("skipped: needs root and setpriv to run as another user");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let writable = dir.path().join("w");
    std::fs::create_dir(&writable).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&writable, std::fs::Permissions::from_mode(0o777)).unwrap();
    let run = |extra: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .args([
                "run",
                "--name=j",
                "--ioengine=null",
                "--size=1m",
                "--runtime=100ms",
            ])
            .args(extra)
            .current_dir(&writable)
            .env_remove("IOLAB_DB")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--db or $IOLAB_DB"), "{stderr}");
    let db = format!("--db={}", writable.join("r.db").display());
    let out = run(&[&db]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
