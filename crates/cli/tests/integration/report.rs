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
    check_charts(&v, page);
    check_switch_and_save(&mut b);
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

/// Every chart drew every trace, the points it declares (all of them, unless it says it drew
/// them reduced), each trace with hover text, its marks inside the plot and both axes titled;
/// a table and two save buttons per chart; nothing loaded from elsewhere.
fn check_charts(v: &Value, page: &Path) {
    let charts = v["charts"].as_array().unwrap();
    assert!(!charts.is_empty(), "no charts in {}", page.display());
    for c in charts {
        let id = c["id"].as_str().unwrap();
        let want = c["want"].as_u64().unwrap();
        assert!(want > 0, "{id}: declares no points");
        assert!(c["traces"].as_u64().unwrap() > 0, "{id}: no traces: {c}");
        assert_eq!(c["rendered"], c["traces"], "{id}: traces not drawn: {c}");
        if c["reduced"] == false {
            assert_eq!(c["points"].as_u64(), Some(want), "{id}: {c}");
        }
        assert_eq!(
            c["titled"], c["traces"],
            "{id}: traces without hover text: {c}"
        );
        assert_eq!(
            c["inside"], c["markers"],
            "{id}: marks outside the plot: {c}"
        );
        let axes = c["axes"].as_array().unwrap();
        assert!(axes.len() >= 2, "{id}: axis titles {axes:?}");
    }
    assert_eq!(
        v["external"],
        serde_json::json!([]),
        "the page loads nothing"
    );
    let figures = v["figures"].as_u64().unwrap();
    assert_eq!(v["tables"].as_u64(), Some(figures));
    assert_eq!(v["saves"].as_u64(), Some(2 * figures));
}

/// The linear/log switch turns the axis logarithmic; "Save SVG" hands the chart to a
/// download link as an .svg file.
fn check_switch_and_save(b: &mut Browser) {
    let switched = b
        .eval_async(
            r#"(async () => { const gd = Array.from(document.querySelectorAll('div.chart'))
                  .find(d => d.layout && d.layout.updatemenus);
                if (!gd) return null;
                const before = gd._fullLayout.yaxis.type;
                const buttons = gd.querySelectorAll('.updatemenu-button');
                buttons[1].dispatchEvent(new MouseEvent('click', { bubbles: true }));
                await new Promise(r => setTimeout(r, 300));
                return [before, gd._fullLayout.yaxis.type]; })()"#,
        )
        .unwrap();
    if !switched.is_null() {
        assert_eq!(switched, serde_json::json!(["linear", "log"]));
    }
    let saved = b
        .eval_async(
            r#"(async () => { let got = null; const orig = HTMLAnchorElement.prototype.click;
                HTMLAnchorElement.prototype.click = function () { got = this.download; };
                document.querySelector('figure button.save').click();
                for (let i = 0; i < 100 && got === null; i++) await new Promise(r => setTimeout(r, 50));
                HTMLAnchorElement.prototype.click = orig; return got; })()"#,
        )
        .unwrap();
    assert!(
        saved.as_str().is_some_and(|s| s.ends_with(".svg")),
        "{saved}"
    );
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
