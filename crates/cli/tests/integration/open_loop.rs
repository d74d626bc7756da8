//! iolab's open loop (`rate_open_loop`): points up to 80 % of a target's peak achieve what
//! they offer, 110 % says it was not carried, and a stall shows in the response time (from
//! each I/O's due time) where fio's `lat` hides it (coordinated omission).

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::{device_lock, iolab_json, test_db, zram};

/// A target and the engine that drives it near its peak on this machine.
struct Target {
    what: &'static str,
    args: Vec<String>,
}

fn targets(dir: &std::path::Path) -> Vec<Target> {
    let file = dir.join("f");
    let mut v = vec![Target {
        what: "a cached file, psync",
        args: vec![
            format!("--filename={}", file.display()),
            "--size=64m".into(),
            "--invalidate=0".into(),
            "--ioengine=psync".into(),
        ],
    }];
    match zram() {
        Ok(dev) => v.push(Target {
            what: "zram, libaio QD8",
            args: vec![
                format!("--filename={}", dev.display()),
                "--size=64m".into(),
                "--allow-destroy".into(),
                "--ioengine=libaio".into(),
                "--direct=1".into(),
                "--iodepth=8".into(),
            ],
        }),
        Err(why) => eprintln!("skipped zram: {why}"),
    }
    v
}

fn run(t: &Target, extra: &[&str]) -> Value {
    let mut a: Vec<String> = vec![
        "--name=ol".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        "--time_based".into(),
    ];
    a.extend(t.args.iter().cloned());
    a.extend(extra.iter().map(|s| s.to_string()));
    iolab_json(&a)
}

fn read(doc: &Value) -> &Value {
    &doc["jobs"][0]["read"]
}

fn pct_us(h: &Value, p: &str) -> f64 {
    h["percentile"][p].as_f64().unwrap_or(f64::NAN) / 1e3
}

/// One open-loop point's figures, as `iolab run` put them in its JSON.
struct OlPoint {
    offered: f64,
    achieved: f64,
    late_p99_us: f64,
    carried: bool,
    behind: Option<String>,
    why: String,
    cpu_wait_ns: Option<f64>,
}

/// One open-loop point at `share` of `peak`.
fn point(t: &Target, peak: f64, share: f64) -> OlPoint {
    let rate = format!("--rate_iops={}", (peak * share) as u64);
    let doc = run(t, &["--runtime=2", &rate, "--rate_open_loop=1"]);
    let o = &read(&doc)["iolab"];
    let p = OlPoint {
        offered: o["offered_iops"].as_f64().unwrap(),
        achieved: o["achieved_iops"].as_f64().unwrap(),
        late_p99_us: pct_us(&o["issue_lateness_ns"], "99.000000"),
        carried: o["sustained"].as_bool().unwrap(),
        behind: o["behind"].as_str().map(String::from),
        why: o["behind_why"].as_str().unwrap_or("").to_string(),
        cpu_wait_ns: o["generator_cpu_wait_ns"].as_f64(),
    };
    eprintln!(
        "{}: peak {peak:.0}, {:.0} %: offered {:.0}, achieved {:.0}, lateness p99 {:.1} us, \
         carried {} {:?} {}, generator waited {:?} ns",
        t.what,
        share * 100.0,
        p.offered,
        p.achieved,
        p.late_p99_us,
        p.carried,
        p.behind,
        p.why,
        p.cpu_wait_ns
    );
    p
}

/// Why an attempt did not pass: the machine's other work (the generator waited for a CPU,
/// and iolab said so), or a wrong figure or claim.
enum Failed {
    Busy(String),
    Wrong(String),
}

