//! fio 3.42's new job options iolab takes, each watched doing what it says: `comm` names the
//! job's threads and `priohint` puts its hint in their I/O priority (read back from the
//! running threads), `end_syncfs` is one syncfs(2) a filesystem (strace), `filetype` refuses
//! a file of another type, `log_window_value` is fio 3.42's name of `log_max_value` (and
//! `both` writes its two columns), and `thinkcycles` spins as fio 3.42's.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::iolab;

fn iolab_bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolab"));
    c.env("IOLAB_DB", crate::support::test_db());
    c
}

/// fio 3.42, where scripts/fio-build.sh built it; `None` (saying so) where it did not.
fn fio_342() -> Option<&'static Path> {
    static FIO: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    let fio = FIO.get_or_init(|| {
        let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/fio");
        f.exists().then_some(f)
    });
    if fio.is_none() {
        println!("fio 3.42 not built (bash scripts/fio-build.sh): iolab alone");
    }
    fio.as_deref()
}

/// `args` run by iolab's `run`, or by fio 3.42 when `fio` is set.
fn run_by<S: AsRef<std::ffi::OsStr>>(fio: Option<&Path>, args: &[S]) -> std::process::Output {
    match fio {
        None => iolab_bin().arg("run").args(args).output().unwrap(),
        Some(f) => Command::new(f).args(args).output().unwrap(),
    }
}

/// The JSON in a successful run's stdout (fio prints its normal output after it).
fn json_out(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap()
}

/// The threads of `pid` named `comm`, with their I/O priority values (ioprio_get).
fn named_threads(pid: u32, comm: &str) -> Vec<(u32, i64)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| {
            let tid: u32 = t.file_name().to_str()?.parse().ok()?;
            let name = std::fs::read_to_string(t.path().join("comm")).ok()?;
            (name.trim() == comm).then(|| {
                const IOPRIO_WHO_PROCESS: libc::c_long = 1;
                // SAFETY: ioprio_get takes integers and returns the thread's priority value.
                let prio = unsafe {
                    libc::syscall(
                        libc::SYS_ioprio_get,
                        IOPRIO_WHO_PROCESS,
                        tid as libc::c_long,
                    )
                };
                (tid, prio)
            })
        })
        .collect()
}

