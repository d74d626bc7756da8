//! Runs stored before the stored documents became types still open, and every output shows
//! them: `tests/fixtures/main-2026-12-06.db.gz` is a results database written by iolab at
//! commit b0efce0 (main on 2026-12-06): run 1 the main job on a never-written zram (psync and
//! io_uring, writes refused: n/a cells with their reason), run 2 a quick review (info,
//! precondition, QD1, sweep, load, transfer size, profiles, software floor), run 3 a quick
//! PTS (IOPS, latency, host idle recovery). To keep it small the latency histograms of runs
//! 2 and 3 were dropped (`DELETE FROM histograms WHERE job_id IN (SELECT id FROM jobs WHERE
//! run_id IN (2, 3)); VACUUM`); every document, step and figure is as that build stored it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::iolab;

/// A copy of the fixture database in `dir` (a command may migrate it).
fn old_db(dir: &Path) -> PathBuf {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/main-2026-12-06.db.gz");
    let out = Command::new("gzip").arg("-dc").arg(&gz).output().unwrap();
    assert!(out.status.success(), "gzip -dc {}", gz.display());
    let db = dir.join("old.db");
    std::fs::write(&db, out.stdout).unwrap();
    db
}

fn ok(args: &[&str]) -> String {
    let out = iolab(args);
    assert_eq!(out.code, 0, "iolab {args:?}: {}", out.stderr);
    out.stdout
}

#[test]
fn show_history_and_compare_read_an_old_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = old_db(dir.path());
    let db = db.to_str().unwrap();
    let history = ok(&["history", "--db", db]);
    assert_eq!(history.lines().count(), 4, "{history}");
    // The main job kept its notes and marks: show says them as the terminal did.
    let main = ok(&["show", "1", "--db", db]);
    for said in [
        "0 % of it held written data",
        "io-wq",
        "n/a (psync 4KiB Random Write",
    ] {
        assert!(main.contains(said), "{said}: {main}");
    }
    // The review's steps, each with its text.
    let review = ok(&["show", "2", "--db", db]);
    for step in [
        "info",
        "precondition",
        "qd1-engines",
        "qd-sweep",
        "load",
        "transfer-size",
    ] {
        assert!(review.contains(&format!(". {step}")), "{step}: {review}");
    }
    // The PTS document, typed now, still reads: header, verdicts, tables, phases.
    let pts = ok(&["show", "3", "--db", db]);
    for said in [
        "PTS-E 2.0.2 on /dev/zram2",
        "steady state reached in rounds 1-5",
        "IOPS over the window (block size down, read/write mix across)",
        "          4KiB      270k",
        "response times over the window",
        "hir: ",
    ] {
        assert!(pts.contains(said), "{said}: {pts}");
    }
    let v: serde_json::Value = serde_json::from_str(&ok(&[
        "compare",
        "3",
        "3",
        "--db",
        db,
        "--output-format=json",
    ]))
    .unwrap();
    let tests = v["runs"][0]["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["iops", "lat", "hir"], "{v}");
    assert!(tests
        .iter()
        .all(|t| !t["elements"].as_array().unwrap().is_empty()));
}

#[test]
fn the_page_of_an_old_database_draws_every_section() {
    let dir = tempfile::tempdir().unwrap();
    let db = old_db(dir.path());
    let page = dir.path().join("page.html");
    let (db, out) = (db.to_str().unwrap(), page.to_str().unwrap());
    ok(&["report", "1", "2", "3", "--db", db, "-o", out]);
    let html = std::fs::read_to_string(&page).unwrap();
    for (what, needle) in [
        ("the QD1 tables", "class=\"qd1\""),
        (
            "the main job's note on what zram held",
            "0 % of it held written data",
        ),
        ("the io-wq note", "io-wq"),
        (
            "a write cell's n/a reason",
            "n/a — psync: refusing to write",
        ),
        ("the sweep", "id=\"sweep-iops\""),
        ("the transfer-size chart", "transfer-random"),
        ("a transfer size's n/a reason", "n/a — rand read: bs=512"),
        ("the profiles table", "class=\"profiles\""),
        ("the load curve", "load-randread"),
        ("the software floor", "Software floor"),
        ("the info step's facts", "Device and host"),
        ("the precondition passes", "precondition-throughput"),
        ("the PTS header", "class=\"pts-header\""),
        ("the PTS IOPS table", "class=\"pts-iops\""),
        ("a PTS IOPS cell", ">270k</td>"),
        ("the PTS window table", "class=\"pts-window\""),
        ("the host idle recovery phases", "class=\"pts-phases\""),
    ] {
        assert!(html.contains(needle), "{what}: no {needle:?} on the page");
    }
    // The PTS page's units match its values: throughput in MB/s, times in µs or by the
    // axis's own unit, never a stored name's "(bytes/s)" or "(ns)".
    for unit in ["(bytes/s)", "response time (ns)"] {
        assert!(!html.contains(unit), "{unit} on the page");
    }
    assert!(html.contains("average (µs)"), "the latency table's unit");
}