/// One attempt on `t`: the peak, then 50 %, 80 % and 110 % of it.
fn attempt(t: &Target) -> Result<(), Failed> {
    let peak = read(&run(t, &["--runtime=1"]))["iops"].as_f64().unwrap();
    for share in [0.5, 0.8] {
        let p = point(t, peak, share);
        if p.behind.as_deref() == Some("generator") {
            // The claim comes with its reason: the late tail or the thread's wait.
            if p.carried || !(p.why.contains("lateness p99") || p.why.contains("waited")) {
                return Err(Failed::Wrong(format!(
                    "generator behind at {share} without a reason: {:?}, carried {}",
                    p.why, p.carried
                )));
            }
            return Err(Failed::Busy(p.why));
        }
        if (p.achieved / p.offered - 1.0).abs() > 0.02 {
            return Err(Failed::Wrong(format!(
                "{} of {} offered at {share}",
                p.achieved, p.offered
            )));
        }
        if !p.late_p99_us.is_finite() {
            return Err(Failed::Wrong("no lateness p99".into()));
        }
        if share <= 0.5 && (p.late_p99_us >= 50.0 || !p.carried) {
            return Err(Failed::Wrong(format!(
                "p99 lateness {} us at {share} of the peak, carried {} ({})",
                p.late_p99_us, p.carried, p.why
            )));
        }
    }
    let p = point(t, peak, 1.1);
    match p.carried {
        true => Err(Failed::Wrong("110 % of the peak said carried".into())),
        false => Ok(()),
    }
}

/// Up to 80 % of the peak the schedule holds its rate (and at 50 % issues on time and
/// carries); 110 % is said not carried. The figures depend on the machine being quiet: the
/// test suite runs other tests beside this one on two cores. A point whose schedule fell
/// behind with the load done must say "generator behind" with its reason, and the attempt
/// is taken again, three at most, each from a fresh peak; when all three were the machine's,
/// the test says so and passes on the claims it could check.
#[test]
fn open_loop_points_achieve_their_load_up_to_80_percent_and_110_is_not_carried() {
    let _dev = device_lock();
    let dir = tempfile::tempdir().unwrap();
    for t in targets(dir.path()) {
        let (mut wrong, mut busy) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            match attempt(&t) {
                Ok(()) => break,
                Err(Failed::Busy(why)) => busy.push(why),
                Err(Failed::Wrong(why)) => wrong.push(why),
            }
        }
        assert!(
            wrong.len() + busy.len() < 3 || wrong.is_empty(),
            "{}: {wrong:#?} {busy:#?}",
            t.what
        );
        if busy.len() == 3 {
            eprintln!(
                "{}: the machine was too busy in every attempt: {busy:#?}",
                t.what
            );
        }
    }
}

/// The worker stopped for 200 ms at half the peak: every I/O due meanwhile waits, so the
/// response time's p99.9 is past 100 ms, while fio's `lat` (from issue) stays small, in the
/// open loop and in fio's closed loop alike.
#[test]
fn a_stall_shows_in_response_time_and_not_in_fios_lat() {
    let _dev = device_lock();
    let dir = tempfile::tempdir().unwrap();
    let t = &targets(dir.path())[0];
    let peak = read(&run(t, &["--runtime=1"]))["iops"].as_f64().unwrap();
    let rate = format!("--rate_iops={}", (peak * 0.5) as u64);
    for open in ["1", "0"] {
        let mut a: Vec<String> = vec![
            "run".into(),
            "--name=ol".into(),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--time_based".into(),
            "--runtime=3".into(),
            "--lat_percentiles=1".into(),
            "--output-format=json".into(),
            rate.clone(),
            format!("--rate_open_loop={open}"),
        ];
        a.extend(t.args.iter().cloned());
        let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .env("IOLAB_DB", test_db())
            .args(&a)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: signals to our own child, which is still running (it runs 3 s).
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        std::thread::sleep(Duration::from_millis(200));
        unsafe { libc::kill(pid, libc::SIGCONT) };
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let r = read(&doc);
        let lat = pct_us(&r["lat_ns"], "99.900000");
        assert!(lat < 50_000.0, "lat p99.9 {lat} us (open={open})");
        if open == "1" {
            let resp = pct_us(&r["iolab"]["response_ns"], "99.900000");
            eprintln!("stalled 200 ms: response p99.9 {resp:.0} us, lat p99.9 {lat:.1} us");
            assert!(resp >= 100_000.0, "response p99.9 {resp} us");
        } else {
            assert!(
                r.get("iolab").is_none(),
                "a closed loop has no response time"
            );
        }
    }
}

/// An open loop needs a schedule, and nothing else may pace it: each refused with one line
/// and status 2.
#[test]
fn an_open_loop_without_a_rate_or_with_another_pace_is_refused() {
    for extra in [
        &["--rate_open_loop=1"][..],
        &["--rate_open_loop=1", "--rate_iops=100", "--thinktime=10"],
    ] {
        let mut a = vec!["run", "--name=x", "--size=1m", "--ioengine=null"];
        a.extend_from_slice(extra);
        let o = crate::support::iolab(&a);
        assert_eq!(o.code, 2, "{extra:?}: {}", o.stderr);
        assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
        assert!(o.stderr.contains("rate_open_loop"), "{}", o.stderr);
    }
}