#[test]
fn comm_names_the_job_threads_and_priohint_sits_in_their_priority() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = iolab_bin()
        .args([
            "run",
            "--name=p",
            "--size=8m",
            "--rw=randread",
            "--runtime=3",
            "--time_based",
        ])
        .arg(format!("--filename={}", dir.path().join("f").display()))
        .args([
            "--comm=iolab-probe",
            "--prioclass=2",
            "--prio=4",
            "--priohint=1",
            "--numjobs=2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(10) && seen.len() < 2 {
        seen = named_threads(child.id(), "iolab-probe");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(
        seen.len(),
        2,
        "both job copies' threads take the name: {seen:?}"
    );
    for (tid, prio) in seen {
        // fio 3.42's ioprio_value(): class << 13 | hint << 3 | level.
        assert_eq!(prio, (2 << 13) | (1 << 3) | 4, "thread {tid}");
    }
    let bad = iolab(&["run", "--name=p", "--filename=/dev/null", "--priohint=1024"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn end_syncfs_is_one_syncfs_a_filesystem() {
    if Command::new("strace").arg("-V").output().is_err() {
        println!("skipped: strace is not installed (apt-get install strace)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let count = |extra: &str| {
        let log = dir.path().join("strace.log");
        let out = Command::new("strace")
            .args(["-f", "-e", "trace=syncfs,fsync", "-o"])
            .arg(&log)
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .env("IOLAB_DB", dir.path().join("r.db"))
            .args(["run", "--name=s", "--size=4m", "--rw=write", "--nrfiles=3"])
            .arg(format!("--directory={}", dir.path().display()))
            .arg(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&log).unwrap();
        let calls = |name: &str| {
            text.lines()
                .filter(|l| l.contains(&format!("{name}(")))
                .count()
        };
        (calls("syncfs"), calls("fsync"))
    };
    assert_eq!(
        count("--end_syncfs=1").0,
        1,
        "three files, one filesystem, one syncfs"
    );
    assert_eq!(count("--end_syncfs=0").0, 0);
    // end_fsync, for contrast: an fsync a file.
    assert!(count("--end_fsync=1").1 >= 3);
}

#[test]
fn filetype_is_checked_against_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, vec![0u8; 1 << 20]).unwrap();
    let f = format!("--filename={}", file.display());
    let run = |t: &str| iolab(&["run", "--name=t", &f, "--size=1m", "--rw=read", t]);
    let out = run("--filetype=block");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("filetype=block") && out.stderr.contains("a regular file"));
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    assert_eq!(run("--filetype=file").code, 0);
    assert_eq!(run("--filetype=fifo").code, 2);
}

#[test]
fn log_window_value_is_fio_342s_name_of_log_max_value() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let lat = |name: &str, opt: &str| {
        let prefix = dir.path().join(name);
        let out = iolab(&[
            "run",
            "--name=l",
            &format!("--filename={}", file.display()),
            "--size=4m",
            "--rw=read",
            "--bs=4k",
            "--log_avg_msec=1000",
            &format!("--write_lat_log={}", prefix.display()),
            opt,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let log = Path::new(&format!("{}_lat.1.log", prefix.display())).to_path_buf();
        std::fs::read_to_string(log).unwrap()
    };
    // The same file read twice: the lines' shape and count agree, and each window's largest
    // latency is at least its mean.
    let max = lat("max", "--log_window_value=max");
    let avg = lat("avg", "--log_window_value=avg");
    let old = lat("old", "--log_max_value=1");
    let first = |t: &str| -> u64 {
        t.lines()
            .next()
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    assert_eq!(max.lines().count(), old.lines().count());
    assert!(first(&max) >= first(&avg), "max {max} avg {avg}");
    // both: the mean, then the largest, as fio 3.42 writes them (six columns).
    let both = lat("both", "--log_window_value=both");
    for line in both.lines() {
        let v: Vec<u64> = line
            .split(", ")
            .map(|c| c.trim().parse().unwrap())
            .collect();
        assert_eq!(v.len(), 6, "{line}");
        assert!(v[2] >= v[1], "the largest is at least the mean: {line}");
    }
    let bad = iolab(&[
        "run",
        "--name=l",
        "--filename=/dev/null",
        "--log_window_value=most",
    ]);
    assert_eq!(bad.code, 2);
}

/// IOPS of one second of `args` by `exe` (iolab's `run`, or fio 3.42 when `fio` is set).
fn iops(fio: Option<&Path>, args: &[String]) -> f64 {
    let v = json_out(&run_by(fio, args));
    let j = &v["jobs"][0];
    j["read"]["iops"].as_f64().unwrap() + j["write"]["iops"].as_f64().unwrap()
}

#[test]
fn thinkcycles_spin_after_each_io_as_fio_342s() {
    let dir = tempfile::tempdir().unwrap();
    let fio = fio_342();
    // fio's null engine at a depth above 1 queues and spins per loop pass, not per I/O
    // (half the rate of its other engines), so it is tried at depth 1; the real engines at 4.
    for (engine, depth) in [("null", 1), ("io_uring", 4), ("libaio", 4)] {
        let job = |cycles: u32| -> Vec<String> {
            vec![
                "--name=c".into(),
                format!("--filename={}", dir.path().join("c").display()),
                format!("--ioengine={engine}"),
                "--size=8m".into(),
                "--rw=randread".into(),
                format!("--iodepth={depth}"),
                "--runtime=1".into(),
                "--time_based".into(),
                format!("--thinkcycles={cycles}"),
                "--output-format=json".into(),
            ]
        };
        let window = crate::support::Window::open();
        let (free, spun) = (iops(None, &job(0)), iops(None, &job(20_000)));
        assert!(
            spun < free / 4.0,
            "{engine}: {spun} IOPS spinning, {free} without"
        );
        match fio {
            Some(f) => {
                let theirs = iops(Some(f), &job(20_000));
                // Two runs a second apart: their ratio holds while both get the CPUs.
                let ratio = spun / theirs;
                let figures = format!("{engine}: iolab {spun}, fio 3.42 {theirs}");
                assert!(
                    crate::support::holds_or_busy_in(
                        (0.5..2.0).contains(&ratio),
                        Some(&window),
                        "the spinning rate against fio 3.42's",
                        &figures
                    ),
                    "{figures}"
                );
            }
            None => println!("note: no fio 3.42 build here: iolab alone"),
        }
    }
}

#[test]
fn log_issue_time_adds_each_ios_issue_time_to_its_latency_lines() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("x");
    let out = iolab(&[
        "run",
        "--name=i",
        &format!("--filename={}", dir.path().join("f").display()),
        "--size=4m",
        "--rw=randread",
        "--number_ios=50",
        &format!("--write_lat_log={}", prefix.display()),
        "--log_offset=1",
        "--log_issue_time=1",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows = |kind: &str| -> Vec<Vec<u64>> {
        let text = std::fs::read_to_string(format!("{}_{kind}.1.log", prefix.display())).unwrap();
        let row = |l: &str| l.split(", ").map(|c| c.trim().parse().unwrap()).collect();
        text.lines().map(row).collect()
    };
    let (clat, lat) = (rows("clat"), rows("lat"));
    assert_eq!(clat.len(), 50);
    let mut last = 0;
    for r in &clat {
        // time ms, clat ns, dir, bs, offset, prio, issued ns: issued before it completed,
        // and in order for a job of one I/O at a time.
        assert_eq!(r.len(), 7, "{r:?}");
        assert!(r[6] + r[1] <= (r[0] + 1) * 1_000_000, "{r:?}");
        assert!(r[6] >= last, "{r:?}");
        last = r[6];
    }
    assert!(
        lat.iter().all(|r| r.len() == 7 && r[6] == 0),
        "0 on total-latency lines"
    );
    let bad = iolab(&[
        "run",
        "--name=i",
        "--filename=/dev/null",
        "--log_issue_time=1",
    ]);
    assert_eq!(bad.code, 2, "needs write_lat_log and log_offset");
}

/// The JSON's `job_start` of `args` run by iolab (or fio 3.42 when `fio` is set).
fn job_start(fio: Option<&Path>, args: &[&str]) -> u64 {
    json_out(&run_by(fio, args))["jobs"][0]["job_start"]
        .as_u64()
        .unwrap()
}

/// Milliseconds since boot by CLOCK_MONOTONIC, as the job's clock 1 reads it.
fn monotonic_ms() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[test]
fn job_start_clock_id_picks_the_clock_of_the_jsons_job_start() {
    let args = |clock: &'static str| {
        vec![
            "--name=c",
            "--ioengine=null",
            "--size=1m",
            "--output-format=json",
            clock,
        ]
    };
    let fio = fio_342();
    for tool in std::iter::once(None).chain(fio.map(Some)) {
        let before = monotonic_ms();
        let mono = job_start(tool, &args("--job_start_clock_id=1"));
        let after = monotonic_ms();
        assert!(
            (before..=after).contains(&mono),
            "{tool:?}: job_start {mono} by CLOCK_MONOTONIC, not within {before}..={after}"
        );
        let unix_before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let real = job_start(tool, &args("--job_start_clock_id=0"));
        assert!(
            real >= unix_before && real < unix_before + 60_000,
            "{tool:?}: job_start {real} by CLOCK_REALTIME, started after {unix_before}"
        );
    }
}

#[test]
fn ss_interval_samples_the_window_every_interval_and_lat_judges_latency() {
    let dir = tempfile::tempdir().unwrap();
    let fio = fio_342();
    // A loose criterion holds at the first full window: 2 samples 3 s apart, the first
    // taken one interval after ss_ramp (fio 3.42), so the job ends after about 9 s.
    let args: Vec<String> = [
        "--name=s",
        "--size=16m",
        "--rw=randread",
        "--ioengine=psync",
        "--time_based",
        "--runtime=30",
        "--ss=lat:90%",
        "--ss_dur=6",
        "--ss_interval=3",
        "--ss_ramp=1",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--filename={}", dir.path().join("f").display())])
    .collect();
    let mut runtimes = Vec::new();
    for tool in std::iter::once(None).chain(fio.map(Some)) {
        let v = json_out(&run_by(tool, &args));
        let j = &v["jobs"][0];
        let ss = &j["steadystate"];
        assert_eq!(ss["attained"], 1, "{tool:?}: {ss}");
        assert_eq!(ss["duration"], 6, "{tool:?}: {ss}");
        assert_eq!(ss["data"]["iops"].as_array().unwrap().len(), 2, "{ss}");
        let lat = ss["data"]["lat_ns"].as_array().unwrap();
        assert_eq!(lat.len(), 2, "{tool:?}: {ss}");
        assert!(lat.iter().all(|l| l.as_u64().unwrap() > 0), "{ss}");
        let mean = ss["data"]["lat_mean"].as_u64().unwrap();
        let clat = j["read"]["clat_ns"]["mean"].as_f64().unwrap();
        assert!(
            (mean as f64 / clat - 1.0).abs() < 0.5,
            "{tool:?}: window's latency {mean} ns against the job's {clat}"
        );
        runtimes.push(j["job_runtime"].as_u64().unwrap());
    }
    assert!(
        (7_500..=10_500).contains(&runtimes[0]),
        "iolab ran {} ms; fio 3.42 attains at about 9 s: {runtimes:?}",
        runtimes[0]
    );
    if let [ours, theirs] = runtimes[..] {
        assert!(ours.abs_diff(theirs) < 1_500, "{runtimes:?}");
    }
}

#[test]
fn ss_interval_must_divide_ss_dur_and_be_whole_seconds() {
    for (dur, interval) in [("5", "2"), ("4", "4"), ("4", "500ms")] {
        let out = iolab(&[
            "run",
            "--name=s",
            "--ioengine=null",
            "--size=1m",
            "--ss=iops:10%",
            &format!("--ss_dur={dur}"),
            &format!("--ss_interval={interval}"),
        ]);
        assert_eq!(
            out.code, 2,
            "ss_dur={dur} ss_interval={interval}: {}",
            out.stderr
        );
        assert!(out.stderr.contains("interval"), "{}", out.stderr);
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
}

#[test]
fn ramp_size_transfers_its_bytes_before_the_measured_window() {
    let dir = tempfile::tempdir().unwrap();
    let fio = fio_342();
    // At 4 MiB/s a ramp of 4 MiB takes about a second; then one measured second.
    let timed: Vec<String> = [
        "--name=r",
        "--size=16m",
        "--rw=write",
        "--bs=64k",
        "--ioengine=psync",
        "--rate=4m",
        "--time_based",
        "--runtime=1",
        "--ramp_size=4m",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--filename={}", dir.path().join("t").display())])
    .collect();
    // A size-based job does its whole size after the ramp, as fio 3.42's.
    let sized: Vec<String> = ["--name=r", "--size=8m", "--rw=write", "--bs=64k"]
        .iter()
        .map(|s| s.to_string())
        .chain(["--ramp_size=2m".into(), "--output-format=json".into()])
        .chain([format!("--filename={}", dir.path().join("s").display())])
        .collect();
    for tool in std::iter::once(None).chain(fio.map(Some)) {
        let t0 = Instant::now();
        let v = json_out(&run_by(tool, &timed));
        let wall = t0.elapsed();
        let j = &v["jobs"][0];
        let runtime = j["job_runtime"].as_u64().unwrap();
        assert!((900..=1_200).contains(&runtime), "{tool:?}: {runtime} ms");
        assert!(
            wall >= Duration::from_millis(1_800),
            "{tool:?}: the ramp of 4 MiB at 4 MiB/s took no time ({wall:?} in all)"
        );
        let w = &json_out(&run_by(tool, &sized))["jobs"][0]["write"];
        assert_eq!(
            (w["io_bytes"].as_u64(), w["total_ios"].as_u64()),
            (Some(8 << 20), Some(128)),
            "{tool:?}: {w}"
        );
    }
    let both = iolab(&[
        "run",
        "--name=r",
        "--ioengine=null",
        "--size=1m",
        "--ramp_size=1m",
        "--ramp_time=1",
    ]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    assert!(both.stderr.contains("ramp_size"), "{}", both.stderr);
}

/// Exit code and stderr of `args` by iolab's `run` (or fio 3.42 when `fio` is set).
fn status_of(fio: Option<&Path>, args: &[String]) -> (i32, String) {
    let out = run_by(fio, args);
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn verify_header_seed_finds_another_writers_block_and_can_be_turned_off() {
    let dir = tempfile::tempdir().unwrap();
    let fio = fio_342();
    // Two copies write the same 256 blocks side by side, paced so that they overlap, then
    // each reads back its own: blocks the other copy wrote last have valid checksums but
    // the other copy's seeds. Both write in the same order, so the write numbers agree.
    let args = |extra: &[&str]| -> Vec<String> {
        [
            "--name=v",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--numjobs=2",
            "--rate_iops=1000",
            "--verify=crc32c",
            "--ioengine=psync",
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .chain([format!("--filename={}", dir.path().join("f").display())])
        .collect()
    };
    for tool in std::iter::once(None).chain(fio.map(Some)) {
        let (code, text) = status_of(tool, &args(&[]));
        assert_ne!(code, 0, "{tool:?}: another copy's blocks passed: {text}");
        assert!(text.contains("bad header rand_seed"), "{tool:?}: {text}");
        let (code, text) = status_of(tool, &args(&["--verify_header_seed=0"]));
        assert_eq!(code, 0, "{tool:?}: {text}");
    }
    // A sequential and a random writer of the same blocks: each block's write number is
    // the other job's where it wrote last, whatever the seeds.
    let two = |tool: Option<&Path>, off: &[&str], file: &str| {
        let job = |name: &str, rw: &str| -> Vec<String> {
            [
                name,
                rw,
                "--bs=4k",
                "--size=1m",
                "--rate_iops=1000",
                "--verify=crc32c",
            ]
            .iter()
            .chain(["--ioengine=psync", "--verify_header_seed=0"].iter())
            .chain(off)
            .map(|s| s.to_string())
            .chain([format!("--filename={}", dir.path().join(file).display())])
            .collect()
        };
        let mut a = job("--name=a", "--rw=write");
        a.extend(job("--name=b", "--rw=randwrite"));
        status_of(tool, &a)
    };
    for (k, tool) in std::iter::once(None).chain(fio.map(Some)).enumerate() {
        let (code, text) = two(tool, &[], &format!("seq{k}"));
        assert_ne!(code, 0, "{tool:?}: {text}");
        assert!(text.contains("bad header numberio"), "{tool:?}: {text}");
        let (code, text) = two(tool, &["--verify_write_sequence=0"], &format!("off{k}"));
        assert_eq!(code, 0, "{tool:?}: {text}");
    }
    // A job alone passes with both checks on, and a mistyped value is refused.
    let alone: Vec<String> = args(&[])
        .into_iter()
        .filter(|a| a != "--numjobs=2" && a != "--rate_iops=1000")
        .map(|a| match a.starts_with("--filename=") {
            true => format!("--filename={}", dir.path().join("alone").display()),
            false => a,
        })
        .collect();
    let (code, text) = status_of(None, &alone);
    assert_eq!(code, 0, "{text}");
    let bad = iolab(&[
        "run",
        "--name=v",
        "--ioengine=null",
        "--size=1m",
        "--verify_write_sequence=perhaps",
    ]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn verify_pattern_interval_starts_the_pattern_over_as_fio_342s() {
    let dir = tempfile::tempdir().unwrap();
    let job = |file: &str, extra: &[&str]| -> Vec<String> {
        [
            "--name=p",
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--verify=pattern",
            "--verify_pattern=0x61626364656667",
        ]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .chain([format!("--filename={}", dir.path().join(file).display())])
        .collect()
    };
    let every = "--verify_pattern_interval=1000";
    // iolab's blocks: the 7-byte pattern starts over at byte 1000 of each block.
    let (code, text) = status_of(None, &job("ours", &[every]));
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read(dir.path().join("ours")).unwrap();
    assert_eq!(&data[994..1004], b"abcdefabcd", "restarts at 1000");
    assert_eq!(&data[4096..4100], b"abcd", "and at each block");
    let (code, text) = status_of(None, &job("ours", &["--verify_only", every]));
    assert_eq!(code, 0, "{text}");
    let (code, text) = status_of(None, &job("ours", &["--verify_only"]));
    assert_ne!(code, 0, "a pattern that never starts over passed: {text}");
    assert!(text.contains("pattern mismatch"), "{text}");
    let Some(f342) = fio_342() else { return };
    // fio 3.42 reads iolab's blocks, and iolab fio 3.42's.
    let (code, text) = status_of(Some(f342), &job("ours", &["--verify_only", every]));
    assert_eq!(code, 0, "{text}");
    let (code, text) = status_of(Some(f342), &job("theirs", &[every]));
    assert_eq!(code, 0, "{text}");
    let theirs = std::fs::read(dir.path().join("theirs")).unwrap();
    assert_eq!(theirs, data, "the same bytes");
    let (code, text) = status_of(
        None,
        &job("theirs", &["--verify_only", every, "--allow-destroy"]),
    );
    assert_eq!(code, 0, "{text}");
}

#[test]
fn log_store_compressed_writes_fz_files_fio_342_inflates() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("p");
    let (code, text) = status_of(
        None,
        &[
            "--name=z",
            "--size=1m",
            "--bs=4k",
            "--rw=randwrite",
            "--ioengine=libaio",
            "--iodepth=2",
            "--log_offset=1",
            "--log_store_compressed=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("--filename={}", dir.path().join("f").display()),
            format!("--write_lat_log={}", prefix.display()),
        ])
        .collect::<Vec<_>>(),
    );
    assert_eq!(code, 0, "{text}");
    let fz = dir.path().join("p_lat.1.log.fz");
    let bytes = std::fs::read(&fz).unwrap();
    assert_eq!(&bytes[..1], &[0x78], "a zlib stream");
    assert!(!dir.path().join("p_lat.1.log").exists());
    let Some(f342) = fio_342() else { return };
    let out = Command::new(f342)
        .arg(format!("--inflate-log={}", fz.display()))
        .output()
        .unwrap();
    let lines = String::from_utf8_lossy(&out.stdout).to_string();
    // One line per write: ms, latency, direction 1, 4096, offset, priority 0; the random map
    // writes every 4 KiB block of the MiB once.
    let mut offsets: Vec<u64> = lines
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            assert_eq!(f.len(), 6, "{l}");
            assert_eq!((f[2], f[3], f[5]), ("1", "4096", "0"), "{l}");
            assert!(f[1].parse::<u64>().unwrap() > 0, "{l}");
            f[4].parse().unwrap()
        })
        .collect();
    offsets.sort_unstable();
    assert_eq!(offsets, (0..256).map(|k| k * 4096).collect::<Vec<u64>>());
}

/// fio 3.42's dircreate, dirstat and dirdelete examples, each run in a directory of its own
/// by iolab and by fio 3.42: the same I/Os and bytes, one completion-latency sample per
/// directory operation and no total-latency samples, and the same directories left behind.
/// Without fio 3.42 the counts are the examples' own arithmetic.
#[test]
fn dir_engines_run_fio_342s_examples_with_its_counts() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/examples");
    // (engine, read I/Os, directories left): 6 jobs × 30 dirs; 6 sections × numjobs=10 × 5;
    // 6 jobs × 200, all removed.
    for (engine, ios, left) in [
        ("dircreate", 180, 180),
        ("dirstat", 300, 300),
        ("dirdelete", 1200, 0),
    ] {
        let file = examples.join(format!("{engine}-ioengine.fio"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            println!(
                "{} missing (bash scripts/fio-build.sh): skipped",
                file.display()
            );
            return;
        };
        let tools: Vec<Option<&Path>> = std::iter::once(None).chain(fio_342().map(Some)).collect();
        let runs: Vec<_> = tools
            .iter()
            .map(|tool| {
                let dir = tempfile::tempdir().unwrap();
                let sub = dir.path().join("d");
                std::fs::create_dir(&sub).unwrap();
                let job = dir.path().join("job.fio");
                let text = text.replacen(
                    "[global]\n",
                    &format!("[global]\ndirectory={}\n", sub.display()),
                    1,
                );
                std::fs::write(&job, text).unwrap();
                let v = json_out(&run_by(
                    *tool,
                    &["--output-format=json", job.to_str().unwrap()],
                ));
                let jobs = v["jobs"].as_array().unwrap();
                let sum = |f: &dyn Fn(&serde_json::Value) -> u64| jobs.iter().map(f).sum::<u64>();
                let reads = sum(&|j| j["read"]["total_ios"].as_u64().unwrap());
                let bytes = sum(&|j| j["read"]["io_bytes"].as_u64().unwrap());
                let writes = sum(&|j| j["write"]["total_ios"].as_u64().unwrap());
                let clat = sum(&|j| j["read"]["clat_ns"]["N"].as_u64().unwrap_or(0));
                let lat = sum(&|j| j["read"]["lat_ns"]["N"].as_u64().unwrap_or(0));
                let dirs = std::fs::read_dir(&sub)
                    .unwrap()
                    .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_dir())
                    .count();
                (reads, bytes, writes, clat, lat, dirs)
            })
            .collect();
        assert_eq!(
            runs[0],
            (ios, ios * 4096, 0, ios, 0, left),
            "iolab, {engine}"
        );
        if let Some(fio) = runs.get(1) {
            assert_eq!(&runs[0], fio, "iolab against fio 3.42, {engine}");
        }
    }
}

/// dirdelete removes what the job names: a directory the user had is refused without
/// consent (and stays), a file at the name is refused as no directory, and `unlink=1`
/// removes dirstat's directories when the job ends.
#[test]
fn dir_engines_ask_consent_and_refuse_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    let name = format!("--filename={}", mine.display());
    let args = ["--name=j", &name, "--ioengine=dirdelete", "--size=4k"];
    let out = run_by(None, &args);
    assert_eq!(
        out.status.code().unwrap_or(-1),
        2,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-destroy"));
    assert!(mine.is_dir());
    let out = run_by(None, &[&args[..], &["--allow-destroy"]].concat());
    assert_eq!(
        out.status.code().unwrap_or(-1),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!mine.exists());

    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let name = format!("--filename={}", file.display());
    let out = run_by(
        None,
        &["--name=j", &name, "--ioengine=dirstat", "--size=4k"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code().unwrap_or(-1), 2, "{err}");
    assert!(err.contains("is not a directory"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let made = dir.path().join("made");
    let name = format!("--filename={}", made.display());
    let args = [
        "--name=j",
        &name,
        "--ioengine=dirstat",
        "--size=4k",
        "--unlink=1",
    ];
    let out = run_by(None, &args);
    assert_eq!(
        out.status.code().unwrap_or(-1),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!made.exists(), "unlink=1 removes dirstat's directory");
}
