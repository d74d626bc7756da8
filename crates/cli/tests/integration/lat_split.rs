//! iolab's latency split (`lat_split`): on a file of this machine's disk and on a loop
//! device, io_uring and libaio at QD1 and QD16 join nearly every I/O with its block request,
//! and the three parts add up to fio's `lat`; the device part agrees with bpftrace timing the
//! same requests; and where the kernel cannot say (a bio-based device, no BTF, not root) the
//! run goes on and a note says why.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::{device_lock, iolab, iolab_json, loop_device, test_db, zram};

/// Why this machine cannot split at all, if it cannot: then the tests only check the note.
fn cannot_split() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        return Some("no kernel BTF".into());
    }
    None
}

fn job(target: &Path, engine: &str, depth: u32, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=split",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        "--direct=1",
        "--runtime=1",
        "--time_based",
        "--lat_split=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--filename={}", target.display()));
    a.push(format!("--ioengine={engine}"));
    a.push(format!("--iodepth={depth}"));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn notes(doc: &Value) -> String {
    doc["jobs"][0]["iolab"]["notes"].to_string()
}

/// Checks one run's split: nearly every I/O joined, and the parts' means adding up to the
/// mean `lat` of fio's definition.
fn check_split(doc: &Value, what: &str) {
    let split = &doc["jobs"][0]["iolab"]["lat_split"]["read"];
    assert!(split.is_object(), "{what}: no split; notes {}", notes(doc));
    let issued = split["issued_ios"].as_f64().unwrap();
    let joined = split["joined_ios"].as_f64().unwrap();
    assert!(issued > 100.0, "{what}: {issued} I/Os");
    assert_eq!(
        issued,
        doc["jobs"][0]["read"]["total_ios"].as_f64().unwrap(),
        "{what}: every measured I/O is counted"
    );
    let why: Vec<String> = [
        "split_or_merged_ios",
        "unmapped_ios",
        "unseen_ios",
        "not_recorded_ios",
    ]
    .iter()
    .map(|k| format!("{k} {}", split[k]))
    .collect();
    assert!(
        joined >= 0.99 * issued,
        "{what}: {joined} of {issued} joined ({}); notes {}",
        why.join(", "),
        notes(doc)
    );
    let mean = |p: &str| split[p]["mean_ns"].as_f64().unwrap();
    let parts = mean("submit") + mean("device") + mean("completion");
    let lat = doc["jobs"][0]["read"]["lat_ns"]["mean"].as_f64().unwrap();
    let off = (parts - lat).abs() / lat;
    assert!(
        off < 0.02,
        "{what}: parts {parts:.0} ns against lat {lat:.0} ns"
    );
    for p in ["submit", "device", "completion"] {
        assert!(mean(p) > 0.0, "{what}: {p} is empty");
    }
    let tail = &split["tail"]["p99"];
    let shares: f64 = ["submit_share", "device_share", "completion_share"]
        .iter()
        .map(|k| tail[k].as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-3, "{what}: tail shares {tail}");
}

#[test]
fn io_uring_and_libaio_split_at_qd1_and_qd16_on_a_file_and_a_loop_device() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    let _lock = device_lock();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let mut targets: Vec<(String, PathBuf, Vec<&str>)> =
        vec![("a file".into(), file.clone(), vec![])];
    let lo = loop_device(64 << 20, false);
    if let Some(l) = &lo {
        targets.push((
            "a loop device".into(),
            l.path.clone(),
            vec!["--allow-destroy"],
        ));
    }
    for (what, path, extra) in &targets {
        for engine in ["io_uring", "libaio"] {
            for depth in [1, 16] {
                let doc = iolab_json(&job(path, engine, depth, extra));
                let n = notes(&doc);
                if what == "a file"
                    && (n.contains("not on a block device") || n.contains("bio-based"))
                {
                    eprintln!("skipped the file: {n}");
                    break;
                }
                check_split(&doc, &format!("{what}, {engine} QD{depth}"));
            }
        }
    }
}

