//! The PTS report as the pages a vendor publishes: every page docs/pts.md's "Report pages"
//! table names is on the report; each chart's axis titles are the table's; every tick label's
//! unit agrees with the value it stands at, and the quantity the title names; the figures
//! behind a titled unit are the run's own (MB/s, GB and seconds against the JSON); and the
//! report prints to PDF on A4 and Letter with no chart or table past the paper's edge.

use std::path::Path;

use serde_json::{json, Value};

use crate::support::browser::Browser;

/// One row of the table: the ids of a page on the report and its axis titles ("" where the
/// page is a table).
#[derive(Debug)]
pub struct PageRow {
    pub ids: Vec<String>,
    pub x: String,
    pub y: String,
}

/// The "Report pages" table of docs/pts.md.
pub fn report_pages() -> Vec<PageRow> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/pts.md"))
            .unwrap();
    let at = doc.find("## Report pages").expect("a Report pages section");
    let section = &doc[at..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let rows: Vec<PageRow> = section
        .lines()
        .filter(|l| l.starts_with("| R"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            // | # | page | ids | x | y |
            let ids = cells[3]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect();
            PageRow {
                ids,
                x: cells[4].to_string(),
                y: cells[5].to_string(),
            }
        })
        .collect();
    assert!(rows.len() >= 20, "{rows:?}");
    rows
}

/// Per chart: its axes' titles, types, ticks (position, label) and the data drawn on them.
const AXES: &str = r#"(() => Array.from(document.querySelectorAll('div.chart')).map(div => {
  const fl = div._fullLayout || {};
  const axes = ['x', 'y'].map(l => {
    const a = fl[l + 'axis'] || {};
    const data = [];
    for (const t of (div.data || [])) for (const v of (t[l] || [])) if (typeof v === 'number' && isFinite(v)) data.push(v);
    return { title: (a.title && a.title.text) || '', type: a.type,
             ticks: (a._vals || []).map(t => [a.type === 'log' ? Math.pow(10, t.x) : t.x,
                                                String(t.text).replace(/<[^>]*>/g, '')]),
             range: (a.range || []).map(r => a.type === 'log' ? Math.pow(10, r) : r),
             lo: Math.min(...data), hi: Math.max(...data) };
  });
  const t = div.querySelector('.gtitle');
  const b = t ? t.getBBox() : { x: 0, width: 0 };
  return { id: div.id, axes, title_from: b.x, title_to: b.x + b.width, width: fl.width || 0 };
}))()"#;

/// What a tick label measures.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Time,
    Size,
    Plain,
}

/// A tick label's value in the axis' own coordinates (seconds for a time, bytes for a
/// size) and what it measures: `100 µs`, `2.5ms`, `4 KiB`, `12k`, `0.5`.
fn tick_value(label: &str) -> Option<(f64, Kind)> {
    let s = label.replace(['\u{2212}'], "-").replace(' ', "");
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let n: f64 = s[..end].parse().ok()?;
    let (m, kind) = match &s[end..] {
        "" => (1.0, Kind::Plain),
        "k" => (1e3, Kind::Plain),
        "M" => (1e6, Kind::Plain),
        "G" => (1e9, Kind::Plain),
        "m" => (1e-3, Kind::Plain),
        "s" => (1.0, Kind::Time),
        "ms" => (1e-3, Kind::Time),
        "µs" | "μs" => (1e-6, Kind::Time),
        "ns" => (1e-9, Kind::Time),
        "B" => (1.0, Kind::Size),
        "KiB" => (1024.0, Kind::Size),
        "MiB" => (1048576.0, Kind::Size),
        "GiB" => (1073741824.0, Kind::Size),
        _ => return None,
    };
    Some((n * m, kind))
}

/// What the axis title says its ticks carry: a response time's are times, a block size's
/// sizes, and every other quantity (a count, or a unit in the title's brackets) plain numbers.
fn expected_kind(title: &str) -> Kind {
    let t = title.to_lowercase();
    if t.contains("response time") {
        Kind::Time
    } else if t.contains("block size") {
        Kind::Size
    } else {
        Kind::Plain
    }
}

