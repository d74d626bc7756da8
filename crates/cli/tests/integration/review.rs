//! `iolab review` end to end: a `--quick` review on the default scratch file and on
//! /dev/zram0 (every step in the store, the tables printed), an interrupted review keeping
//! its finished points, and bad input refused before anything is written.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{device_lock, iolab, zram};

const STEPS: [&str; 10] = [
    "info",
    "precondition",
    "qd1-engines",
    "qd-sweep",
    "load",
    "transfer-size",
    "profiles",
    "consistency",
    "poll-vs-irq",
    "software-floor",
];

fn show(db: &str, run: i64) -> Value {
    let out = iolab(&["show", &run.to_string(), "--db", db, "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn step<'a>(run: &'a Value, name: &str) -> &'a Value {
    run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {:#}", run["steps"]))
}

fn jobs_of<'a>(run: &'a Value, step: &str) -> Vec<&'a Value> {
    run["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["step"] == step)
        .collect()
}

/// What every complete quick review must hold, whatever the target.
fn check_complete_review(run: &Value, stdout: &str) {
    assert_eq!(run["kind"], "review");
    assert_eq!(run["status"], "ok");
    let names: Vec<&str> = run["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, STEPS);
    for s in run["steps"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        // Printed as it finished, and kept for `iolab show`.
        assert!(stdout.contains(&format!(". {name} — ")), "{name} heading");
        let text = s["data"]["text"].as_str().unwrap();
        assert!(stdout.contains(text.lines().next().unwrap_or("")));
        if name == "poll-vs-irq" {
            // Neither a VM disk nor zram has poll queues: the step says why.
            assert_eq!(s["status"], "skipped", "{s:#}");
            assert!(s["reason"].as_str().unwrap().contains("no poll queues"));
        } else {
            assert_eq!(s["status"], "ok", "{name}: {s:#}");
        }
    }
    // qd1-engines: 8 paths × 2 workloads, measured or explained.
    let cells = step(run, "qd1-engines")["data"]["cells"]
        .as_array()
        .unwrap();
    assert_eq!(cells.len(), 16);
    assert!(cells.iter().all(
        |c| c["figures"]["iops"].as_f64().unwrap_or(0.0) > 0.0 || c["unavailable"].is_string()
    ));
    assert!(stdout.contains("| IOPS ") && stdout.contains("99.999th Percentile Latency"));
    // qd-sweep: QD 1..16, 24, 32 for reads and writes, a saturation point for each.
    let sweep = &step(run, "qd-sweep")["data"];
    assert_eq!(sweep["points"].as_array().unwrap().len(), 2 * 18);
    // A saturation from the fit, with its range, or undetermined with the reason (a noisy
    // machine's short points scatter more than the tolerance tells).
    for rw in ["randread", "randwrite"] {
        let sat = &sweep["saturation"][rw];
        match sat["qd"].as_u64() {
            Some(qd) => {
                assert!((1..=32).contains(&qd), "{rw} saturation {qd}");
                let r = &sat["qd_range"];
                assert!(
                    r[0].as_u64().unwrap() <= qd && qd <= r[1].as_u64().unwrap(),
                    "{sat}"
                );
            }
            None => {
                let why = sat["undetermined"]
                    .as_str()
                    .expect("a saturation or why not");
                assert!(stdout.contains(&format!("- {rw}: saturation undetermined: {why}")));
                eprintln!("{rw} saturation undetermined: {why}");
            }
        }
    }
    assert_eq!(jobs_of(run, "qd-sweep").len(), 36);
    assert!(stdout.contains("saturation QD"));
    // load: per workload the sweep's peak and the quick loads, open loop, each point
    // offered and achieved, with its response time beside fio's lat.
    // An objective (--slo) adds up to 3 bisected loads per workload.
    let load = &step(run, "load")["data"];
    let refine = if load["slo"].is_null() { 0 } else { 3 };
    let mut load_points = 0;
    let curves = load["curves"].as_array().unwrap();
    assert_eq!(curves.len(), 3, "read, write and the 70/30 mix");
    for c in curves {
        // The sweep's peak where it found a saturation it trusts; else one of its own.
        let from = if c["rw"] == "randrw"
            || sweep["saturation"][c["rw"].as_str().unwrap()]["qd"].is_null()
        {
            "closed loop at the deepest queue"
        } else {
            "the sweep's"
        };
        assert_eq!(c["peak_from"], from, "{c:#}");
        let pts = c["points"].as_array().unwrap();
        assert!((8..=8 + refine).contains(&pts.len()), "{c:#}");
        load_points += pts.len();
        for p in pts {
            assert!(p["achieved_iops"].as_f64().unwrap() > 0.0, "{p:#}");
            assert!(
                p["response_p99_ns"].as_f64().unwrap() >= p["lat_p99_ns"].as_f64().unwrap() * 0.9,
                "{p:#}"
            );
        }
        // A light load is carried (10 or 20 % of the peak: one of them, since the test
        // suite's other tests share the virtio disk and may disturb one point), unless iolab
        // said the machine held up its generator, with the wait it measured.
        let light = |p: &Value| {
            let generator = p["behind"] == "generator";
            if generator {
                assert!(
                    p["generator_cpu_wait_ns"].is_u64(),
                    "the wait is measured: {c:#}"
                );
                eprintln!("the machine held up a light load: {p:#}");
            }
            p["carried"] == true || generator
        };
        // A busy machine can hold up both light points beyond the generator's own account
        // (the device's share then counts the wait): a skip with the figures, never a pass.
        assert!(
            crate::support::holds_or_busy(pts[..2].iter().any(light), "a light load carried"),
            "{c:#}"
        );
    }
    // The mix's peak is a point of its own; a point the generator fell behind in is saved
    // once per take, each take after the first saying so in its name.
    let load_jobs = jobs_of(run, "load");
    let retakes = load_jobs
        .iter()
        .filter(|j| j["name"].as_str().unwrap_or("").contains("-taken-again-"))
        .count();
    let own_peaks = curves
        .iter()
        .filter(|c| c["peak_from"] == "closed loop at the deepest queue")
        .count();
    assert_eq!(load_jobs.len(), load_points + own_peaks + retakes);
    // On a busy machine the schedule falls behind and the knee is honestly undetermined,
    // with how many points measured the machine: said, and counted as a skip in part.
    match stdout.lines().find(|l| l.contains("- knee undetermined: ")) {
        Some(line) => println!("skipped: busy: the load step's knee: {}", line.trim()),
        None => assert!(
            stdout.contains("- knee at ") || stdout.contains("- no knee up to"),
            "the load step names its knee"
        ),
    }
    // transfer-size: 12 sizes × 6 variants, less the 512 B-aligned duplicates at 512 B.
    let xfer = step(run, "transfer-size")["data"]["points"]
        .as_array()
        .unwrap();
    assert_eq!(xfer.len(), 12 * 6 - 2);
    // profiles: 4 profiles × read and write, all measured.
    let prof = step(run, "profiles")["data"]["points"].as_array().unwrap();
    assert_eq!(prof.len(), 8);
    assert!(prof
        .iter()
        .all(|p| p["figures"]["iops"].as_f64().unwrap() > 0.0));
    // consistency: 5 one-second windows per direction in --quick.
    for w in step(run, "consistency")["data"]["workloads"]
        .as_array()
        .unwrap()
    {
        assert_eq!(w["seconds"], 5, "{w:#}");
        assert!(w["p99_median_ns"].as_f64().unwrap() > 0.0);
    }
    // software-floor: the null engine's cost, and a split per engine.
    let floor = &step(run, "software-floor")["data"];
    assert!(floor["null_ns"].as_f64().unwrap() > 0.0);
    assert_eq!(floor["engines"].as_array().unwrap().len(), 4);
}

/// Issue 69: the page carries the precondition, the device and host facts and the software
/// floor as sections; every load curve's caveats (its knee or why none, the points left out)
/// beside its chart; and a summary box whose every measured row names its source cell.
fn check_page_says_what_the_terminal_says(html: &str) {
    for id in ["summary", "info", "precondition", "floor"] {
        assert!(
            html.contains(&format!("<section id=\"{id}\">")),
            "no {id} section"
        );
    }
    let load = &html[html.find("<section id=\"load\">").expect("a load section")..];
    let load = &load[..load.find("</section>").unwrap()];
    assert!(
        load.contains("<p class=\"note caveat\">knee at ")
            || load.contains("<p class=\"note caveat\">no knee up to")
            || load.contains("<p class=\"note caveat\">knee undetermined"),
        "no knee caveat beside the load chart"
    );
    let summary = &html[html.find("<table class=\"summary-figures\">").unwrap()..];
    let summary = &summary[..summary.find("</table>").unwrap()];
    let rows: Vec<&str> = summary.split("<tr>").skip(2).collect();
    assert!(!rows.is_empty(), "{summary}");
    for row in &rows {
        for cell in row.split("<td").skip(3) {
            assert!(
                cell.contains("class=\"src\">") || cell.starts_with(" class=\"na\""),
                "a summary cell without its source: {cell}"
            );
        }
    }
    assert!(
        summary.contains("RND4K Q1T1") && summary.contains("qd1-engines · "),
        "{summary}"
    );
    assert!(
        !summary.contains("SEQ1M Q8T1"),
        "a row the review never runs: {summary}"
    );
}

/// The report of a complete review has every section with data, checked in a real browser;
/// with a kv run added, the application section too.
fn check_review_report(page: &std::path::Path, db: &str) {
    let html = std::fs::read_to_string(page).unwrap();
    for id in [
        "header",
        "qd1",
        "sweep",
        "load",
        "transfer",
        "distribution",
        "consistency",
        "profiles",
        "ladder",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{id}\">")),
            "no {id} section"
        );
    }
    assert!(
        html.contains("saturates at QD") || html.contains("saturation undetermined: "),
        "the saturation point is marked, or the page says why not"
    );
    check_page_says_what_the_terminal_says(&html);
    assert!(
        html.contains("not measured"),
        "poll-vs-irq says why it is missing"
    );
    // pvsync2+hipri on a device without poll queues completes by interrupt: the report says
    // so beside the cell and never stars it (the terminal's note, carried to the page).
    if html.contains("ignores RWF_HIPRI") {
        assert!(
            html.contains("<td class=\"fallback\""),
            "hipri cell not marked"
        );
        assert!(html.contains("pvsync2+hipri: not the path asked for, never marked best"));
    } else {
        eprintln!("note: the target has poll queues here; the hipri fallback check is moot");
    }
    if let Some(v) = crate::report::check_in_browser(page, "iolab-report-review.png") {
        let ids: Vec<&str> = v["charts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        // A load curve whose every point the generator fell behind in (a busy machine) is
        // said in its chart's place, not drawn empty.
        for rw in ["randread", "randwrite", "randrw"] {
            let id = format!("load-{rw}");
            let said = html.contains(&format!("4 KiB {rw}: no point of this curve is drawn"));
            assert!(
                ids.contains(&id.as_str()) || said,
                "no chart {id} in {ids:?}, and no note"
            );
        }
        for id in [
            "sweep-iops",
            "sweep-latency",
            "transfer-random",
            "transfer-sequential",
            "distribution-randread",
            "distribution-randwrite",
            "consistency-randread",
            "consistency-randwrite",
            "latency-ladder",
        ] {
            assert!(ids.contains(&id), "no chart {id} in {ids:?}");
        }
        // The latency split (root and the kernel's BTF; the scratch file's disk is
        // request-based here): its parts and the tail's account, and the ladder's device part.
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if root && std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
            for id in ["split-parts", "split-tail"] {
                assert!(ids.contains(&id), "no chart {id} in {ids:?}");
            }
            assert!(
                html.contains(": device part"),
                "the ladder has no device part"
            );
        } else {
            eprintln!("note: no latency split here (not root or no BTF): its charts are moot");
        }
    }
    if std::process::Command::new("db_bench")
        .arg("--version")
        .output()
        .is_ok()
    {
        let kv = iolab(&["kv", "--num", "20000", "--workloads", "fillseq", "--db", db]);
        assert_eq!(kv.code, 0, "{}", kv.stderr);
        let both = page.with_file_name("both.html");
        let r = iolab(&["report", "1", "2", "-o", both.to_str().unwrap(), "--db", db]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let html = std::fs::read_to_string(&both).unwrap();
        assert!(html.contains("<section id=\"application\">"));
        if let Some(v) = crate::report::check_in_browser(&both, "iolab-report-review-kv.png") {
            assert_eq!(v["sections"].as_array().unwrap().last().unwrap(), "ladder");
        }
    }
}

#[test]
fn a_quick_review_on_the_scratch_file_keeps_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let page = dir.path().join("review.html");
    let t = Instant::now();
    let out = iolab(&[
        "review",
        "--quick",
        "--slo",
        "p99:50ms",
        "--db",
        db,
        "--report",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    eprintln!(
        "quick review on the scratch file: {:.0} s",
        t.elapsed().as_secs_f64()
    );
    assert!(out.stderr.contains("report written to"), "{}", out.stderr);
    check_review_report(&page, db);
    // The objective's point is marked on the load chart (a VM disk meets p99 ≤ 50 ms at a
    // light load when the machine is quiet), or the page says what the terminal said: that no
    // load met it, or that no point of the curve could be drawn.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(out.stdout.contains("- p99:50ms: "), "{}", out.stdout);
    if out.stdout.contains("- p99:50ms: not met at any load") {
        assert!(
            html.contains("p99:50ms: not met at any load"),
            "the terminal says the objective was not met; the page does not"
        );
    } else {
        assert!(
            html.contains("p99:50ms: ") || html.contains("no point of this curve is drawn"),
            "no objective mark on the load chart, and no note why"
        );
    }
    assert!(out.stderr.contains("saved as run 1 in"), "{}", out.stderr);
    let run = show(db, 1);
    check_complete_review(&run, &out.stdout);
    assert_eq!(run["meta"]["profile"], "quick");
    assert_eq!(run["meta"]["scratch"], true);
    // The scratch file is gone with its directory.
    let target = run["meta"]["target"].as_str().unwrap();
    assert!(!std::path::Path::new(target).exists());
    // The precondition wrote the whole 256 MiB scratch file once.
    let pre = jobs_of(&run, "precondition");
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["metrics"]["write"]["bytes"], 268435456.0);
    // `iolab show` prints the steps' tables again; compare sets reviews side by side.
    let shown = iolab(&["show", "1", "--db", db]);
    assert!(shown.stdout.contains("## 4. qd-sweep"), "{}", shown.stdout);
    assert!(shown.stdout.contains("saturation QD"));
    let cmp = iolab(&["compare", "1", "1", "--db", db]);
    assert_eq!(cmp.code, 0, "{}", cmp.stderr);
    assert!(cmp.stdout.contains("4k QD16 randread"), "{}", cmp.stdout);
    assert!(cmp.stdout.contains("## run 1: QD1 engines"));
    let hist = iolab(&["history", "--db", db]);
    assert!(hist.stdout.contains("review"), "{}", hist.stdout);
}

#[test]
fn a_quick_review_on_zram() {
    let _g = device_lock();
    let dev = match zram() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("skipped zram review: {why}");
            return;
        }
    };
    let dev = dev.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    // Without --allow-destroy the writing steps are refused up front, nothing recorded.
    let refused = iolab(&["review", dev, "--quick", "--db", db]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--allow-destroy"),
        "{}",
        refused.stderr
    );
    assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
    assert!(
        !std::path::Path::new(db).exists() || iolab(&["history", "--db", db]).stdout.is_empty()
    );
    let page = dir.path().join("zram.html");
    let out = iolab(&[
        "review",
        dev,
        "--quick",
        "--allow-destroy",
        "--size",
        "128m",
        "--db",
        db,
        "--report",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let run = show(db, 1);
    check_complete_review(&run, &out.stdout);
    let html = std::fs::read_to_string(&page).unwrap();
    check_page_says_what_the_terminal_says(&html);
    if let Some(v) = crate::report::check_in_browser(&page, "iolab-report-zram-review.png") {
        let ids: Vec<&str> = v["charts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert!(ids.contains(&"precondition-throughput"), "{ids:?}");
    }
    // zram takes 4 KiB blocks only: smaller transfers are listed with the reason.
    let xfer = step(&run, "transfer-size")["data"]["points"]
        .as_array()
        .unwrap();
    let small = xfer
        .iter()
        .find(|p| p["bs"] == 512 && p["variant"] == "rand read")
        .unwrap();
    assert!(
        small["unavailable"]
            .as_str()
            .unwrap()
            .contains("logical block size"),
        "{small:#}"
    );
    // The target is the RAM device: its kernel share is its whole latency.
    let floor = &step(&run, "software-floor")["data"]["engines"][0];
    assert_eq!(floor["device_ns"], 0.0, "{floor:#}");
    // The precondition deallocated the device with BLKDISCARD.
    assert_eq!(step(&run, "precondition")["data"]["deallocated"], true);
}

#[test]
fn an_interrupted_review_keeps_its_finished_points() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db_s = db.to_str().unwrap().to_string();
    let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "review",
            "--quick",
            "--steps",
            "qd1-engines,qd-sweep",
            "--runtime",
            "200ms",
            "--ramp-time",
            "0",
            "--size",
            "16m",
            "--db",
            &db_s,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the sweep has saved a few points, then interrupt.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the sweep never started");
        std::thread::sleep(Duration::from_millis(200));
        let out = iolab(&["show", "1", "--db", &db_s, "--json"]);
        if out.code != 0 {
            continue;
        }
        let run: Value = serde_json::from_str(&out.stdout).unwrap();
        if jobs_of(&run, "qd-sweep").len() >= 3 {
            break;
        }
    }
    // SAFETY: kill with a valid pid and signal.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), Some(130));
    let run = show(&db_s, 1);
    assert_eq!(run["status"], "interrupted");
    assert_eq!(step(&run, "qd1-engines")["status"], "ok");
    assert_eq!(step(&run, "qd-sweep")["status"], "interrupted");
    let kept = jobs_of(&run, "qd-sweep");
    assert!(kept.len() >= 3 && kept.len() < 36, "{}", kept.len());
    // Every measured QD1 cell is a stored job.
    let measured = step(&run, "qd1-engines")["data"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["figures"].is_object())
        .count();
    assert_eq!(jobs_of(&run, "qd1-engines").len(), measured);
    assert!(kept.iter().all(
        |j| j["metrics"]["read"]["ios"].as_f64().unwrap_or(0.0) > 0.0
            || j["metrics"]["write"]["ios"].as_f64().unwrap_or(0.0) > 0.0
    ));
}

#[test]
fn bad_review_input_is_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    for (args, says) in [
        (vec!["--steps", "sweep"], "unknown step 'sweep'"),
        (vec!["--runtime", "consistency:soon"], "--runtime"),
        (vec!["--tolerance", "150"], "--tolerance"),
        (vec!["/nonexistent/disk"], "/nonexistent/disk"),
        (vec!["--quick", "--full"], "cannot be used with"),
    ] {
        let mut a = vec!["review", "--db", db];
        a.extend(args.iter().copied());
        let out = iolab(&a);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
    }
    assert!(
        !std::path::Path::new(db).exists(),
        "no run recorded for bad input"
    );
}
