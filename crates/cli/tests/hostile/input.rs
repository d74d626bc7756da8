//! Bad input is found before anything happens: exit 2, one line, no file laid out, no
//! database row; contradictions and unknown settings are said, not silently accepted.

use crate::{iolab_db, iolab_env, refused};

#[test]
fn bad_input_has_no_side_effects() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("f");
    let fname = format!("--filename={}", f.display());
    let base = ["run", "--name=j", &fname, "--rw=randread", "--size=1m"];
    let cases: [(&[&str], &str); 6] = [
        (&["--direct=1", "--buffered=1"], "contradict each other"),
        (
            &["--rwmixread=30", "--rwmixwrite=30"],
            "add up to 60, not 100",
        ),
        (&["--bs=4k,8k,16k,32k"], "READ,WRITE[,TRIM]"),
        (&["--cpus_allowed=999"], "CPU 999"),
        (&["--db=/proc/iolab.db"], "procfs"),
        (&["--db=/"], "it is a directory"),
    ];
    for (extra, needle) in cases {
        let mut args = base.to_vec();
        args.extend(extra);
        refused(&iolab_db(&db, &args), needle);
        assert!(!f.exists(), "{extra:?}: nothing laid out");
    }
    let out = iolab_env(
        &base,
        &[("IOLAB_CLOCK", "bogus"), ("IOLAB_DB", db.to_str().unwrap())],
    );
    refused(&out, "IOLAB_CLOCK=bogus");
    assert!(!f.exists() && !db.exists());
}

/// `--name=global` starts global options, as in fio: they apply to the jobs after it.
#[test]
fn name_global_is_fios_global_section() {
    let out = iolab_db(
        std::path::Path::new("/nonexistent/never.db"),
        &[
            "run",
            "--parse-only",
            "--name=a",
            "--filename=x",
            "--size=1m",
            "--name=global",
            "--bs=64k",
            "--name=b",
            "--filename=y",
            "--size=1m",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "two jobs, no job named global: {}",
        out.stdout
    );
    assert!(
        lines[0].starts_with("a:") && lines[0].contains("4096B"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("b:") && lines[1].contains("64.0KiB"),
        "{}",
        lines[1]
    );
}

/// Nearly a megabyte of junk as an option name: refused at once, and echoed only in part.
#[test]
fn huge_input_is_refused_quickly_and_echoed_short() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let file = dir.path().join("junk.fio");
    std::fs::write(&file, format!("[j]\n{}=1\n", "x".repeat(1000 << 10))).unwrap();
    let started = std::time::Instant::now();
    let out = crate::iolab_db(&db, &["run", file.to_str().unwrap()]);
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    assert_eq!(out.code, 2, "{}", &out.stderr[..out.stderr.len().min(300)]);
    assert!(
        out.stderr.len() < 1200,
        "{} bytes of error",
        out.stderr.len()
    );
    let cut = out.stderr.len().min(300);
    assert!(out.stderr.contains("more bytes)"), "{}", &out.stderr[..cut]);
}

/// One document on stdout: the review's JSON and an HTML report to `-` cannot share it.
#[test]
fn a_review_does_not_print_two_documents() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let args = [
        "review",
        "--quick",
        "--steps",
        "info",
        "--output-format=json",
        "--report",
        "-",
    ];
    refused(&iolab_db(&db, &args), "both write to stdout");
}

/// An import too large to parse within reason is refused before it is read whole.
#[test]
fn a_huge_import_is_refused_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let big = dir.path().join("big.json");
    let text = format!(
        "{{\"fio version\": \"fio-3.33\", \"x\": \"{}\"}}",
        "a".repeat(70 << 20)
    );
    std::fs::write(&big, text).unwrap();
    refused(
        &iolab_db(&db, &["import", big.to_str().unwrap()]),
        "more than iolab imports",
    );
    assert!(!db.exists());
}

/// Hostile nesting (200,000 parentheses in a job file, 50,000 on the command line, a run of
/// signs) is a one-line exit 2 of bounded length, never a stack overflow.
#[test]
fn deep_nesting_is_bad_input_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let deep = |n: usize| format!("{}4k{}", "(".repeat(n), ")".repeat(n));
    let job = dir.path().join("deep.fio");
    std::fs::write(
        &job,
        format!("[j]\nioengine=null\nsize={}\n", deep(200_000)),
    )
    .unwrap();
    let size = format!("--size={}", deep(50_000));
    let signs = format!("--size=({}4k)", "-".repeat(100_000));
    for args in [
        vec!["run", job.to_str().unwrap()],
        vec!["run", "--name=j", "--ioengine=null", &size],
        vec!["run", "--name=j", "--ioengine=null", &signs],
    ] {
        let out = iolab_db(&db, &args);
        refused(&out, "nested more than");
        assert!(
            out.stderr.len() < 1000,
            "a short line: {} bytes",
            out.stderr.len()
        );
    }
    assert!(!db.exists(), "nothing written");
}

