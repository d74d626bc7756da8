//! fio's own command-line options (`fio --help`), each with fio's meaning or refused with
//! the reason: terse output against fio's, `--section`, `--readonly` (nothing written),
//! `--showcmd` (a command line that runs the same jobs), `--cmdhelp`, `--enghelp`,
//! `--max-jobs`, `--warnings-fatal`, `--debug=parse`, `--eta=always`, and the refused
//! `--client`/`--server`.

use std::path::Path;
use std::process::Command;

use crate::support::{iolab, test_db};

fn fio_here() -> bool {
    Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn db() -> String {
    format!("--db={}", test_db().display())
}

/// Each field of a terse line with its digits masked: the line's shape.
fn shape(line: &str) -> Vec<String> {
    let mask = |f: &str| {
        let mut out = String::new();
        for c in f.chars() {
            match c.is_ascii_digit() {
                true if out.ends_with('N') => {}
                true => out.push('N'),
                false => out.push(c),
            }
        }
        out
    };
    line.trim().split(';').map(mask).collect()
}

#[test]
fn minimal_prints_fios_terse_line_field_for_field() {
    if !fio_here() {
        println!("skipped: fio is not installed (apt-get install fio)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let job = |f: &Path| {
        vec![
            "--name=t".to_string(),
            format!("--filename={}", f.display()),
            "--size=4m".into(),
            "--rw=randrw".into(),
            "--bs=4k".into(),
            "--runtime=1".into(),
            "--time_based".into(),
            "--percentile_list=1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99".into(),
        ]
    };
    let fio = Command::new("fio")
        .arg("--minimal")
        .args(job(&dir.path().join("fio")))
        .output()
        .unwrap();
    assert!(fio.status.success());
    let fio_line = String::from_utf8_lossy(&fio.stdout).to_string();
    let mut args = vec!["run".to_string(), "--minimal".into(), db()];
    args.extend(job(&dir.path().join("iolab")));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = iolab(&a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    let (ours, theirs) = (shape(&out.stdout), shape(&fio_line));
    assert_eq!(ours.len(), theirs.len(), "{}\n{fio_line}", out.stdout);
    for (i, (o, t)) in ours.iter().zip(&theirs).enumerate() {
        if i == 1 {
            continue; // the version: fio-3.33 against iolab's own
        }
        assert_eq!(
            o, t,
            "field {i} ({o} against {t}):\n{}\n{fio_line}",
            out.stdout
        );
    }
    // --output-format=terse is the same line.
    let mut a2 = a.clone();
    a2[1] = "--output-format=terse";
    let out2 = iolab(&a2);
    assert_eq!(shape(&out2.stdout).len(), theirs.len(), "{}", out2.stdout);
}

fn job_file(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("three.fio");
    std::fs::write(
        &f,
        format!(
            "[global]\nsize=1m\nrw=randread\nfilename={}\n\n[a]\nbs=4k\n\n[b]\nbs=8k\n\n[c]\nbs=16k\niodepth=2\n",
            dir.join("data").display()
        ),
    )
    .unwrap();
    f
}

#[test]
fn section_runs_only_the_named_sections() {
    let dir = tempfile::tempdir().unwrap();
    let f = job_file(dir.path());
    let f = f.to_str().unwrap();
    let out = iolab(&["run", "--parse-only", "--section=b", "--section=c", f]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(names, ["b", "c"], "{}", out.stdout);
    let out = iolab(&["run", "--section=d", f]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("--section=d: the job files have no such section (they have: a, b, c)"),
        "{}",
        out.stderr
    );
}

#[test]
fn readonly_refuses_every_writer_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("existing");
    std::fs::write(&existing, vec![7u8; 1 << 20]).unwrap();
    let before = std::fs::read(&existing).unwrap();
    let e = format!("--filename={}", existing.display());
    for (what, extra) in [
        ("writes", vec!["--rw=randwrite"]),
        ("trims", vec!["--rw=trim"]),
        (
            "deletes its files (ioengine=filedelete)",
            vec!["--ioengine=filedelete"],
        ),
        (
            "truncates its files (ioengine=ftruncate)",
            vec!["--ioengine=ftruncate", "--rw=write"],
        ),
        ("deletes its files when done (unlink)", vec!["--unlink=1"]),
    ] {
        let mut a = vec![
            "run",
            "--readonly",
            "--allow-destroy",
            "--name=w",
            &e,
            "--size=1m",
        ];
        a.extend(extra);
        let d = db();
        a.push(&d);
        let out = iolab(&a);
        assert_eq!(out.code, 2, "{what}: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("job <w> {what}, but --readonly")),
            "{}",
            out.stderr
        );
        assert_eq!(
            std::fs::read(&existing).unwrap(),
            before,
            "{what}: the file is untouched"
        );
    }
    // A file that would have to be laid out is refused too; nothing is created.
    let new = dir.path().join("new");
    let n = format!("--filename={}", new.display());
    let out = iolab(&["run", "--readonly", "--name=r", &n, "--size=1m", &db()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("would be laid out"), "{}", out.stderr);
    assert!(!new.exists());
    // Reading an existing file runs.
    let out = iolab(&["run", "--readonly", "--name=r", &e, "--size=1m", &db()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read(&existing).unwrap(), before);
}

#[test]
fn showcmd_prints_a_command_line_that_runs_the_same_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let f = job_file(dir.path());
    let out = iolab(&["run", "--showcmd", f.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = out.stdout.trim();
    assert!(
        line.starts_with("iolab run --size=1m --rw=randread --filename="),
        "{line}"
    );
    assert!(line.contains(" --name=c --bs=16k --iodepth=2"), "{line}");
    let words: Vec<&str> = line.split(' ').skip(2).collect();
    let mut again = vec!["run", "--parse-only"];
    again.extend(&words);
    let from_line = iolab(&again);
    let from_file = iolab(&["run", "--parse-only", f.to_str().unwrap()]);
    assert_eq!(from_line.code, 0, "{}", from_line.stderr);
    assert_eq!(from_line.stdout, from_file.stdout);
}

#[test]
fn help_options_answer_in_fios_layouts() {
    let out = iolab(&["run", "--cmdhelp=iodepth"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("             iodepth: "),
        "{}",
        out.stdout
    );
    let out = iolab(&["run", "--cmdhelp"]);
    assert!(
        out.stdout.lines().count() > 200,
        "every option, one line each"
    );
    let out = iolab(&["run", "--enghelp"]);
    assert!(out.stdout.contains("\tlibaio\n"), "{}", out.stdout);
    let out = iolab(&["run", "--enghelp=libaio"]);
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("cmdprio_percentage ")),
        "{}",
        out.stdout
    );
    let out = iolab(&["run", "--cmdhelp=nosuch"]);
    assert_eq!(out.code, 2);
}

#[test]
fn max_jobs_warnings_fatal_and_debug_parse() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let out = iolab(&[
        "run",
        "--parse-only",
        "--max-jobs=2",
        "--name=m",
        &f,
        "--numjobs=4",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("4 job copies"), "{}", out.stderr);
    let ok = iolab(&[
        "run",
        "--parse-only",
        "--max-jobs=4",
        "--name=m",
        &f,
        "--numjobs=4",
    ]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    // An option iolab reads only to ignore it (as fio ignores it) is fatal with the flag.
    let ignored = "--unique_filename=1";
    let out = iolab(&["run", "--parse-only", "--name=m", &f, ignored]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let fatal = [
        "run",
        "--parse-only",
        "--warnings-fatal",
        "--name=m",
        &f,
        ignored,
    ];
    let out = iolab(&fatal);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--warnings-fatal"), "{}", out.stderr);
    let out = iolab(&[
        "run",
        "--parse-only",
        "--debug=parse",
        "--name=m",
        &f,
        "--bs=4ki",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("handle_option=bs, ptr=4ki"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("ret=0, out=4096"), "{}", out.stderr);
    let out = iolab(&["run", "--debug=io", "--name=m", &f]);
    assert_eq!(out.code, 2);
}

#[test]
fn eta_always_draws_lines_where_stderr_is_no_terminal_and_never_draws_none() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let job = [
        "run",
        "--name=e",
        &f,
        "--size=1m",
        "--runtime=3",
        "--time_based",
        "--output-format=json",
    ];
    let mut a = job.to_vec();
    a.push("--eta=always");
    let d = db();
    a.push(&d);
    let out = iolab(&a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("job e: "))
        .collect();
    assert!(lines.len() >= 2, "{}", out.stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("IOPS]") && l.contains("ETA")),
        "{}",
        out.stderr
    );
    let mut a = job.to_vec();
    a.push("--eta=never");
    a.push(&d);
    let out = iolab(&a);
    assert!(!out.stderr.contains("job e: "), "{}", out.stderr);
}

#[test]
fn client_and_server_are_refused_with_the_way_iolab_runs_many_hosts() {
    for opt in [
        "--client=host1",
        "--server",
        "--idle-prof=system",
        "--trigger=cmd",
    ] {
        let out = iolab(&["run", opt, "--name=x", "--filename=/tmp/x"]);
        assert_eq!(out.code, 2, "{opt}");
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{opt}: one line: {}",
            out.stderr
        );
    }
    let out = iolab(&["run", "--server"]);
    assert!(out.stderr.contains("docs/multihost.md"), "{}", out.stderr);
}

/// Splits a stream of JSON documents printed one after another.
fn documents(text: &str) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .map(|d| d.expect("a JSON document"))
        .collect()
}

#[test]
fn status_interval_prints_the_results_so_far_while_the_jobs_run() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("f").display());
    let out = iolab(&[
        "run",
        "--status-interval=1",
        "--output-format=json",
        "--name=s",
        &f,
        "--size=4m",
        "--rw=randread",
        "--runtime=3",
        "--time_based",
        &db(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let docs = documents(&out.stdout);
    assert!(docs.len() >= 3, "{} documents", docs.len());
    let ios: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap())
        .collect();
    assert!(ios.windows(2).all(|w| w[0] < w[1]), "growing: {ios:?}");
    let runtimes: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["runtime"].as_u64().unwrap())
        .collect();
    assert!(runtimes[0] >= 900 && runtimes[0] < 2500, "{runtimes:?}");
    assert!(*runtimes.last().unwrap() >= 2900, "{runtimes:?}");
}

#[test]
fn bandwidth_log_writes_the_runs_aggregate_bandwidth() {
    let dir = tempfile::tempdir().unwrap();
    let f = |n: &str| format!("--filename={}", dir.path().join(n).display());
    let (a, b) = (f("a"), f("b"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(dir.path())
        .args([
            "run",
            "--bandwidth-log",
            "--size=4m",
            "--runtime=2",
            "--time_based",
        ])
        .args([
            "--output-format=json",
            "--name=a",
            &a,
            "--rw=randread",
            "--name=b",
            &b,
        ])
        .args(["--rw=randwrite", &db()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = &documents(&stdout)[0];
    let read = std::fs::read_to_string(dir.path().join("agg-read_bw.log")).unwrap();
    let write = std::fs::read_to_string(dir.path().join("agg-write_bw.log")).unwrap();
    let trim = std::fs::read_to_string(dir.path().join("agg-trim_bw.log")).unwrap();
    assert_eq!(read.lines().count(), 3, "{read}");
    assert_eq!(trim.lines().count(), 3, "{trim}");
    assert!(read.lines().all(|l| l.ends_with(", 0, 0, 0")), "{read}");
    assert!(write.lines().all(|l| l.ends_with(", 1, 0, 0")), "{write}");
    assert!(
        trim.lines().all(|l| l.split(", ").nth(1) == Some("0")),
        "{trim}"
    );
    // The aggregate is the jobs' samples summed: each line's KiB/s against the jobs' mean.
    let mean = |log: &str| {
        let v: Vec<f64> = log
            .lines()
            .map(|l| l.split(", ").nth(1).unwrap().parse().unwrap())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let job_bw = |k: usize, d: &str| doc["jobs"][k][d]["bw_mean"].as_f64().unwrap();
    let (r, w) = (mean(&read), mean(&write));
    assert!(
        (r - job_bw(0, "read")).abs() <= r * 0.02,
        "{r} against {}",
        job_bw(0, "read")
    );
    assert!(
        (w - job_bw(1, "write")).abs() <= w * 0.02,
        "{w} against {}",
        job_bw(1, "write")
    );
    // Phases one after another are refused: their samples do not line up.
    let out = iolab(&[
        "run",
        "--bandwidth-log",
        "--name=a",
        &a,
        "--size=1m",
        "--name=b",
        &b,
        "--stonewall",
        "--size=1m",
        &db(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("phases"), "{}", out.stderr);
}

/// A job-file run is kept with every option in force ([global]'s too), the job file's text
/// and the absolute command; `show --job-file` prints a job file that reruns the same I/O,
/// from any directory.
#[test]
fn a_stored_run_reruns_from_its_job_file() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = "[global]\nrw=randread\nbs=4k\nsize=1m\ndirect=0\n\n[one]\nfilename=data1\niodepth=4\n\n[two]\nrw=write\nnumjobs=2\n";
    std::fs::write(dir.path().join("two.fio"), jobs).unwrap();
    let dbf = dir.path().join("runs.db");
    let db = format!("--db={}", dbf.display());
    let run = |cwd: &Path, args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let first = run(dir.path(), &["run", "two.fio", &db, "--output-format=json"]);
    let export = run(dir.path(), &["export", "1", &db, "--format", "json"]);
    assert!(
        export.contains("\"rw\"") && export.contains("\"direct\""),
        "the [global] options are kept"
    );
    assert!(
        export.contains("[global]\\nrw=randread"),
        "the job file's text is kept"
    );
    let show = run(dir.path(), &["show", "1", &db]);
    let abs = dir.path().join("two.fio");
    assert!(
        show.contains(&abs.display().to_string()),
        "absolute command: {show}"
    );
    // Through an export and an import into another database, as a run sent to a colleague.
    std::fs::write(dir.path().join("export.json"), &export).unwrap();
    let db2 = format!("--db={}", dir.path().join("theirs.db").display());
    run(dir.path(), &["import", "export.json", &db2]);
    let job_file = run(dir.path(), &["show", "1", &db2, "--job-file"]);
    assert!(
        job_file.contains("[one]\n") && job_file.contains("\nrw=randread\n"),
        "{job_file}"
    );
    let again = dir.path().join("again.fio");
    std::fs::write(&again, &job_file).unwrap();
    // From another directory: the file names are absolute.
    let elsewhere = tempfile::tempdir().unwrap();
    let second = run(
        elsewhere.path(),
        &[
            "run",
            again.to_str().unwrap(),
            &db,
            "--allow-destroy",
            "--output-format=json",
        ],
    );
    let figures = |doc: &str| -> Vec<(String, u64, u64, u64, u64)> {
        let d: serde_json::Value = serde_json::from_str(doc).unwrap();
        d["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    n("read", "io_bytes"),
                    n("read", "total_ios"),
                    n("write", "io_bytes"),
                    n("write", "total_ios"),
                )
            })
            .collect()
    };
    assert_eq!(figures(&first), figures(&second), "{job_file}");
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written elsewhere"
    );
}
