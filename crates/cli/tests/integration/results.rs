//! The results database through the CLI: every `iolab run` recorded (also when interrupted),
//! `iolab history` and `iolab show` reading it back, bad input leaving no trace.

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

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

/// `iolab` with `input` on stdin.
fn iolab_stdin(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Everything `show` prints but its first line (which names the run's id).
fn shown_body(db: &str, run: &str) -> String {
    let out = iolab(&["show", run, "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn an_export_imports_into_another_database_and_shows_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = iolab(&[
        "run",
        &format!("--db={a}"),
        "--name=mix",
        &format!("--filename={}", dir.path().join("t").display()),
        "--size=2m",
        "--rw=randrw",
        "--fsync=8",
        "--time_based",
        "--runtime=1200ms",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let exported = iolab(&["export", "1", "--db", a]).stdout;
    let (code, stdout, stderr) = iolab_stdin(&["import", "-", "--db", b], &exported);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("imported run 1 (run, "), "{stdout}");
    assert_eq!(shown_body(a, "1"), shown_body(b, "1"));
    // Whole: histograms and series too, to the last bit of every figure.
    let again = iolab(&["export", "1", "--db", b]).stdout;
    assert_eq!(again, exported);
    let v: Value = serde_json::from_str(&again).unwrap();
    let job = &v["jobs"][0];
    assert!(job["histograms"].as_array().unwrap().len() >= 4, "{job}");
    assert!(
        job["metrics"]["sync"]["ios"].as_f64().unwrap() > 0.0,
        "{job}"
    );
    assert!(!job["series"].as_array().unwrap().is_empty(), "{job}");
    // Several runs are one JSON array; import takes them all.
    let both = iolab(&["export", "1", "1", "--db", b]).stdout;
    let (code, stdout, stderr) = iolab_stdin(&["import", "-", "--db", b], &both);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(shown_body(b, "3"), shown_body(a, "1"));
    // The other exporters: the jobs table, and the report page.
    let md = iolab(&["export", "1", "--format", "markdown", "--db", a]).stdout;
    assert!(
        md.contains("| job | group | engine | QD |") && md.contains("| mix | 0 | psync |"),
        "{md}"
    );
    let html = iolab(&["export", "1", "--format", "html", "--db", a]).stdout;
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"),
        "{html}"
    );
    // Not JSON, or JSON of something else: one line, exit 2, nothing stored.
    let (code, _, stderr) = iolab_stdin(&["import", "-", "--db", b], "{\"a\": 1}");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("neither an iolab export nor fio's JSON"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(history(b).len(), 3);
}

#[test]
fn fios_own_json_imports_with_its_iops_and_percentiles() {
    if Command::new("fio").arg("--version").output().is_err() {
        println!("skipping: fio is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let fio_json = dir.path().join("fio.json");
    let fio = Command::new("fio")
        .args([
            "--name=fiojob",
            &format!("--filename={}", dir.path().join("t").display()),
            "--size=4m",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--number_ios=2000",
            "--output-format=json+",
            &format!("--output={}", fio_json.display()),
        ])
        .output()
        .unwrap();
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let text = std::fs::read_to_string(&fio_json).unwrap();
    let theirs: Value = serde_json::from_str(&text).unwrap();
    let read = &theirs["jobs"][0]["read"];
    let out = iolab(&["import", fio_json.to_str().unwrap(), "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let shown: Value =
        serde_json::from_str(&iolab(&["show", "1", "--db", db, "--json"]).stdout).unwrap();
    assert_eq!(shown["kind"], "fio");
    assert!(shown["iolab_version"].as_str().unwrap().starts_with("fio-"));
    let job = &shown["jobs"][0];
    assert_eq!(
        (&job["name"], &job["engine"]),
        (&json!("fiojob"), &json!("psync"))
    );
    let m = &job["metrics"]["read"];
    assert_eq!(m["ios"], read["total_ios"].as_f64().unwrap());
    assert_eq!(m["iops"], read["iops"]);
    let p99 = read["clat_ns"]["percentile"]["99.000000"].as_f64().unwrap();
    assert_eq!(m["clat_p99_ns"].as_f64(), Some(p99));
    assert_eq!(m["clat_mean_ns"], read["clat_ns"]["mean"]);
    // json+'s latency bins became a histogram, so any percentile can be recomputed.
    let hist = job["histograms"].as_array().unwrap();
    assert!(hist.iter().any(|h| h["latency"] == "clat"), "{job}");
    let table = iolab(&["show", "1", "--db", db]).stdout;
    assert!(
        table.contains("| fiojob | 0 | psync | 1 | randread | 4096 | read |"),
        "{table}"
    );
    assert!(table.contains("measured by fio-"), "{table}");
    // One mean, named: fio's clat mean (its percentiles are clat's) in show, history and
    // compare alike.
    assert!(table.contains("| clat mean | clat p99 |"), "{table}");
    let out = iolab(&["import", fio_json.to_str().unwrap(), "--db", db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let after = |s: &str| -> String {
        let at = s
            .find("clat mean ")
            .unwrap_or_else(|| panic!("no clat mean: {s}"));
        s[at + 10..]
            .split([',', ';', '|', '\n'])
            .next()
            .unwrap()
            .trim()
            .to_string()
    };
    let history = iolab(&["history", "--db", db]).stdout;
    let compare = iolab(&["compare", "1", "2", "--db", db]);
    assert!(
        !compare.stderr.contains("differing machines"),
        "the same machine: {}",
        compare.stderr
    );
    assert_eq!(
        after(&history),
        after(&compare.stdout),
        "{history}\n{}",
        compare.stdout
    );
    // The report's jobs table names the same mean and shows the same value.
    let page = dir.path().join("fio.html");
    let out = iolab(&["report", "1", "--db", db, "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th>clat mean</th>"), "no clat mean column");
    assert!(
        html.contains(&format!("<td>{}</td>", after(&history))),
        "not the value history shows: {}",
        after(&history)
    );
}

#[test]
fn the_main_job_is_recorded_like_a_review_step_when_a_database_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let out = iolab(&[
        "--runtime=100ms",
        "--ramp_time=0",
        "--engines=psync,null",
        "--db",
        db,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("saved as run 1 in"), "{}", out.stderr);
    let runs = history(db);
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (&runs[0]["kind"], &runs[0]["status"]),
        (&json!("qd1"), &json!("ok"))
    );
    let jobs = runs[0]["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4, "read and write through two paths");
    assert!(jobs.iter().all(|j| j["step"] == "qd1-engines"));
    // show prints the step's tables as the terminal did.
    let show = iolab(&["show", "1", "--db", db]);
    assert!(
        show.stdout.contains("| 4KiB Random Read"),
        "{}",
        show.stdout
    );
}

/// One JSON document on stdout and nothing else: what a script parsing it needs.
fn one_json_document(what: &str, stdout: &str) -> Value {
    let mut docs = serde_json::Deserializer::from_str(stdout).into_iter::<Value>();
    let first = docs
        .next()
        .unwrap_or_else(|| panic!("{what}: no JSON: {stdout}"));
    let first = first.unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {stdout}"));
    assert!(
        docs.next().is_none(),
        "{what}: more than one document: {stdout}"
    );
    first
}

#[test]
fn every_results_command_prints_one_json_document_with_output_format_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let file = format!("--filename={}", dir.path().join("t").display());
    let json = "--output-format=json";
    // run, with a warning on stderr (the runtime cap).
    let out = iolab(&[
        "run",
        "--db",
        db,
        "--name=j",
        &file,
        "--size=1m",
        "--time_based",
        "--runtime=1s",
        "--runtime-cap=200ms",
        json,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("--runtime-cap"), "{}", out.stderr);
    one_json_document("run", &out.stdout);
    // The main job and a review (its info step: no I/O, quick).
    let target = format!("{}", dir.path().join("m").display());
    let main = iolab(&[
        "--db",
        db,
        "--target",
        &target,
        "--size=1m",
        "--engines=psync",
        "--runtime=100ms",
        "--ramp_time=0",
        json,
    ]);
    assert_eq!(main.code, 0, "{}", main.stderr);
    one_json_document("main job", &main.stdout);
    let review = iolab(&["review", "--db", db, "--steps", "info", "--quick", json]);
    assert_eq!(review.code, 0, "{}", review.stderr);
    let r = one_json_document("review", &review.stdout);
    assert_eq!(
        (&r["kind"], &r["steps"][0]["name"]),
        (&json!("review"), &json!("info"))
    );
    // The commands that read the database.
    for (what, args) in [
        ("history", vec!["history"]),
        ("show", vec!["show", "1"]),
        ("compare", vec!["compare", "1", "2"]),
        ("export", vec!["export", "1"]),
    ] {
        let mut a = args.clone();
        a.extend(["--db", db, json]);
        let out = iolab(&a);
        assert_eq!(out.code, 0, "{what}: {}", out.stderr);
        one_json_document(what, &out.stdout);
    }
    let history = one_json_document("history", &iolab(&["history", "--db", db, json]).stdout);
    assert_eq!(
        history.as_array().unwrap().len(),
        3,
        "run, main job, review"
    );
    // The application load, where db_bench is installed.
    if Command::new("db_bench").arg("--help").output().is_err() {
        println!("skipping kv: db_bench is not installed (apt-get install rocksdb-tools)");
        return;
    }
    let work = dir.path().to_str().unwrap();
    let kv = iolab(&[
        "kv",
        "--dir",
        work,
        "--num",
        "20000",
        "--workloads",
        "fillseq",
        "--db",
        db,
        json,
    ]);
    assert_eq!(kv.code, 0, "{}", kv.stderr);
    let k = one_json_document("kv", &kv.stdout);
    assert_eq!(k["kind"], "kv");
}