/// Every tick of every chart: a label in the unit its title implies, standing at the value
/// it reads (within rounding), the ticks spanning the data drawn.
fn check_units(charts: &Value) {
    for c in charts.as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        // The title within the chart's width: none cut at its ends.
        let (from, to, width) = (
            c["title_from"].as_f64().unwrap_or(0.0),
            c["title_to"].as_f64().unwrap_or(0.0),
            c["width"].as_f64().unwrap_or(0.0),
        );
        assert!(
            from >= -1.0 && to <= width + 1.0,
            "{id}: the title spans {from:.0}..{to:.0} px of a {width:.0} px chart"
        );
        for a in c["axes"].as_array().unwrap() {
            let title = a["title"].as_str().unwrap();
            let want = expected_kind(title);
            let ticks = a["ticks"].as_array().unwrap();
            assert!(!ticks.is_empty(), "{id}: axis {title:?} has no ticks");
            for t in ticks {
                let (at, label) = (t[0].as_f64().unwrap(), t[1].as_str().unwrap());
                let (v, kind) = tick_value(label)
                    .unwrap_or_else(|| panic!("{id}: {title:?}: tick {label:?} unreadable"));
                assert_eq!(kind, want, "{id}: {title:?}: tick {label:?}");
                let tol = 0.051 * at.abs().max(v.abs()) + 1e-12;
                assert!(
                    (v - at).abs() <= tol,
                    "{id}: {title:?}: tick {label:?} stands at {at}"
                );
            }
            // Everything drawn is inside the axis' range: nothing cut off at its ends.
            let (lo, hi) = (a["lo"].as_f64().unwrap(), a["hi"].as_f64().unwrap());
            let r = &a["range"];
            let (r0, r1) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
            let (r0, r1) = (r0.min(r1), r0.max(r1));
            let slack = 1e-6 * (r1 - r0).abs();
            assert!(
                lo >= r0 - slack && hi <= r1 + slack,
                "{id}: {title:?}: data {lo}..{hi} outside the axis' {r0}..{r1}"
            );
        }
    }
}

/// The axis `letter` (0: x, 1: y) of chart `id`: its data range.
fn range(charts: &Value, id: &str, letter: usize) -> (f64, f64) {
    let c = charts
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no chart {id}"));
    let a = &c["axes"][letter];
    (a["lo"].as_f64().unwrap(), a["hi"].as_f64().unwrap())
}

fn near(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 0.01 * a.abs().max(b.abs()) + 1e-9,
        "{what}: drawn {a}, the run's {b}"
    );
}

/// The titled units against the run's own figures: MB/s, GB written, seconds and response
/// times are what the JSON's bytes/s, bytes, rounds and ns make them.
fn check_figures(charts: &Value, run: &Value) {
    let test = |n: &str| -> &Value {
        run["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap()
    };
    let max = |vals: &mut dyn Iterator<Item = f64>| vals.fold(f64::NEG_INFINITY, f64::max);
    let elements = |t: &Value| -> Vec<Value> {
        t["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["elements"].as_array().unwrap().clone())
            .collect()
    };
    // Throughput (MB/s): the tracked bytes/s over 10⁶.
    let tp = test("tp-1024k");
    let tracked = &tp["steady_state"]["variables"][0]["values"];
    let mbs = max(&mut tracked
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap()))
        / 1e6;
    near(range(charts, "pts-tp-1024k-convergence", 1).1, mbs, "MB/s");
    // Written (GB, decimal): every write of the series, over 10⁹.
    let wsat = test("wsat");
    let gb = elements(wsat)
        .iter()
        .map(|e| e["write_bytes"].as_f64().unwrap())
        .sum::<f64>()
        / 1e9;
    near(range(charts, "pts-wsat-written", 0).1, gb, "GB written");
    // Drive fills: the same bytes over the active range's.
    let region = run["pts"]["region_bytes"].as_f64().unwrap();
    near(
        range(charts, "pts-wsat-fills", 0).1,
        gb * 1e9 / region,
        "drive fills",
    );
    // Time (s): rounds of one element time.
    let secs = run["pts"]["element_time_s"].as_f64().unwrap();
    let rounds = wsat["rounds"].as_array().unwrap().len() as f64;
    near(
        range(charts, "pts-wsat-time", 0).1,
        rounds * secs,
        "seconds",
    );
    // Response times, drawn in seconds: the elements' slowest I/O.
    let lat_max = max(&mut elements(test("lat"))
        .iter()
        .map(|e| e["max_ns"].as_f64().unwrap()));
    near(
        range(charts, "pts-lat-max", 1).1 * 1e9,
        lat_max,
        "maximum response time",
    );
}

/// docs/pts.md's pages are all on the report, with its axis titles; units agree; the run's
/// figures stand behind them; and the page prints.
pub fn check_report_pages(page: &Path, run: &Value) {
    let mut b = match Browser::launch() {
        Ok(b) => b,
        Err(why) => return println!("skipped the report pages: {why}"),
    };
    b.open(page).unwrap();
    let charts = b.eval(AXES).unwrap();
    for row in report_pages() {
        for id in &row.ids {
            let there = b
                .eval(&format!("!!document.getElementById({})", json!(id)))
                .unwrap();
            assert_eq!(there, true, "the page {id} is not on the report");
            if row.x.is_empty() {
                continue;
            }
            let c = charts
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id.as_str())
                .unwrap_or_else(|| panic!("{id} is no chart"));
            assert_eq!(c["axes"][0]["title"], row.x.as_str(), "{id}: x axis");
            assert_eq!(c["axes"][1]["title"], row.y.as_str(), "{id}: y axis");
        }
    }
    check_units(&charts);
    check_figures(&charts, run);
    let columns = b
        .eval("document.querySelectorAll('#pts-iops-3d g.column').length")
        .unwrap();
    let cells = run["tests"][0]["rounds"][0]["elements"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        columns.as_u64(),
        Some(cells as u64),
        "a column per IOPS cell"
    );
    check_print(&mut b, page);
}