/// fio's `io_submit_mode=offload` under a rate is the open loop: fio's fixed-rate example
/// (libaio, iodepth=32, direct, `rate_iops=1000`) shrunk to 1 MiB moves the same 256 I/Os
/// at the offered rate, and reports the schedule beside fio's figures.
#[test]
fn fios_offload_under_a_rate_runs_as_the_open_loop() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let a: Vec<String> = [
        "--name=fixed-rate-submit",
        "--size=1m",
        "--rw=read",
        "--ioengine=libaio",
        "--iodepth=32",
        "--direct=1",
        "--io_submit_mode=offload",
        "--rate_iops=1000",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--filename={}", file.display())])
    .collect();
    let doc = iolab_json(&a);
    let r = read(&doc);
    assert_eq!(r["total_ios"], 256, "{r}");
    let o = &r["iolab"];
    assert_eq!(o["offered_iops"].as_f64(), Some(1000.0), "{o}");
    let achieved = o["achieved_iops"].as_f64().unwrap();
    assert!((achieved / 1000.0 - 1.0).abs() < 0.05, "{achieved} IOPS");
}

/// `iolab run --load-curve` curves any job: the peak, then each share open loop, a table
/// with offered against achieved and the overload not carried; in JSON every point's fio
/// document; loads mixing shares and IOPS refused.
#[test]
fn load_curve_runs_any_job_at_each_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let db = db.to_str().unwrap();
    let job = [
        "run",
        "--name=c",
        "--ioengine=null",
        "--size=1g",
        "--rw=randread",
        "--time_based",
        "--runtime=300ms",
        "--db",
        db,
    ];
    let mut a = job.to_vec();
    a.push("--load-curve=20%,50%,200%");
    let o = crate::support::iolab(&a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: Vec<&str> = o.stdout.lines().filter(|l| l.contains(" read ")).collect();
    assert_eq!(rows.len(), 4, "{}", o.stdout);
    assert!(rows[0].starts_with("| peak"), "{}", o.stdout);
    // The null engine never falls behind at 20 %; the generator, at millions of I/Os per
    // second, may be late in its tail on a busy machine, and says so.
    let row1 = rows[1].trim_end();
    assert!(
        row1.ends_with(" yes |") || row1.ends_with(" no: generator |"),
        "{row1}"
    );
    assert!(
        rows[3].contains(" no: device |") || rows[3].contains(" no: generator |"),
        "200 % carried: {}",
        rows[3]
    );
    let shown = crate::support::iolab(&["show", "1", "--db", db]);
    assert!(shown.stdout.contains("c@50%"), "{}", shown.stdout);
    assert!(shown.stdout.contains("Open loop"), "{}", shown.stdout);

    let mut a = job.to_vec();
    a.extend(["--load-curve=20000,50000", "--output-format=json"]);
    let window = crate::support::Window::open();
    let o = crate::support::iolab(&a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    let pts = doc["iolab_load_curve"].as_array().unwrap();
    assert_eq!(pts.len(), 2, "no peak run for loads in IOPS");
    let r = &pts[1]["result"]["jobs"][0]["read"];
    assert_eq!(r["iolab"]["offered_iops"], 50000.0);
    // The offered load is the machine's to keep: beside other work the generator falls
    // behind (46.7k of 50k beside two CPU hogs), and says so.
    let iops = r["iops"].as_f64().unwrap();
    let figures = format!("{iops} IOPS of 50000 offered");
    let ok = (iops / 50000.0 - 1.0).abs() < 0.02;
    assert!(
        crate::support::holds_or_busy_in(ok, Some(&window), "an offered load", &figures),
        "{r:#}"
    );

    let mut a = job.to_vec();
    a.extend(["--load-curve=50%", "--write_lat_log=/tmp/iolab-curve-never"]);
    let o = crate::support::iolab(&a);
    assert_eq!(o.code, 2, "logs are refused: {}", o.stderr);
    assert!(o.stderr.contains("write_*_log"), "{}", o.stderr);

    let mut a = job.to_vec();
    a.push("--load-curve=50%,20000");
    let o = crate::support::iolab(&a);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
}
