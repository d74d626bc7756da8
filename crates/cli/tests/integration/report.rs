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
    // Charts follow each other down the page, none drawn over another.
    for w in charts.windows(2) {
        let (a, b) = (&w[0]["span"], &w[1]["span"]);
        assert!(
            a[1].as_f64().unwrap() <= b[0].as_f64().unwrap() + 0.5,
            "{} overlaps {}: {a} {b}",
            w[0]["id"],
            w[1]["id"]
        );
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
    let saved = saved_name(b, "svg");
    assert!(saved.ends_with(".svg"), "{saved}");
}

/// Clicks the first chart's "Save SVG" or "Save PNG" (`format`) and returns the file name
/// the download link was given (the link's click is caught, so nothing is written).
pub fn saved_name(b: &mut Browser, format: &str) -> String {
    let js = r#"(async () => { let got = null; const orig = HTMLAnchorElement.prototype.click;
                HTMLAnchorElement.prototype.click = function () { got = this.download; };
                document.querySelector('figure button.save[data-format=FORMAT]').click();
                for (let i = 0; i < 100 && got === null; i++) await new Promise(r => setTimeout(r, 50));
                HTMLAnchorElement.prototype.click = orig; return got; })()"#;
    let saved = b.eval_async(&js.replace("FORMAT", format)).unwrap();
    saved.as_str().unwrap_or_default().to_string()
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
        // The drive's health around each workload (read, or why there is no log) is said.
        assert_eq!(
            v["sections"],
            serde_json::json!(["header", "health", "application"])
        );
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

/// A stored run's consistency series stretched to a day: each series repeated to 86,400 s,
/// with one 5 ms second in the read p99 at 50,000 s.
fn tile_to_a_day(run: &mut Value) {
    run["jobs"]
        .as_array_mut()
        .unwrap()
        .retain(|j| j["step"] == "consistency");
    for j in run["jobs"].as_array_mut().unwrap() {
        for s in j["series"].as_array_mut().unwrap() {
            let pts = s["points"].as_array().unwrap().clone();
            if pts.len() < 2 {
                continue;
            }
            let t = |p: &Value| p[0].as_i64().unwrap();
            let (t0, dt) = (t(&pts[0]), t(&pts[1]) - t(&pts[0]));
            let spike = s["name"] == "lat_p99_ns" && s["direction"] == "read";
            let day: Vec<Value> = (0..86_400_000 / dt)
                .map(|i| {
                    let at = t0 + i * dt;
                    let v = match spike && at == 50_000_000 {
                        true => 5e6,
                        false => pts[i as usize % pts.len()][1].as_f64().unwrap(),
                    };
                    serde_json::json!([at, v])
                })
                .collect();
            s["points"] = Value::Array(day);
        }
    }
}

