//! The results database under concurrency and faults: many processes opening a fresh one,
//! read commands that must create nothing, and runs left `running` by a killed process.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{iolab_db, refused};

#[test]
fn fifty_processes_open_a_fresh_database_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let children: Vec<_> = (0..50)
        .map(|i| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
            c.env("IOLAB_DB", &db)
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            if i % 2 == 0 {
                c.args([
                    "run",
                    "--name=n",
                    "--ioengine=null",
                    "--rw=read",
                    "--size=1m",
                ]);
                c.arg(format!("--filename={}", dir.path().join("f").display()));
            } else {
                c.arg("history");
            }
            c.spawn().unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let h = iolab_db(&db, &["history", "--json", "--limit", "100"]);
    let v: serde_json::Value = serde_json::from_str(&h.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 25, "every run recorded once");
}

#[test]
fn read_commands_create_nothing_and_read_read_only_databases() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub/none.db");
    let h = iolab_db(&db, &["history"]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    for args in [
        &["show", "1"][..],
        &["compare", "1", "2"],
        &["export", "1"],
        &["report", "1", "-o", "-"],
    ] {
        refused(&iolab_db(&db, args), "no results database");
    }
    assert!(
        !dir.path().join("sub").exists(),
        "no directory, no database"
    );
    // A database on a read-only filesystem is read (root ignores file modes, so the test
    // mounts the directory read-only).
    let rw = dir.path().join("rw");
    let ro = dir.path().join("ro");
    std::fs::create_dir_all(&rw).unwrap();
    std::fs::create_dir_all(&ro).unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let run = [
        "run",
        "--name=j",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&rw.join("r.db"), &run).code, 0);
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .status()
            .is_ok_and(|s| s.success())
    };
    let (r, o) = (rw.to_str().unwrap(), ro.to_str().unwrap());
    if !(mount(&["--bind", r, o]) && mount(&["-o", "remount,ro,bind", o])) {
        let _ = Command::new("umount").arg(&ro).status();
        println!("skipped the read-only database: cannot bind-mount read-only here");
        return;
    }
    let show = iolab_db(&ro.join("r.db"), &["show", "1"]);
    let history = iolab_db(&ro.join("r.db"), &["history"]);
    let _ = Command::new("umount").arg(&ro).status();
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(show.stdout.contains("null"), "{}", show.stdout);
    assert_eq!(history.code, 0, "{}", history.stderr);
}

#[test]
fn a_killed_run_is_marked_crashed_on_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = format!("--filename={}", dir.path().join("f").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", &db)
        .args([
            "run",
            "--name=j",
            &f,
            "--ioengine=null",
            "--rw=read",
            "--size=1m",
        ])
        .args(["--time_based", "--runtime=60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let status = |db: &std::path::Path| {
        let h = iolab_db(db, &["history", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&h.stdout).unwrap();
        v.as_array().unwrap().last().unwrap()["status"].clone()
    };
    assert_eq!(status(&db), "running", "a reader does not judge");
    let run = [
        "run",
        "--name=k",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    assert_eq!(status(&db), "crashed");
}

/// The last run's status in `db`.
fn last_status(db: &std::path::Path) -> serde_json::Value {
    let h = iolab_db(db, &["history", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&h.stdout).unwrap();
    v.as_array().unwrap().last().unwrap()["status"].clone()
}

/// A run in another PID namespace (a container) has a pid that names another process here:
/// it is not marked crashed while it runs.
#[test]
fn a_run_in_another_pid_namespace_is_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = format!("--filename={}", dir.path().join("f").display());
    let script = format!(
        "IOLAB_DB={} exec {} run --name=j {f} --ioengine=null --rw=read --size=1m \
         --time_based --runtime=4",
        db.display(),
        env!("CARGO_BIN_EXE_iolab")
    );
    let mut child = match Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            println!("skipped: no unshare here: {e}");
            return;
        }
    };
    std::thread::sleep(Duration::from_millis(1500));
    if !db.exists() {
        let _ = child.kill();
        println!("skipped: no PID namespace here (unshare --pid failed)");
        return;
    }
    // Another run opens the database for writing, which judges the running runs it can.
    let run = [
        "run",
        "--name=k",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    assert_eq!(last_status(&db), "running", "the first run, still going");
    assert!(child.wait().unwrap().success());
    assert_eq!(last_status(&db), "ok");
}

/// A database another user owns and this one may not write is read, and nothing is made
/// beside it (no -wal, no -shm).
#[test]
fn another_users_read_only_database_is_read_without_files_beside_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let db = dir.path().join("r.db");
    let f = format!("--filename={}", dir.path().join("f").display());
    let run = [
        "run",
        "--name=j",
        &f,
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
    ];
    assert_eq!(iolab_db(&db, &run).code, 0);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    for args in [&["history"][..], &["show", "1"]] {
        let o = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .args(args)
            .env("IOLAB_DB", &db)
            .output();
        let Ok(o) = o else {
            println!("skipped: no setpriv here");
            return;
        };
        if String::from_utf8_lossy(&o.stderr).contains("setpriv:") {
            println!("skipped: setpriv cannot change user here");
            return;
        }
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let after: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(after, before, "{args:?} made files beside the database");
    }
}

/// A database of a newer iolab is bad input to every command alike: exit 2, one line.
#[test]
fn a_newer_schema_is_exit_2_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = iolab_db(&db, &["run", "--name=j", "--ioengine=null", "--size=1m"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let set = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sqlite3; c = sqlite3.connect('{}'); c.execute('pragma user_version=999'); c.commit()",
            db.display()
        ))
        .status();
    if !set.is_ok_and(|s| s.success()) {
        eprintln!("skipped: python3's sqlite3 is not here to make a newer database");
        return;
    }
    let page = dir.path().join("r.html");
    let page = page.to_str().unwrap();
    for args in [
        vec!["run", "--name=j", "--ioengine=null", "--size=1m"],
        vec!["history"],
        vec!["show", "1"],
        vec!["compare", "1", "1"],
        vec!["export", "1"],
        vec!["report", "1", "-o", page],
    ] {
        refused(&iolab_db(&db, &args), "newer than this iolab knows");
    }
}