/// Printed (the print style, at the narrower of A4's and Letter's widths between Chromium's
/// default margins), nothing on the page reaches past the paper; then both papers as PDF.
fn check_print(b: &mut Browser, page: &Path) {
    let width = 718; // A4: 8.27 in less two 0.4 in margins, at 96 px an inch
    b.call("Emulation.setEmulatedMedia", json!({"media": "print"}))
        .unwrap();
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": false}),
    )
    .unwrap();
    let over = b
        .eval(&format!(
            r#"Array.from(document.querySelectorAll('main > section .svg-container, main > section table, figure.pts-3d svg'))
                 .filter(e => e.getClientRects().length > 0 && e.getBoundingClientRect().right > {width} + 1)
                 .map(e => (e.closest('figure, details, section') || e).id + ': ' + Math.round(e.getBoundingClientRect().right))"#
        ))
        .unwrap();
    assert_eq!(over, json!([]), "past the paper's edge when printed");
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("iolab-pts-print.png");
    b.screenshot(&shot, Some(2400.0)).unwrap();
    println!("the report as printed (first 2400 px): {}", shot.display());
    for (paper, w, h) in [("a4", 8.27, 11.69), ("letter", 8.5, 11.0)] {
        let pdf = b
            .call(
                "Page.printToPDF",
                json!({"paperWidth": w, "paperHeight": h, "printBackground": true}),
            )
            .unwrap();
        let bytes = crate::support::browser::base64_decode(pdf["data"].as_str().unwrap()).unwrap();
        assert!(bytes.starts_with(b"%PDF"), "{paper}: not a PDF");
        // Each page object is "/Type /Page" (the tree's root is "/Type /Pages").
        let pages = bytes
            .windows(12)
            .filter(|w| w.starts_with(b"/Type /Page") && w[11] != b's')
            .count();
        assert!(pages > 9, "{paper}: {pages} pages for nine tests");
        let out =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("iolab-pts-report-{paper}.pdf"));
        std::fs::write(&out, &bytes).unwrap();
        println!(
            "{paper}: {} pages, {} bytes: {} (from {})",
            pages,
            bytes.len(),
            out.display(),
            page.display()
        );
    }
}

#[test]
fn ticks_read_as_their_units() {
    let near = |l: &str, v: f64, k: Kind| {
        let (got, kind) = tick_value(l).unwrap();
        assert!(
            (got - v).abs() <= 1e-9 * v && kind == k,
            "{l}: {got} {kind:?}"
        );
    };
    near("100 µs", 100e-6, Kind::Time);
    near("2.5ms", 2.5e-3, Kind::Time);
    assert_eq!(tick_value("4 KiB"), Some((4096.0, Kind::Size)));
    assert_eq!(tick_value("12k"), Some((12e3, Kind::Plain)));
    assert_eq!(tick_value("bananas"), None);
    assert_eq!(expected_kind("Average response time"), Kind::Time);
    assert_eq!(expected_kind("Throughput (MB/s)"), Kind::Plain);
    assert!(report_pages()
        .iter()
        .any(|r| r.ids.contains(&"pts-iops-3d".to_string())));
}
