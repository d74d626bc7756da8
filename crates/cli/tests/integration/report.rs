//! `iolab report` in a real browser: the page opened in headless Chromium must raise no
//! console error and make no request, and every chart must have drawn the points it
//! declares, each with its hover text. The full review report is checked from the review
//! test (it needs a review); here, a kv run's report and the refusals.

use std::path::Path;

use serde_json::Value;

use crate::support::browser::{Browser, CHART_CHECK};
use crate::support::iolab;

/// Opens `page` in headless Chromium and checks it; saves a screenshot as `shot` (in
/// Cargo's target tmp dir) and returns what the page reported. `None` when no browser.
pub fn check_in_browser(page: &Path, shot: &str) -> Option<Value> {
    let mut b = match Browser::launch() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped the browser check: {why}");
            return None;
        }
    };
    b.open(page).unwrap();
    let v = b.eval(CHART_CHECK).unwrap();
    let charts = v["charts"].as_array().unwrap();
    assert!(!charts.is_empty(), "no charts in {}", page.display());
    for c in charts {
        let id = c["id"].as_str().unwrap();
        let want = c["want"].as_u64().unwrap();
        assert!(want > 0, "{id}: declares no points");
        assert_eq!(c["circles"].as_u64(), Some(want), "{id}: {c}");
        assert_eq!(
            c["inside"].as_u64(),
            Some(want),
            "{id}: points outside the chart: {c}"
        );
        assert_eq!(
            c["titled"].as_u64(),
            Some(want),
            "{id}: points without hover text: {c}"
        );
        if c["visible"] == true {
            assert_eq!(
                c["drawn"].as_u64(),
                Some(want),
                "{id}: points not drawn: {c}"
            );
        }
        let axes = c["axes"].as_array().unwrap();
        assert!(axes.len() >= 2, "{id}: axis titles {axes:?}");
    }
    assert_eq!(
        v["external"],
        serde_json::json!([]),
        "the page loads nothing"
    );
    assert_eq!(v["tables"].as_u64().unwrap(), v["saves"].as_u64().unwrap());
    // The linear/log switch shows the other rendering and hides the first.
    let switched = b
        .eval(
            r#"(() => { const r = document.querySelector('figure.switch input.log');
                if (!r) return null; const fig = r.closest('figure');
                fig.querySelector('label[for="' + r.id + '"]').click();
                const shown = Array.from(fig.querySelectorAll('svg.chart')).filter(s => s.getClientRects().length > 0);
                return shown.map(s => s.id); })()"#,
        )
        .unwrap();
    if let Some(ids) = switched.as_array() {
        assert_eq!(ids.len(), 1, "one rendering at a time: {switched}");
        assert!(ids[0].as_str().unwrap().ends_with("-log"), "{switched}");
    }
    // Save SVG works: the button hands a Blob of the visible chart to a download link.
    let saved = b
        .eval(
            r#"(() => { let got = null; const orig = HTMLAnchorElement.prototype.click;
                HTMLAnchorElement.prototype.click = function () { got = this.download; };
                document.querySelector('figure button.save').click();
                HTMLAnchorElement.prototype.click = orig; return got; })()"#,
        )
        .unwrap();
    assert!(
        saved.as_str().is_some_and(|s| s.ends_with(".svg")),
        "{saved}"
    );
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(shot);
    b.screenshot(&out, None).unwrap();
    assert!(
        std::fs::metadata(&out).unwrap().len() > 10_000,
        "screenshot"
    );
    eprintln!("report screenshot: {}", out.display());
    assert!(b.problems.is_empty(), "browser problems: {:#?}", b.problems);
    Some(v)
}

#[test]
fn a_kv_report_opens_clean_in_a_browser() {
    if std::process::Command::new("db_bench")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: db_bench is not installed (apt-get install rocksdb-tools)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let out = iolab(&[
        "kv",
        "--dir",
        tmp.path().to_str().unwrap(),
        "--num",
        "300000",
        "--workloads",
        "fillseq,readrandom",
        "--db",
        dbs,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = tmp.path().join("kv.html");
    let r = iolab(&["report", "1", "-o", page.to_str().unwrap(), "--db", dbs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Application load (RocksDB db_bench)"));
    assert!(
        !html.contains("id=\"qd1\""),
        "no QD1 section without a review"
    );
    if let Some(v) = check_in_browser(&page, "iolab-report-kv.png") {
        assert_eq!(v["sections"], serde_json::json!(["header", "application"]));
    }
}

#[test]
fn bad_report_input_is_one_line_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("none.db");
    let out = iolab(&[
        "report",
        "1",
        "--db",
        db.to_str().unwrap(),
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no results database"), "{}", out.stderr);
    assert!(!db.exists());
    // A database without that run.
    let store = iolab_store::Store::open(&db).unwrap();
    drop(store);
    let out = iolab(&[
        "report",
        "7",
        "--db",
        db.to_str().unwrap(),
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no run 7"), "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1);
    let out = iolab(&["report"]);
    assert_eq!(out.code, 2);
}

/// The browser check itself sees what it must fail on: a console error, an exception and a
/// request to the network.
#[test]
fn the_browser_check_sees_console_errors_and_requests() {
    let mut b = match Browser::launch() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("bad.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><img src=\"http://192.0.2.1/x.png\"><script>console.error('broken'); undefinedFunction();</script></body></html>",
    )
    .unwrap();
    b.open(&page).unwrap();
    let all = b.problems.join("\n");
    assert!(all.contains("console.error"), "{all}");
    assert!(all.contains("undefinedFunction"), "{all}");
    assert!(
        all.contains("network request: http://192.0.2.1/x.png"),
        "{all}"
    );
}

/// Checks any report: `IOLAB_REPORT_PAGE=report.html cargo test --release --test integration
/// report::a_given_page -- --nocapture` (a no-op without the variable).
#[test]
fn a_given_page() {
    let Some(page) = std::env::var_os("IOLAB_REPORT_PAGE") else {
        return;
    };
    let v = check_in_browser(Path::new(&page), "iolab-report-given.png");
    eprintln!("{v:#?}");
}