/// bpftrace's count of each request's issue → completion time on `dev` (the kernel's dev_t),
/// in 100 ns steps, aggregated in the kernel (a line per request would slow every completion
/// down, and with it the figure compared).
const BPFTRACE: &str = r#"
tracepoint:block:block_rq_issue /args->dev == DEV/ { @s[args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@s[args->sector]/ {
    @d[(nsecs - @s[args->sector]) / 100] = count(); delete(@s[args->sector]);
}
END { clear(@s); }
"#;

/// The median and p99 of bpftrace's `@d[step]: count` lines, in ns.
fn bpftrace_percentiles(out: &str) -> Option<(f64, f64)> {
    let mut v: Vec<(u64, u64)> = out
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("@d[")?;
            let (k, n) = l.split_once("]: ")?;
            Some((k.parse().ok()?, n.trim().parse().ok()?))
        })
        .collect();
    v.sort_unstable();
    let total: u64 = v.iter().map(|x| x.1).sum();
    let at = |q: f64| {
        let mut acc = 0;
        for &(k, n) in &v {
            acc += n;
            if acc as f64 >= q * total as f64 {
                return (k * 100 + 50) as f64;
            }
        }
        0.0
    };
    (total > 0).then(|| (at(0.5), at(0.99)))
}

/// bpftrace reads tracepoints through tracefs; mount it where the system has not.
fn tracefs() -> Result<(), String> {
    if Path::new("/sys/kernel/tracing/events/block").exists() {
        return Ok(());
    }
    eprintln!("mounting tracefs on /sys/kernel/tracing for bpftrace");
    let ok = Command::new("mount")
        .args(["-t", "tracefs", "nodev", "/sys/kernel/tracing"])
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(())
        .ok_or_else(|| "tracefs could not be mounted".into())
}

#[test]
fn the_device_part_agrees_with_bpftrace_timing_the_same_requests() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    if Command::new("bpftrace").arg("--version").output().is_err() {
        eprintln!("skipped: no bpftrace (apt-get install bpftrace)");
        return;
    }
    if let Err(why) = tracefs() {
        eprintln!("skipped: {why}");
        return;
    }
    let _lock = device_lock();
    let Some(lo) = loop_device(64 << 20, false) else {
        return;
    };
    let rdev = std::os::unix::fs::MetadataExt::rdev(&std::fs::metadata(&lo.path).unwrap());
    let dev = (libc::major(rdev) << 20) | libc::minor(rdev);
    let script = BPFTRACE.replace("DEV", &dev.to_string());
    let bt = Command::new("bpftrace")
        .args(["-e", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // bpftrace attaches in a second or two; the run starts after it.
    std::thread::sleep(Duration::from_secs(4));
    let window = crate::support::Window::open();
    let doc = iolab_json(&job(
        &lo.path,
        "libaio",
        4,
        &["--allow-destroy", "--runtime=3"],
    ));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(bt.id() as i32, libc::SIGINT) };
    let out = bt.wait_with_output().unwrap();
    let (bt50, bt99) = bpftrace_percentiles(&String::from_utf8_lossy(&out.stdout))
        .expect("bpftrace saw the run's requests");
    let device = &doc["jobs"][0]["iolab"]["lat_split"]["read"]["device"]["percentile"];
    let (p50, p99) = (
        device["50.000000"].as_f64().unwrap(),
        device["99.000000"].as_f64().unwrap(),
    );
    eprintln!("device p50 {p50} ns, p99 {p99} ns; bpftrace p50 {bt50} ns, p99 {bt99} ns");
    assert!(
        (p50 - bt50).abs() / bt50 < 0.10,
        "median {p50} vs bpftrace {bt50}"
    );
    // The p99 of a loop device is its worker thread's wait for a CPU: two timings of the
    // same requests agree on it only while the CPUs are free.
    let figures = format!("p99 {p99} vs bpftrace {bt99}");
    let ok = (p99 - bt99).abs() / bt99 < 0.10;
    let said = "the device part's p99 beside bpftrace's";
    assert!(
        crate::support::holds_or_busy_in(ok, Some(&window), said, &figures),
        "{figures}"
    );
}

