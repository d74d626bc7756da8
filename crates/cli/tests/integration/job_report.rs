//! The report of a user's own job file (not a review): a chart per job that draws in a real
//! browser, a page and saved images that name the device and the day, `compare`'s verdicts
//! in the page of two runs, and the CSV a spreadsheet takes from `compare`, `history` and
//! `export --wide`.

use std::path::Path;

use crate::report::check_in_browser;
use crate::support::browser::Browser;
use crate::support::iolab;

const JOBS: [&str; 3] = ["qd1-read", "qd4-read", "qd4-write"];

/// Three jobs on `file`: QD1 and QD4 random reads, a QD4 random write, one after another.
fn job_file(dir: &Path, file: &Path) -> std::path::PathBuf {
    let path = dir.join("three.fio");
    std::fs::write(
        &path,
        format!(
            "[global]\nfilename={}\nsize=16m\ndirect=1\nruntime=1\ntime_based\n\
             ioengine=io_uring\nbs=4k\n\n[qd1-read]\nrw=randread\niodepth=1\n\n\
             [qd4-read]\nstonewall\nrw=randread\niodepth=4\n\n\
             [qd4-write]\nstonewall\nrw=randwrite\niodepth=4\n",
            file.display()
        ),
    )
    .unwrap();
    path
}

/// CSV lines split into fields (no field here holds a comma).
fn rows(csv: &str) -> Vec<Vec<String>> {
    let lines = csv
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect());
    lines.collect()
}

