//! The results database through the CLI: every `iolab run` recorded (also when interrupted),
//! `iolab history` and `iolab show` reading it back, bad input leaving no trace.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::iolab;

fn history(db: &str) -> Vec<Value> {
    let out = iolab(&["history", "--db", db, "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn runs_are_recorded_listed_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let db = db.to_str().unwrap();
    let job = dir.path().join("two.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nfilename={}\nsize=1m\n[reads]\nrw=randread\n[writes]\nstonewall\nrw=randwrite\n",
            dir.path().join("t").display()
        ),
    )
    .unwrap();
    let out = iolab(&["run", &format!("--db={db}"), job.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("saved as run 1 in"), "{}", out.stderr);
    let runs = history(db);
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(
        (r["kind"].as_str(), r["status"].as_str()),
        (Some("run"), Some("ok"))
    );
    assert!(r["command"]
        .as_str()
        .unwrap()
        .starts_with("iolab run --db="));
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0]["metrics"]["read"]["ios"], 256.0);
    assert_eq!(jobs[1]["metrics"]["write"]["bytes"], 1048576.0);
    assert_eq!(jobs[1]["groupid"], 1);
    assert!(
        jobs[0]["metrics"]["read"]["lat_p99.999_ns"]
            .as_f64()
            .unwrap()
            > 0.0
    );

    let table = iolab(&["history", "--db", db]);
    assert!(
        table.stdout.lines().nth(1).unwrap().contains("reads read"),
        "{}",
        table.stdout
    );
    let show = iolab(&["show", "1", "--db", db]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(
        show.stdout
            .contains("| reads | 0 | psync | 1 | randread | 4096 | read |"),
        "{}",
        show.stdout
    );
    assert!(show.stdout.contains("| writes | 1 |"), "{}", show.stdout);
    let shown: Value =
        serde_json::from_str(&iolab(&["show", "1", "--db", db, "--json"]).stdout).unwrap();
    assert!(shown["host"]["kernel"].is_string());

    let missing = iolab(&["show", "99", "--db", db]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("no run 99"), "{}", missing.stderr);

    // A second run of the same file: compare puts the two side by side, runs as rows.
    let out = iolab(&["run", &format!("--db={db}"), job.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cmp = iolab(&["compare", "1", "2", "--db", db]);
    assert_eq!(cmp.code, 0, "{}", cmp.stderr);
    let lines: Vec<&str> = cmp.stdout.lines().collect();
    assert_eq!(lines[0], "| run | target | reads read | writes write |");
    assert!(
        lines[2].starts_with("| 1 |") && lines[3].starts_with("| 2 |"),
        "{}",
        cmp.stdout
    );
    assert!(lines[3].contains(" IOPS, "), "{}", cmp.stdout);
    let cmp: Value =
        serde_json::from_str(&iolab(&["compare", "1", "2", "--db", db, "--json"]).stdout).unwrap();
    assert!(cmp[1]["jobs"]["writes/write"]["iops"].as_f64().unwrap() > 0.0);
    assert_eq!(iolab(&["compare", "1", "99", "--db", db]).code, 2);

    // Export: CSV rows per job, direction and metric; JSON as show --json.
    let csv = iolab(&["export", "2", "--format", "csv", "--db", db]);
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    let mut rows = csv.stdout.lines();
    assert_eq!(
        rows.next().unwrap(),
        "run,job,step,group,engine,iodepth,rw,block_size,target,direction,metric,value"
    );
    assert!(
        csv.stdout.contains("\n2,reads,,0,psync,1,randread,4096,"),
        "{}",
        csv.stdout
    );
    assert!(
        csv.stdout.contains(",write,bytes,1048576\n"),
        "{}",
        csv.stdout
    );
    let exported: Value =
        serde_json::from_str(&iolab(&["export", "2", "--db", db]).stdout).unwrap();
    assert_eq!(exported["id"], 2);

    // Bad input is not a run: nothing recorded.
    let bad = iolab(&["run", &format!("--db={db}"), "--name=x", "--bogus=1"]);
    assert_eq!(bad.code, 2);
    assert_eq!(history(db).len(), 2);
}

#[test]
fn an_interrupted_run_keeps_what_it_measured() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            &format!("--db={}", db.display()),
            "--name=long",
            &format!("--filename={}", dir.path().join("t").display()),
            "--size=4m",
            "--rw=randread",
            "--time_based",
            "--runtime=60",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill with a valid pid and signal.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(130));
    let runs = history(db.to_str().unwrap());
    assert_eq!(runs[0]["status"], "interrupted");
    assert!(
        runs[0]["jobs"][0]["metrics"]["read"]["ios"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}