#[test]
fn where_the_kernel_cannot_say_the_run_goes_on_with_a_note() {
    let _lock = device_lock();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    // A kernel without BTF (the loader pointed at a missing file).
    let out = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", test_db())
        .env("IOLAB_BTF", dir.path().join("no-btf"))
        .arg("run")
        .args(job(&file, "psync", 1, &[]))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("IOPS="), "the run went on: {stdout}");
    let want = match cannot_split() {
        Some(_) => "needs root",
        None => "no BTF at",
    };
    assert!(
        stdout.contains("lat_split: off") && stdout.contains(want),
        "{stdout}"
    );
    // A bio-based device: zram has no request events.
    match zram() {
        Ok(dev) => {
            let doc = iolab_json(&job(&dev, "psync", 1, &["--allow-destroy"]));
            let n = notes(&doc);
            assert!(n.contains("bio-based") || n.contains("needs root"), "{n}");
            assert!(doc["jobs"][0]["iolab"]["lat_split"].is_null());
            assert!(doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
        }
        Err(why) => eprintln!("skipped zram: {why}"),
    }
}

#[test]
fn without_root_the_run_goes_on_with_a_note() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root, so cannot drop to another user");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let file = dir.path().join("f");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", dir.path().join("results.db"))
        .env("HOME", dir.path())
        .arg("run")
        .args(job(&file, "psync", 1, &["--direct=0", "--size=4m"]))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("setpriv") {
        eprintln!("skipped: setpriv: {stderr}");
        return;
    }
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("lat_split: off: loading an eBPF probe needs root"),
        "{stdout}"
    );
}

