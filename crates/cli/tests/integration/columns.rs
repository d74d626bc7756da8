//! Runs measured elsewhere as columns: fio's JSON (fio standing in for fio with SPDK's
//! plugin, which this machine cannot run) imported, then shown as a column of the main
//! job's QD1 table (`--with RUN`) and of the report's QD1 tables.

use std::fs;
use std::process::Command;

use crate::support::iolab;

/// fio's JSON of 4 KiB QD1 random read and write jobs on a file in `dir`.
fn fio_qd1(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let job = dir.join("qd1.fio");
    fs::write(
        &job,
        format!(
            "[global]\nfilename={}\nsize=8m\nbs=4k\niodepth=1\nioengine=psync\nruntime=300ms\n\
             time_based\n[r]\nrw=randread\n[w]\nstonewall\nrw=randwrite\n",
            dir.join("f").display()
        ),
    )
    .unwrap();
    let o = Command::new("fio")
        .args(["--output-format=json"])
        .arg(&job)
        .output()
        .ok()?;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let json = dir.join("fio.json");
    fs::write(&json, &out[out.find('{')?..]).unwrap();
    Some(json)
}

#[test]
fn an_imported_fio_run_stands_as_a_column_of_the_qd1_table_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let Some(json) = fio_qd1(dir.path()) else {
        eprintln!("skipped: no fio (apt-get install fio)");
        return;
    };
    let db = dir.path().join("r.db");
    let db_arg = format!("--db={}", db.display());
    let out = iolab(&["import", json.to_str().unwrap(), &db_arg]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["--engines=psync", "--runtime=300ms", "--with", "1", &db_arg]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let header = out
        .stdout
        .lines()
        .find(|l| l.starts_with("| IOPS"))
        .unwrap();
    assert!(header.contains("fio psync"), "{}", out.stdout);
    for row in ["| 4KiB Random Read", "| 4KiB Random Write"] {
        let line = out.stdout.lines().find(|l| l.starts_with(row)).unwrap();
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(
            cells.len() >= 4 && !cells[3].is_empty() && cells[3] != "n/a",
            "{line}"
        );
    }

    let html = dir.path().join("r.html");
    let out = iolab(&["report", "2", "-o", html.to_str().unwrap(), &db_arg]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("fio psync"),
        "the report's QD1 tables have the column"
    );

    // A run without a 4 KiB QD1 random job cannot stand as a column.
    let out = iolab(&[
        "run",
        "--name=seq",
        &format!("--filename={}", dir.path().join("g").display()),
        "--size=1m",
        "--rw=read",
        &db_arg,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["--engines=psync", "--runtime=300ms", "--with", "3", &db_arg]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("no 4 KiB random read or write job"),
        "{}",
        out.stderr
    );
}