#[test]
fn a_job_file_run_with_repeats_gets_charts_per_job_verdicts_and_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let jobs = job_file(tmp.path(), &tmp.path().join("scratch"));
    for windows in ["--latency-windows=250ms", "--eta=never"] {
        let (j, r) = (jobs.to_str().unwrap(), "--repeat=2");
        let out = iolab(&["run", j, r, windows, "--db", dbs]);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }

    // One run's page: a chart per job, the page titled by the device.
    let page = tmp.path().join("one.html");
    let r = iolab(&["report", "1", "-o", page.to_str().unwrap(), "--db", dbs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&page).unwrap();
    let show = iolab(&["show", "1", "--output-format=json", "--db", dbs]);
    let run: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    let disk = run["jobs"][0]["disk"].as_str().unwrap_or("").to_string();
    let title = html
        .split("<title>")
        .nth(1)
        .unwrap()
        .split("</title>")
        .next()
        .unwrap();
    assert!(
        !disk.is_empty() && title.contains(&disk),
        "{title} names {disk}"
    );
    for i in 0..JOBS.len() {
        for chart in ["iops", "bandwidth", "latency-time", "nines", "histogram"] {
            let id = format!("id=\"job-{i}-{chart}\"");
            assert!(html.contains(&id), "{id}");
        }
    }
    assert!(html.contains("id=\"jobs-iops\"") && html.contains("id=\"jobs-by-iodepth-iops\""));
    assert!(
        !html.contains("class=\"verdicts\""),
        "no verdicts for one run"
    );
    // Under 1.5 MB with plotly's basic bundle.
    assert!(html.len() < 1_500_000, "{} bytes", html.len());
    if let Some(v) = check_in_browser(&page, "iolab-report-jobs.png") {
        let ids: Vec<&str> = v["charts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        for i in 0..JOBS.len() {
            assert!(
                ids.iter().any(|id| id.starts_with(&format!("job-{i}-"))),
                "{ids:?}"
            );
        }
        drawn_titles_and_saved_names(&page, &disk, &run);
    }

    // Two runs: the verdict table, a row per job, direction and figure.
    let both = tmp.path().join("two.html");
    let r = iolab(&[
        "report",
        "1",
        "2",
        "-o",
        both.to_str().unwrap(),
        "--db",
        dbs,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&both).unwrap();
    let second = tmp.path().join("second.html");
    let r = iolab(&["report", "2", "-o", second.to_str().unwrap(), "--db", dbs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let alone = std::fs::read_to_string(&second).unwrap();
    assert!(
        alone.contains("Latency over time was not kept"),
        "run 2 kept none"
    );
    assert!(!alone.contains("-latency-time\""));
    let table = html
        .split("<table class=\"verdicts\">")
        .nth(1)
        .expect("verdict table");
    let table = table.split("</table>").next().unwrap();
    assert_eq!(
        table.matches("<tr class=").count(),
        3 * JOBS.len(),
        "{table}"
    );
    for j in JOBS {
        assert!(table.contains(&format!("<td>{j}</td>")), "{j}");
    }
    check_in_browser(&both, "iolab-report-jobs-two.png");

    // CSV: a header and a row per job (and direction; each job here has one).
    let c = iolab(&["compare", "1", "2", "--output-format=csv", "--db", dbs]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let t = rows(&c.stdout);
    assert_eq!(t.len(), 1 + JOBS.len(), "{}", c.stdout);
    assert_eq!(t[0][..3], ["job", "direction", "run1_iops"]);
    let verdict = t[0]
        .iter()
        .position(|h| h == "run2_vs_run1_iops_verdict")
        .unwrap();
    for (row, job) in t[1..].iter().zip(JOBS) {
        assert_eq!(row.len(), t[0].len());
        assert_eq!(row[0], job);
        assert!(row[2].parse::<f64>().unwrap() > 0.0, "IOPS: {row:?}");
        assert!(!row[verdict].is_empty(), "a verdict: {row:?}");
    }
    let h = iolab(&["history", "--output-format=csv", "--db", dbs]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    let t = rows(&h.stdout);
    assert_eq!(
        t.len(),
        1 + 2 * JOBS.len(),
        "a row per job per run: {}",
        h.stdout
    );
    let (run_col, job_col) = (0, t[0].iter().position(|x| x == "job").unwrap());
    let repeats = t[0].iter().position(|x| x == "repeats").unwrap();
    for row in &t[1..] {
        assert_eq!(row.len(), t[0].len());
        assert!(["1", "2"].contains(&row[run_col].as_str()));
        assert!(JOBS.contains(&row[job_col].as_str()));
        assert_eq!(row[repeats], "2");
    }
    let w = iolab(&["export", "1", "--format", "csv", "--wide", "--db", dbs]);
    assert_eq!(w.code, 0, "{}", w.stderr);
    assert_eq!(rows(&w.stdout).len(), 1 + JOBS.len(), "{}", w.stdout);
    let bad = iolab(&["export", "1", "--wide", "--db", dbs]);
    assert_eq!(bad.code, 2, "--wide is CSV's");
    assert_eq!(bad.stderr.trim().lines().count(), 1, "{}", bad.stderr);
}

/// In the drawn page every chart's title carries the device, host and day, and a saved PNG
/// is named by the chart, the device and the day.
fn drawn_titles_and_saved_names(page: &Path, disk: &str, run: &serde_json::Value) {
    let Ok(mut b) = Browser::launch() else { return };
    b.open(page).unwrap();
    let titles = b
        .eval(
            "Array.from(document.querySelectorAll('div.chart')).map(d => d._fullLayout.title.text)",
        )
        .unwrap();
    let host = run["host"]["hostname"].as_str().unwrap();
    let ms = run["started_ms"].as_i64().unwrap();
    let day = chrono_day(ms);
    for t in titles.as_array().unwrap() {
        let t = t.as_str().unwrap();
        assert!(
            t.contains(disk) && t.contains(host) && t.contains(&day),
            "{t}"
        );
    }
    let name = crate::report::saved_name(&mut b, "png");
    assert!(
        name.ends_with(".png") && name.contains(disk) && name.contains(&day),
        "{name}"
    );
}

/// The UTC day of a Unix time in ms, `2026-11-28` (`date -u` does the calendar).
fn chrono_day(ms: i64) -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{}", ms / 1000), "+%F"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