/// fio JSON with a negative count, or with no jobs, is refused (exit 2), not kept to read
/// later as an 8-million-percent regression.
#[test]
fn impossible_fio_json_is_not_imported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let job = |ios: i64| {
        format!(
            r#"{{"fio version": "fio-3.33", "jobs": [{{"jobname": "a", "job options": {{}},
            "read": {{"io_bytes": 4096, "iops": 10.0, "bw_bytes": 4096, "runtime": 1000,
            "total_ios": {ios}, "lat_ns": {{"min": 1, "max": 2, "mean": 1.5, "stddev": 0.1, "N": 1}}}},
            "job_runtime": 1000, "usr_cpu": 1.0, "sys_cpu": 1.0, "ctx": 1}}]}}"#
        )
    };
    for (text, needle) in [
        (job(-5), "read.total_ios is -5"),
        (
            r#"{"fio version": "fio-3.33", "jobs": []}"#.to_string(),
            "empty",
        ),
    ] {
        let f = dir.path().join("fio.json");
        std::fs::write(&f, text).unwrap();
        let out = iolab_db(
            &db,
            &["import", f.to_str().unwrap(), "--db", db.to_str().unwrap()],
        );
        refused(&out, needle);
        assert!(!db.exists(), "no database made, no run kept");
    }
    let f = dir.path().join("ok.json");
    std::fs::write(&f, job(1)).unwrap();
    let out = iolab_db(
        &db,
        &["import", f.to_str().unwrap(), "--db", db.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// A zone smaller than a write is fio's "I/O buflen exceeds zone size", said before
/// anything is written (it used to write nothing and exit 0).
#[test]
fn a_zone_smaller_than_a_write_is_refused_in_fios_words() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let f = dir.path().join("zf");
    let fname = format!("--filename={}", f.display());
    let args = [
        "run",
        "--name=z",
        &fname,
        "--size=1m",
        "--zonemode=zbd",
        "--zonesize=2k",
    ];
    let mut write = args.to_vec();
    write.extend(["--rw=write", "--bs=4k"]);
    refused(
        &iolab_db(&db, &write),
        "I/O buflen 4096 exceeds zone size 2048",
    );
    assert!(!f.exists(), "nothing laid out");
}

/// Refusals name the real cause: a file engine on a block device is not "NVMe commands", a
/// size split over a million files is not "size=1", an offset past any device is not a
/// size, and /dev/null as the database is not "swapped since".
#[test]
fn messages_name_the_real_cause() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    {
        let _g = crate::support::device_lock();
        if let Some(dev) = crate::support::loop_device(8 << 20, false) {
            let f = format!("--filename={}", dev.path.display());
            for engine in ["filedelete", "ftruncate"] {
                let e = format!("--ioengine={engine}");
                let out = iolab_db(
                    &db,
                    &["run", "--name=t", &f, &e, "--rw=write", "--allow-destroy"],
                );
                refused(&out, &format!("{engine} works on regular files only"));
                assert!(!out.stderr.contains("NVMe"), "{}", out.stderr);
            }
        }
    }
    let d = format!("--directory={}", dir.path().display());
    let out = iolab_db(
        &db,
        &["run", "--name=n", &d, "--nrfiles=1000000", "--size=1m"],
    );
    refused(&out, "split over 1000000 files");
    let target = dir.path().join("rf");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let log = dir.path().join("big.log");
    let t = target.display();
    std::fs::write(
        &log,
        format!("fio version 2 iolog\n{t} add\n{t} open\n{t} read 18446744073709551615 4096\n{t} close\n"),
    )
    .unwrap();
    let r = format!("--read_iolog={}", log.display());
    let out = iolab_db(&db, &["run", "--name=r", &r, &format!("--filename={t}")]);
    refused(&out, "past the end of any file or device");
    let out = iolab_env(
        &["run", "--name=j", "--ioengine=null", "--size=1m"],
        &[("IOLAB_DB", "/dev/null")],
    );
    refused(
        &out,
        "it is a character device; the results database is a regular file",
    );
}
