//! Pipes and signals: a reader that goes away, SIGTERM's exit status, and a child (db_bench)
//! that ignores SIGINT.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::iolab_db;

/// iolab with stdout a pipe closed before it writes: exit status and stderr.
fn into_closed_pipe(db: &std::path::Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code().unwrap_or(-1), err)
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = format!("--filename={}", dir.path().join("f").display());
    let run = [
        "run",
        "--name=j",
        &f,
        "--rw=randread",
        "--size=1m",
        "--runtime=200ms",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    let cases: [&[&str]; 7] = [
        &["history"],
        &["show", "1"],
        &["export", "1", "--format", "csv"],
        &["report", "1", "-o", "-"],
        &[
            "run",
            "--parse-only",
            "--name=a",
            "--filename=x",
            "--size=1m",
        ],
        &run,
        &[
            "review",
            "--quick",
            "--steps",
            "info,qd1-engines",
            "--runtime",
            "100ms",
        ],
    ];
    for args in cases {
        let (code, err) = into_closed_pipe(&db, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The review into a closed pipe finished and is recorded as such.
    let h = iolab_db(&db, &["history", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&h.stdout).unwrap();
    assert_eq!(v[0]["kind"], "review");
    assert_eq!(v[0]["status"], "ok", "{}", h.stdout);
}

/// `iolab kv` on a fake db_bench whose body (after `--version`) is `body`, interrupted with
/// SIGINT after 1.5 s: how long it took to end after the signal, and its exit status.
fn interrupted_kv(body: &str) -> (Duration, std::process::ExitStatus) {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("db_bench");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ncase \"$*\" in *--version*) echo 'db_bench version 7.8.3'; exit 0;; \
             esac\n{body}"
        ),
    )
    .unwrap();
    assert!(Command::new("chmod")
        .arg("755")
        .arg(&fake)
        .status()
        .unwrap()
        .success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", dir.path().join("r.db"))
        .args([
            "kv",
            "--num",
            "1000",
            "--workloads",
            "fillseq",
            "--db-bench",
        ])
        .arg(&fake)
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: the child is ours and not yet waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let sent = Instant::now();
    let status = child.wait().unwrap();
    (sent.elapsed(), status)
}

#[test]
fn db_bench_that_ignores_sigint_is_killed() {
    let (took, status) = interrupted_kv("trap '' INT\nexec sleep 120\n");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert_eq!(status.code(), Some(130), "{status:?}");
}

/// A db_bench that leaves a process holding its output (in its process group, or one that
/// left it with setsid) does not keep an interrupted iolab waiting.
#[test]
fn db_bench_children_holding_its_output_do_not_hang_iolab() {
    for spawn in ["sleep 121 &", "setsid sleep 121 &"] {
        let (took, status) = interrupted_kv(&format!("{spawn}\ntrap '' INT\nexec sleep 120\n"));
        let _ = Command::new("pkill").args(["-f", "sleep 121"]).status();
        assert!(took < Duration::from_secs(15), "{spawn}: took {took:?}");
        assert_eq!(status.code(), Some(130), "{spawn}: {status:?}");
    }
}