/// A day of per-second consistency data, kept whole in the store, makes a report under
/// 10 MB that a browser draws in under 5 s, with the spike still on the chart; dragging
/// across the time axis zooms it, and its ticks follow.
#[test]
fn a_day_of_seconds_makes_a_small_fast_page_that_zooms() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let day_db = tmp.path().join("day.db");
    let (db, day_db) = (db.to_str().unwrap(), day_db.to_str().unwrap());
    let out = iolab(&[
        "review",
        "--quick",
        "--steps",
        "consistency",
        "--runtime",
        "consistency:3s",
        "--db",
        db,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let exported = iolab(&["export", "1", "--db", db]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let mut run: Value = serde_json::from_str(&exported.stdout).unwrap();
    tile_to_a_day(&mut run);
    let file = tmp.path().join("day.json");
    std::fs::write(&file, run.to_string()).unwrap();
    let out = iolab(&["import", file.to_str().unwrap(), "--db", day_db]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The store keeps every second.
    let back: Value =
        serde_json::from_str(&iolab(&["export", "1", "--db", day_db]).stdout).unwrap();
    let p99 = back["jobs"][0]["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "lat_p99_ns")
        .unwrap();
    assert_eq!(p99["points"].as_array().unwrap().len(), 86_400);
    let page = tmp.path().join("day.html");
    let out = iolab(&["report", "1", "--db", day_db, "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bytes = std::fs::metadata(&page).unwrap().len();
    assert!(bytes < 10_000_000, "{bytes} bytes");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("each 60 s"),
        "the page says the day was reduced"
    );
    let mut b = match Browser::launch() {
        Ok(b) => b,
        Err(why) => {
            eprintln!("skipped the browser part: {why}");
            return;
        }
    };
    let started = std::time::Instant::now();
    b.open(&page).unwrap();
    let took = started.elapsed();
    eprintln!("a day's report: {bytes} bytes, drawn in {took:?}");
    assert!(
        crate::support::holds_or_busy(took.as_secs_f64() < 5.0, "the day page's 5 s"),
        "drawn in {took:?}"
    );
    let v = b.eval(CHART_CHECK).unwrap();
    check_charts(&v, &page);
    // The 5 ms second is the top of its minute's band.
    let spike = b
        .eval(
            r#"(() => { const gd = document.getElementById('consistency-randread');
                return Math.max(...gd.data.filter(t => t.legendgroup === 'p99').flatMap(t => t.y)); })()"#,
        )
        .unwrap();
    assert!((spike.as_f64().unwrap() - 5e-3).abs() < 1e-9, "{spike}");
    // Drag across a tenth of the time axis: the range narrows to it and the ticks change.
    let read = r#"(() => { const gd = document.getElementById('consistency-randread');
        gd.scrollIntoView(); const r = gd.querySelector('.nsewdrag').getBoundingClientRect();
        return { range: gd._fullLayout.xaxis.range, ticks: Array.from(gd.querySelectorAll('.xtick text')).map(t => t.textContent),
                 box: [r.left, r.top, r.width, r.height] }; })()"#;
    let before = b.eval(read).unwrap();
    let bx: Vec<f64> = before["box"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let y = bx[1] + bx[3] / 2.0;
    b.drag((bx[0] + bx[2] * 0.3, y), (bx[0] + bx[2] * 0.4, y))
        .unwrap();
    b.eval_async("new Promise(r => setTimeout(r, 500))")
        .unwrap();
    let after = b.eval(read).unwrap();
    let span = |v: &Value| v["range"][1].as_f64().unwrap() - v["range"][0].as_f64().unwrap();
    let ratio = span(&after) / span(&before);
    assert!(
        (0.05..0.2).contains(&ratio),
        "zoomed to {ratio}: {before} → {after}"
    );
    assert_ne!(before["ticks"], after["ticks"], "the ticks follow the zoom");
    assert!(b.problems.is_empty(), "browser problems: {:#?}", b.problems);
}

/// A job and engine named `<!--<script>` (which, raw inside the page's JSON, would make the
/// HTML parser swallow the closing tag and leave every chart undrawn) still draws them all.
#[test]
fn markup_in_job_and_engine_names_leaves_every_chart_drawn() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let out = iolab(&[
        "--engines=psync,libaio",
        "--runtime=200ms",
        "--ramp_time=0",
        "--db",
        dbs,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let export = iolab(&["export", "1", "--format", "json", "--db", dbs]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let nasty = "<!--<script> & \u{2028}";
    let text = export
        .stdout
        .replace("libaio", nasty.trim_end_matches('\u{2028}'));
    let mut run: Value = serde_json::from_str(&text).unwrap();
    for j in run["jobs"].as_array_mut().unwrap() {
        if j["engine"] != "psync" {
            j["engine"] = Value::from(nasty);
            j["name"] = Value::from(format!("{nasty} job"));
        }
    }
    let file = tmp.path().join("nasty.json");
    std::fs::write(&file, run.to_string()).unwrap();
    let imported = iolab(&["import", file.to_str().unwrap(), "--db", dbs]);
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    let page = tmp.path().join("nasty.html");
    let r = iolab(&["report", "2", "-o", page.to_str().unwrap(), "--db", dbs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<!--<script>"), "never raw in the page");
    if let Some(v) = check_in_browser(&page, "iolab-report-markup.png") {
        let charts = v["charts"].as_array().unwrap();
        assert!(charts.len() >= 2, "the distribution charts: {v}");
    }
}