#[test]
fn a_split_needs_the_latency_it_splits() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let f = file.display().to_string();
    let out = iolab(&[
        "run",
        "--name=x",
        &format!("--filename={f}"),
        "--size=1m",
        "--lat_split=1",
        "--gtod_reduce=1",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("lat_split"), "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert!(!file.exists(), "nothing laid out");
}

/// Runs iolab with the arguments `make` gives for a target in a temp dir, recorded in a
/// database of its own; the run as `iolab export` writes it.
fn stored_run(make: impl FnOnce(&Path) -> Vec<String>) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let db = db.to_str().unwrap();
    let mut args = make(&dir.path().join("t"));
    args.extend(["--db".to_string(), db.to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = iolab(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = iolab(&["export", "1", "--db", db, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn a_split_qd1_tables_its_means_in_the_clock_they_were_stamped_with() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    let run = stored_run(|target| {
        vec![
            "qd1".into(),
            "--target".into(),
            target.display().to_string(),
            "--size=16m".into(),
            "--engines=psync".into(),
            "--runtime=1".into(),
            "--ramp_time=0".into(),
            "--lat-split".into(),
        ]
    });
    let cell = &run["steps"][0]["data"]["cells"][0];
    let job = run["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"].as_str().unwrap().contains("randread"))
        .unwrap();
    let table = cell["figures"]["mean_ns"].as_f64().unwrap();
    let kept = job["metrics"]["read"]["lat_mean_ns"].as_f64().unwrap();
    let parts: f64 = ["submit", "device", "completion"]
        .iter()
        .map(|p| {
            job["metrics"]["read"][format!("split_{p}_mean_ns")]
                .as_f64()
                .unwrap()
        })
        .sum();
    assert!(
        (table - kept).abs() / kept < 1e-6,
        "table {table} ns, job {kept} ns"
    );
    assert!(
        (parts - kept).abs() / kept < 0.02,
        "parts {parts} ns, lat {kept} ns"
    );
}

#[test]
fn the_consistency_step_keeps_the_device_and_host_parts_second_by_second() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    let window = crate::support::Window::open();
    let run = stored_run(|target| {
        vec![
            "review".into(),
            target.display().to_string(),
            "--quick".into(),
            "--steps=consistency".into(),
            "--size=16m".into(),
            "--runtime=consistency:3s".into(),
        ]
    });
    for job in run["jobs"].as_array().unwrap() {
        let series = |name: &str| {
            job["series"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name)
                .map(|s| s["points"].as_array().unwrap().len())
        };
        let lat = series("lat_p99_ns").expect("latency windows");
        assert!(lat >= 2, "{lat} windows");
        for name in ["split_device_p99_ns", "split_host_p99_ns"] {
            // Every window has its split. On a busy machine the BPF reader (a thread of its
            // own) may be put off the CPU past the end of a window and find its requests
            // only after the job ended: fewer split windows (beside two CPU hogs, 1 of 3).
            // At any load: some split, never more windows than the latency's.
            let n = series(name).unwrap_or(0);
            assert!(n >= 1 && n <= lat, "{name}: {n} windows beside {lat}");
            let figures = format!("{name}: {n} windows beside lat_p99_ns's {lat}");
            assert!(
                crate::support::holds_or_busy_in(
                    n == lat,
                    Some(&window),
                    "split windows",
                    &figures
                ),
                "{figures}"
            );
        }
    }
}

#[test]
fn the_split_log_has_a_line_per_joined_io_with_its_parts() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("s");
    let file = dir.path().join("f");
    let arg = format!("--write_split_log={}", prefix.display());
    let doc = iolab_json(&job(&file, "libaio", 4, &[&arg]));
    let split = &doc["jobs"][0]["iolab"]["lat_split"]["read"];
    let log = std::fs::read_to_string(dir.path().join("s_split.1.log")).unwrap();
    let rows: Vec<Vec<f64>> = log
        .lines()
        .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len() as u64, split["joined_ios"].as_u64().unwrap());
    assert!(rows
        .iter()
        .all(|r| r.len() == 7 && r[1] == 0.0 && r[2] == 4096.0));
    // In the order I/Os were joined: one whose request's record came late is written later.
    let late = rows.windows(2).filter(|w| w[0][0] > w[1][0]).count();
    assert!(
        late * 100 < rows.len(),
        "{late} of {} lines out of order",
        rows.len()
    );
    let mean = |i: usize| rows.iter().map(|r| r[i]).sum::<f64>() / rows.len() as f64;
    for (i, p) in [(4, "submit"), (5, "device"), (6, "completion")] {
        let want = split[p]["mean_ns"].as_f64().unwrap();
        assert!(
            (mean(i) - want).abs() / want < 1e-6,
            "{p}: log {} vs {want}",
            mean(i)
        );
    }
    assert!(notes(&doc).contains("split log: "), "{}", notes(&doc));
}

#[test]
fn a_split_log_on_the_target_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, b"keep").unwrap();
    // The log would be f_split.1.log beside it; naming the target itself as the log is what
    // a slip of the hand does: prefix "f" with the job's file named "f_split.1.log".
    let target = dir.path().join("f_split.1.log");
    std::fs::write(&target, vec![0u8; 1 << 20]).unwrap();
    let out = iolab(&[
        "run",
        "--name=x",
        &format!("--filename={}", target.display()),
        "--size=1m",
        "--rw=read",
        &format!("--write_split_log={}", file.display()),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert_eq!(
        std::fs::read(&target).unwrap().len(),
        1 << 20,
        "target untouched"
    );
}

/// The split's lines read beside the job's own: the clat line's unit, and each tail named by
/// its band (the slowest 1 % and 0.1 % of the joined I/Os) in that unit.
#[test]
fn the_split_speaks_in_the_jobs_unit_and_names_each_tails_band() {
    if let Some(why) = cannot_split() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run".to_string()];
    args.extend(job(&dir.path().join("f"), "io_uring", 1, &[]));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = crate::support::iolab(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    if !out.stdout.contains("split (iolab)") {
        eprintln!("skipped: no split here:\n{}", out.stdout);
        return;
    }
    let unit = |prefix: &str| {
        let l = out
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line:\n{}", out.stdout));
        l.split('(')
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap()
            .to_string()
    };
    let clat = unit("clat (");
    for part in ["submit (", "device (", "compl  ("] {
        assert_eq!(
            unit(part),
            clat,
            "{part} in another unit than clat:\n{}",
            out.stdout
        );
    }
    for band in ["1%", "0.1%"] {
        let l = out
            .stdout
            .lines()
            .find(|l| l.contains(&format!("tail, the slowest {band} (")))
            .unwrap_or_else(|| panic!("no {band} tail:\n{}", out.stdout));
        assert!(l.contains(&format!(" {clat}): submit=")), "{l}");
        assert!(l.contains(" I/Os, from "), "{l}");
    }
}
