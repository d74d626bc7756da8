//! Side files (exec's saved output, I/O logs, a FIFO as `--output`): opened through the
//! same guard as the up-front check, never over the results database, never blocking the
//! run, and never taking the run's results with them when they fail.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::Out;

/// iolab in `dir` (where the jobs' relative side files go), its database `db`.
fn iolab_in(dir: &Path, db: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(dir)
        .env("IOLAB_DB", db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait(child: std::process::Child) -> Out {
    let o = child.wait_with_output().unwrap();
    Out::of(&o)
}

/// How many runs `db` keeps, by `iolab history`.
fn runs_in(db: &Path) -> usize {
    let out = crate::iolab_db(db, &["history", "--output-format=json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    v.as_array().map_or(0, Vec::len)
}

#[test]
fn execs_saved_output_linked_to_the_database_mid_run_leaves_the_database_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let first = wait(iolab_in(
        dir.path(),
        &db,
        &["run", "--name=a", "--ioengine=null", "--size=1m"],
    ));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(runs_in(&db), 1);
    let job = dir.path().join("j.fio");
    std::fs::write(
        &job,
        "[first]\nioengine=null\nsize=1m\ntime_based\nruntime=1500ms\n\
         [second]\nstonewall\nioengine=exec\nprogram=/bin/echo\narguments=hello\n\
         time_based\nruntime=300ms\n",
    )
    .unwrap();
    let child = iolab_in(dir.path(), &db, &["run", "--output-format=json", "j.fio"]);
    std::thread::sleep(Duration::from_millis(500));
    std::os::unix::fs::symlink(&db, dir.path().join("second.stdout")).unwrap();
    let out = wait(child);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("second.stdout") && out.stderr.contains("r.db"),
        "names the file and the database: {}",
        out.stderr
    );
    let head = std::fs::read(&db).unwrap();
    assert!(head.starts_with(b"SQLite format 3\0"), "still a database");
    assert_eq!(runs_in(&db), 2, "the first run kept, this one stored");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["jobs"][0]["jobname"], "first", "the results on stdout");
}

#[test]
fn a_log_made_a_directory_mid_run_still_leaves_the_results_on_stdout_and_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    for format in ["json", "normal"] {
        let _ = std::fs::remove_dir(dir.path().join("lg_lat.1.log"));
        let args = [
            "run",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=800ms",
            "--write_lat_log=lg",
            &format!("--output-format={format}"),
        ];
        let before = if db.exists() { runs_in(&db) } else { 0 };
        let child = iolab_in(dir.path(), &db, &args);
        std::thread::sleep(Duration::from_millis(300));
        std::fs::create_dir(dir.path().join("lg_lat.1.log")).unwrap();
        let out = wait(child);
        assert_eq!(
            out.code, 1,
            "the exit status says a file was lost: {}",
            out.stderr
        );
        let said: Vec<&str> = out.stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(said.len(), 1, "{}", out.stderr);
        assert!(said[0].contains("lg_lat.1.log"), "{}", said[0]);
        match format {
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
                assert_eq!(v["jobs"][0]["jobname"], "j");
            }
            _ => assert!(out.stdout.contains("j: (groupid=0"), "{}", out.stdout),
        }
        assert_eq!(runs_in(&db), before + 1, "stored");
    }
}

#[test]
fn a_fifo_output_nobody_reads_is_refused_and_one_with_a_reader_gets_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let fifo = dir.path().join("p");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = format!("--output={}", fifo.display());
    let args = [
        "run",
        "--name=j",
        "--filename=f",
        "--size=1m",
        "--rw=read",
        &o,
    ];
    let start = Instant::now();
    let out = wait(iolab_in(dir.path(), &db, &args));
    assert!(start.elapsed() < Duration::from_secs(20), "it ended");
    crate::refused(&out, "no process read from");
    assert!(!dir.path().join("f").exists(), "nothing laid out");
    // A reader that comes a moment later is waited for.
    let child = iolab_in(dir.path(), &db, &args);
    std::thread::sleep(Duration::from_millis(300));
    let text = std::fs::read_to_string(&fifo).unwrap();
    let out = wait(child);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(text.contains("j: (groupid=0"), "{text}");
}
