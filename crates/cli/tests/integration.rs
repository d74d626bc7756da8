//! End-to-end tests: the real `iolab` binary doing real I/O on every backing kind this
//! machine has — a temp file with O_DIRECT, `/dev/zram0`, and a loop device — skipping a kind
//! with a printed reason where it is missing. Device tests share one lock, since they share
//! the devices.

#[path = "integration/cache.rs"]
mod cache;
#[path = "integration/cgroups.rs"]
mod cgroups;
#[path = "integration/columns.rs"]
mod columns;
#[path = "integration/content.rs"]
mod content;
#[path = "integration/defrag.rs"]
mod defrag;
#[path = "integration/doctor.rs"]
mod doctor;
#[path = "integration/figures.rs"]
mod figures;
#[path = "integration/file_setup.rs"]
mod file_setup;
/// fio's own command-line options: terse, --section, --readonly, --showcmd, help.
#[path = "integration/fio342.rs"]
mod fio342;
#[path = "integration/fio_cli.rs"]
mod fio_cli;
/// fio's normal output, line for line, against real fio.
#[path = "integration/fio_output.rs"]
mod fio_output;
#[path = "integration/fs_engines.rs"]
mod fs_engines;
#[path = "integration/health.rs"]
mod health;
#[path = "integration/job_language.rs"]
mod job_language;
#[path = "integration/job_report.rs"]
mod job_report;
#[path = "integration/jobfiles.rs"]
mod jobfiles;
#[path = "integration/kv.rs"]
mod kv;
#[path = "integration/lat_split.rs"]
mod lat_split;
#[path = "integration/long_tail.rs"]
mod long_tail;
#[path = "integration/marks.rs"]
mod marks;
#[path = "integration/noio.rs"]
mod noio;
#[path = "integration/offsets.rs"]
mod offsets;
#[path = "integration/old_db.rs"]
mod old_db;
#[path = "integration/one_result.rs"]
mod one_result;
#[path = "integration/open_loop.rs"]
mod open_loop;
/// fio's pacing: rate-limited jobs at queue depth beside fio 3.33.
#[path = "integration/pacing.rs"]
mod pacing;
#[path = "integration/progress.rs"]
mod progress;
#[path = "integration/pts.rs"]
mod pts;
/// The PTS report's pages against docs/pts.md's table, their units, and printed.
#[path = "integration/pts_pages.rs"]
mod pts_pages;
#[path = "integration/repeats.rs"]
mod repeats;
#[path = "integration/report.rs"]
mod report;
#[path = "integration/results.rs"]
mod results;
#[path = "integration/review.rs"]
mod review;
#[path = "integration/rwflags.rs"]
mod rwflags;
mod support;
#[path = "integration/trim.rs"]
mod trim;
/// "Cannot tell" is an answer: verdicts from their intervals, --fail-if-worse's outcomes.
#[path = "integration/verdicts.rs"]
mod verdicts;
#[path = "integration/verify.rs"]
mod verify;
/// fio's verify state files, against fio 3.33 and 3.42.
#[path = "integration/verify_state.rs"]
mod verify_state;
#[path = "integration/zbd.rs"]
mod zbd;

use std::fs;
use std::os::unix::fs::FileExt;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use support::{backings, device_lock, iolab, iolab_json, loop_device, Backing};

const ENGINE_ARGS: &[&[&str]] = &[
    &["--ioengine=psync"],
    &["--ioengine=vsync"],
    &["--ioengine=pvsync2"],
    &["--ioengine=pvsync2", "--hipri"],
    &["--ioengine=libaio", "--iodepth=8"],
    &["--ioengine=posixaio", "--iodepth=8"],
    &["--ioengine=mmap"],
    &["--ioengine=io_uring", "--iodepth=8"],
    &[
        "--ioengine=io_uring",
        "--iodepth=4",
        "--fixedbufs",
        "--registerfiles",
    ],
    &["--ioengine=io_uring", "--iodepth=4", "--sqthread_poll"],
];

/// Size-based jobs move exactly the bytes asked, through every engine, on every backing kind,
/// in both directions.
#[test]
fn every_engine_transfers_exactly_the_bytes_asked_on_every_backing() {
    let _g = device_lock();
    for b in backings(16 << 20) {
        for engine in ENGINE_ARGS {
            for rw in ["randread", "randwrite", "read", "write"] {
                let mut args = vec![
                    "--name=exact".to_string(),
                    format!("--filename={}", b.path().display()),
                    "--direct=1".into(),
                    format!("--rw={rw}"),
                    "--bs=4k".into(),
                    "--size=1m".into(),
                    "--offset=1m".into(),
                    "--allow-destroy".into(),
                ];
                args.extend(engine.iter().map(|s| s.to_string()));
                let v = iolab_json(&args);
                let job = &v["jobs"][0];
                let dir = if rw.contains("read") { "read" } else { "write" };
                let other = if dir == "read" { "write" } else { "read" };
                let ctx = format!("{} {engine:?} {rw}", b.kind());
                assert_eq!(job[dir]["io_bytes"], 1 << 20, "{ctx}");
                assert_eq!(job[dir]["total_ios"], 256, "{ctx}");
                assert_eq!(job[other]["total_ios"], 0, "{ctx}");
                assert!(job[dir]["iops"].as_f64().unwrap() > 0.0, "{ctx}");
                assert_eq!(job[dir]["clat_ns"]["N"], 256, "{ctx}");
            }
        }
    }
}

/// Random writes land inside [offset, offset+size) — every block of it, nothing outside —
/// checked by reading the bytes back.
#[test]
fn written_data_lands_where_it_should() {
    let dir = tempfile::tempdir().unwrap();
    for engine in ["psync", "libaio", "io_uring"] {
        let path = dir.path().join(format!("land-{engine}"));
        fs::write(&path, vec![0u8; 4 << 20]).unwrap();
        let out = iolab(&[
            "run",
            "--name=land",
            &format!("--filename={}", path.display()),
            "--direct=1",
            "--rw=randwrite",
            "--bs=4k",
            "--offset=1m",
            "--size=1m",
            &format!("--ioengine={engine}"),
            "--iodepth=4",
            // The test made the file: an existing file is written only with consent.
            "--allow-destroy",
        ]);
        assert_eq!(out.code, 0, "{engine}: {}", out.stderr);
        let data = fs::read(&path).unwrap();
        assert_eq!(data.len(), 4 << 20, "{engine}: the file must not grow");
        assert_only_region_written(&data, (1 << 20)..(2 << 20), engine);
    }
}

/// The same on a loop device, read back through its backing file.
#[test]
fn written_data_lands_where_it_should_on_a_loop_device() {
    let _g = device_lock();
    let Some(dev) = loop_device(8 << 20, false) else {
        return;
    };
    let out = iolab(&[
        "run",
        "--name=land",
        &format!("--filename={}", dev.path.display()),
        "--direct=1",
        "--rw=randwrite",
        "--bs=4k",
        "--offset=2m",
        "--size=2m",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--allow-destroy",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = fs::read(&dev.backing).unwrap();
    assert_only_region_written(&data, (2 << 20)..(4 << 20), "loop device");
}

/// Every 4 KiB block inside `region` holds written (non-zero) data; every block outside is
/// still zero.
fn assert_only_region_written(data: &[u8], region: std::ops::Range<usize>, what: &str) {
    for (i, block) in data.chunks(4096).enumerate() {
        let off = i * 4096;
        let written = !block.iter().all(|&b| b == 0);
        assert_eq!(
            written,
            region.contains(&off),
            "{what}: block at {off} written={written}"
        );
    }
}

fn one_line_error(out: &support::Out, needle: &str) {
    assert_eq!(out.code, 2, "stdout: {} stderr: {}", out.stdout, out.stderr);
    assert_eq!(
        out.stderr.trim().lines().count(),
        1,
        "one line: {}",
        out.stderr
    );
    assert!(
        out.stderr.contains(needle),
        "wanted '{needle}' in: {}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", out.stdout);
}

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let fname = format!("--filename={}", f.display());
    let cases: &[(&[&str], &str)] = &[
        (&["--bogus=1"], "unknown option 'bogus'"),
        (&["--runtme=1"], "did you mean 'runtime'"),
        (
            &["--trim_backlog=8"],
            "option 'trim_backlog' is not supported by iolab yet",
        ),
        (&["--verify=bogus"], "option 'verify': bad value 'bogus'"),
        (&["--bs=4x", "--size=1m"], "'x' is no unit"),
        (&["--runtime=5parsecs", "--size=1m"], "'parsecs' is no unit"),
        (&["--iodepth=0", "--size=1m"], "iodepth"),
        (
            &["--ioengine=spdk_bdev", "--size=1m"],
            "unknown ioengine 'spdk_bdev'",
        ),
        #[cfg(not(feature = "spdk"))]
        (
            &["--ioengine=spdk", "--size=1m"],
            "built without SPDK; build it with `bash scripts/spdk-build.sh",
        ),
        (&["--rw=randread"], "does not exist; give size="),
        (
            &["--rw=randwrite", "--size=1m", "--output-format=xml"],
            "output-format",
        ),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["run", "--name=bad", &fname];
        args.extend_from_slice(extra);
        let out = iolab(&args);
        one_line_error(&out, needle);
        assert!(!f.exists(), "{extra:?} created the file");
    }
    one_line_error(&iolab(&["--runtime=soon"]), "is not a time");
    one_line_error(&iolab(&["--engines=spdk"]), "unknown engine 'spdk'");
}

#[test]
fn direct_io_alignment_is_checked_against_the_device() {
    let _g = device_lock();
    let Some(b) = backings(16 << 20)
        .into_iter()
        .find(|b| !matches!(b, Backing::File(..)))
    else {
        eprintln!("skipped: no block device to check alignment on");
        return;
    };
    let lbs: u32 = support::logical_block_size(b.path());
    if lbs <= 512 {
        eprintln!(
            "skipped: {} has 512-byte blocks; nothing smaller to misalign",
            b.path().display()
        );
        return;
    }
    let out = iolab(&[
        "run",
        "--name=align",
        &format!("--filename={}", b.path().display()),
        "--direct=1",
        "--rw=randread",
        "--bs=512",
        "--size=1m",
    ]);
    one_line_error(&out, "is not a multiple of the logical block size");
}

#[test]
fn writes_to_block_devices_need_allow_destroy_and_signatures_are_named() {
    let _g = device_lock();
    let Some(dev) = loop_device(32 << 20, false) else {
        return;
    };
    let target = format!("--filename={}", dev.path.display());
    let write = [
        "run",
        "--name=w",
        &target,
        "--direct=1",
        "--rw=write",
        "--bs=64k",
        "--size=1m",
    ];
    one_line_error(&iolab(&write), "--allow-destroy");
    // Reading is always allowed.
    let out = iolab(&[
        "run",
        "--name=r",
        &target,
        "--direct=1",
        "--rw=read",
        "--bs=64k",
        "--size=1m",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    // An ext4 signature is named, and refused without the flag.
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&dev.path)
        .output();
    if !mk.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped signature checks: mkfs.ext4 failed or is missing");
        return;
    }
    let before = fs::read(&dev.backing).unwrap();
    one_line_error(&iolab(&write), "signature libblkid calls ext4");
    assert_eq!(
        fs::read(&dev.backing).unwrap(),
        before,
        "nothing was written"
    );

    // Mounted: refused even with --allow-destroy.
    let mnt = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .arg(&dev.path)
        .arg(mnt.path())
        .status();
    if mounted.is_ok_and(|s| s.success()) {
        let mut w = write.to_vec();
        w.push("--allow-destroy");
        let out = iolab(&w);
        let _ = Command::new("umount").arg(mnt.path()).status();
        one_line_error(&out, "is mounted");
    } else {
        eprintln!("skipped mounted check: mount failed here");
    }

    // With the flag, an unmounted device with a signature is overwritten.
    let mut w = write.to_vec();
    w.push("--allow-destroy");
    let out = iolab(&w);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn partitioned_devices_are_refused_without_allow_destroy() {
    let _g = device_lock();
    let Some(dev) = loop_device(16 << 20, true) else {
        return;
    };
    let part = std::path::PathBuf::from(format!("{}p1", dev.path.display()));
    if !part.exists() {
        eprintln!("skipped: the kernel did not create {}", part.display());
        return;
    }
    let out = iolab(&[
        "run",
        "--name=w",
        &format!("--filename={}", dev.path.display()),
        "--rw=write",
        "--bs=64k",
        "--size=1m",
        "--direct=1",
    ]);
    one_line_error(&out, "has partitions");
}

#[test]
fn json_output_is_pure_json_with_fio_keys() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("j");
    let out = iolab(&[
        "run",
        "--name=j",
        &format!("--filename={}", f.display()),
        "--size=4m",
        "--direct=1",
        "--rw=randrw",
        "--rwmixread=70",
        "--ioengine=libaio",
        "--iodepth=4",
        "--time_based",
        "--runtime=300ms",
        "--lat_percentiles=1",
        "--percentile_list=50:99:99.999",
        "--output-format=json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("stdout is one JSON document");
    for k in ["fio version", "timestamp", "timestamp_ms", "time", "jobs"] {
        assert!(v.get(k).is_some(), "missing top-level {k}");
    }
    let job = &v["jobs"][0];
    for k in [
        "jobname",
        "groupid",
        "error",
        "elapsed",
        "job options",
        "read",
        "write",
        "job_runtime",
        "usr_cpu",
        "sys_cpu",
        "ctx",
    ] {
        assert!(job.get(k).is_some(), "missing job key {k}");
    }
    assert_eq!(job["jobname"], "j");
    assert_eq!(job["job options"]["rw"], "randrw");
    for d in ["read", "write"] {
        let r = &job[d];
        for k in [
            "io_bytes",
            "io_kbytes",
            "bw_bytes",
            "bw",
            "iops",
            "runtime",
            "total_ios",
            "slat_ns",
            "clat_ns",
            "lat_ns",
        ] {
            assert!(r.get(k).is_some(), "missing {d}.{k}");
        }
        for lat in ["slat_ns", "clat_ns", "lat_ns"] {
            for k in ["min", "max", "mean", "stddev", "N"] {
                assert!(r[lat].get(k).is_some(), "missing {d}.{lat}.{k}");
            }
        }
        let keys: Vec<&String> = r["clat_ns"]["percentile"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, vec!["50.000000", "99.000000", "99.999000"]);
        assert!(r["lat_ns"]["percentile"].is_object());
        assert!(
            r["slat_ns"]["N"].as_u64().unwrap() > 0,
            "libaio reports submission latency"
        );
    }
    let reads = job["read"]["total_ios"].as_f64().unwrap();
    let writes = job["write"]["total_ios"].as_f64().unwrap();
    let share = reads / (reads + writes);
    assert!((0.6..0.8).contains(&share), "rwmixread=70 gave {share}");
    assert!(v["iolab"]["clock_source"].is_string());
}

/// iolab's JSON has the keys fio's JSON has for the same job (where iolab produces them).
#[test]
fn json_keys_match_real_fio() {
    if Command::new("fio").arg("--version").output().is_err() {
        eprintln!("skipped: fio is not installed (apt-get install fio)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("k");
    let common = [
        "--name=k".to_string(),
        format!("--filename={}", f.display()),
        "--size=4m".into(),
        "--direct=1".into(),
        "--rw=randread".into(),
        "--ioengine=libaio".into(),
        "--iodepth=2".into(),
        "--lat_percentiles=1".into(),
        "--output-format=json".into(),
    ];
    let ours = iolab_json(&common);
    let fio = Command::new("fio")
        .args(&common)
        .arg("--thread")
        .output()
        .unwrap();
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let (o, t) = (&ours["jobs"][0], &theirs["jobs"][0]);
    // The keys fio 3.42 adds to a job, which iolab writes too.
    const FIO_342: [&str; 3] = iolab_fio::json::FIO_342_JOB_KEYS;
    for k in keys(o).iter().filter(|k| *k != "iolab") {
        assert!(
            t.get(k).is_some() || FIO_342.contains(&k.as_str()),
            "iolab job key {k} is not fio's"
        );
    }
    // fio 3.42 (built by scripts/fio-build.sh): every key of its job and disk objects.
    let f342 =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fio/fio-3.42/fio");
    if f342.exists() {
        let out = Command::new(&f342)
            .args(&common)
            .arg("--thread")
            .output()
            .unwrap();
        let new: Value = serde_json::from_slice(&out.stdout).unwrap();
        for k in keys(&new["jobs"][0]) {
            assert!(o.get(&k).is_some(), "fio 3.42's job key {k} is missing");
        }
        for k in keys(&new["disk_util"][0]) {
            assert!(
                ours["disk_util"][0].get(&k).is_some(),
                "fio 3.42's disk_util key {k}"
            );
        }
    } else {
        println!("note: no fio 3.42 build here (bash scripts/fio-build.sh): its keys untried");
    }
    for d in ["read", "write"] {
        for k in keys(&o[d]) {
            assert!(t[d].get(&k).is_some(), "iolab {d}.{k} is not fio's");
        }
        for lat in ["slat_ns", "clat_ns", "lat_ns"] {
            assert_eq!(keys(&o[d][lat]), keys(&t[d][lat]), "{d}.{lat} keys");
        }
    }
    assert_eq!(
        keys(&o["read"]["clat_ns"]["percentile"]),
        keys(&t["read"]["clat_ns"]["percentile"]),
        "fio's default percentiles, no more"
    );
    assert!(
        o["iolab"]["clat_p99.999_ns"]["read"].as_u64().unwrap() > 0,
        "iolab's p99.999 under its own name: {}",
        o["iolab"]
    );
    assert_eq!(
        o["read"]["total_ios"], t["read"]["total_ios"],
        "same size, same I/O count"
    );
    assert_eq!(o["read"]["io_bytes"], t["read"]["io_bytes"]);
}

#[test]
fn group_reporting_merges_numjobs_copies() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("g").display());
    let base = [
        "--name=g",
        &f,
        "--size=1m",
        "--rw=randread",
        "--numjobs=2",
        "--output-format=json",
    ];
    let mut a: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    let split = iolab_json(&a);
    assert_eq!(split["jobs"].as_array().unwrap().len(), 2);
    a.push("--group_reporting".into());
    let merged = iolab_json(&a);
    let jobs = merged["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0]["read"]["total_ios"], 512, "two copies of 256 I/Os");
    assert_eq!(jobs[0]["iolab"]["clones"], 2);
}

#[test]
fn signals_stop_the_run_and_print_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let child = Command::new(env!("CARGO_BIN_EXE_iolab"))
            .env("IOLAB_DB", support::test_db())
            .args([
                "run",
                "--name=long",
                "--size=4m",
                "--rw=randread",
                "--time_based",
                "--runtime=60",
            ])
            .arg(format!("--filename={}", dir.path().join("s").display()))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: plain kill(2) on our child's pid.
        unsafe { libc::kill(child.id() as i32, sig) };
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "signal {sig}: {stdout}");
        assert!(
            stdout.contains("INTERRUPTED") && stdout.contains("IOPS="),
            "{stdout}"
        );
    }
}

/// A job that fails mid-run (its file is truncated under it) ends the run with exit 1 and
/// its name, while the other job finishes; nothing hangs waiting for the failed worker.
#[test]
fn a_job_failing_mid_run_fails_the_run_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let mut child = Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_DB", support::test_db())
        .args(["run", "--size=4m", "--rw=read", "--time_based"])
        .arg("--name=a")
        .arg(format!("--filename={}", a.display()))
        .arg("--runtime=30")
        .arg("--name=b")
        .arg(format!("--filename={}", dir.path().join("b").display()))
        .arg("--runtime=3")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    fs::OpenOptions::new()
        .write(true)
        .open(&a)
        .unwrap()
        .set_len(0)
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("iolab hung after a job failed mid-run");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("job 'a'") && stderr.contains("short transfer"),
        "{stderr}"
    );
}

#[test]
fn hipri_without_poll_queues_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let f = format!("--filename={}", dir.path().join("h").display());
    let out = iolab(&[
        "run",
        "--name=h",
        &f,
        "--size=1m",
        "--direct=1",
        "--rw=randread",
        "--ioengine=pvsync2",
        "--hipri",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("note: pvsync2 --hipri") && out.stdout.contains("interrupt"),
        "{}",
        out.stdout
    );
    let out = iolab(&[
        "run",
        "--name=h",
        &f,
        "--size=1m",
        "--direct=1",
        "--rw=randread",
        "--ioengine=io_uring",
        "--hipri",
    ]);
    one_line_error(&out, "needs a device with poll queues");
}

#[test]
fn main_job_prints_the_qd1_tables() {
    let out = iolab(&[
        "--runtime=300ms",
        "--ramp_time=0",
        "--engines=psync,libaio,io_uring+iopoll,null",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for needle in [
        "| IOPS",
        "| Mean Latency",
        "| 99th Percentile Latency",
        "| 99.999th Percentile Latency",
        "4KiB Random Read",
        "4KiB Random Write",
        "psync",
        "libaio",
        "n/a (io_uring+iopoll 4KiB Random Read",
        "3 rounds of 100 ms per cell",
        "- Marks: bold is best beyond the 95 % intervals of the cells' 3 rounds",
    ] {
        assert!(
            out.stdout.contains(needle),
            "missing {needle}:\n{}",
            out.stdout
        );
    }
}

#[test]
fn main_job_on_a_block_device_refuses_writes_without_the_flag() {
    let _g = device_lock();
    let Some(dev) = loop_device(8 << 20, false) else {
        return;
    };
    let out = iolab(&[
        "--target",
        dev.path.to_str().unwrap(),
        "--runtime=100ms",
        "--ramp_time=0",
        "--engines=psync",
    ]);
    // The reads are measured; the write row is n/a with the flag that would allow it.
    assert_eq!(out.code, 0, "{}", out.stderr);
    let read_row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("| 4KiB Random Read"))
        .unwrap();
    assert!(!read_row.contains("n/a"), "{}", out.stdout);
    let write_row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("| 4KiB Random Write"))
        .unwrap();
    assert_eq!(
        write_row.split('|').map(str::trim).nth(2),
        Some("n/a"),
        "{write_row}"
    );
    assert!(
        out.stdout
            .contains("- n/a (psync 4KiB Random Write): refusing to write to")
            && out.stdout.contains("pass --allow-destroy"),
        "{}",
        out.stdout
    );
    let before = fs::read(&dev.backing).unwrap();
    assert!(before.iter().all(|&b| b == 0), "nothing was written");
}

/// A short sanity check that a zram run reports io_uring's hand-off to kernel workers.
#[test]
fn io_uring_on_zram_reports_kernel_worker_cpu() {
    let _g = device_lock();
    let Some(Backing::Zram(path)) = backings(16 << 20)
        .into_iter()
        .find(|b| matches!(b, Backing::Zram(_)))
    else {
        eprintln!("skipped: no /dev/zram0");
        return;
    };
    // Fill the region first: zram answers never-written pages without doing any work.
    let f = fs::OpenOptions::new().write(true).open(&path).unwrap();
    let junk: Vec<u8> = (0..(1 << 20))
        .map(|i: u32| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    for i in 0..8u64 {
        f.write_all_at(&junk, i << 20).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    let v = iolab_json(&[
        "--name=z".into(),
        format!("--filename={}", path.display()),
        "--size=8m".into(),
        "--direct=1".into(),
        "--rw=randread".into(),
        "--ioengine=io_uring".into(),
        "--time_based".into(),
        "--runtime=1".into(),
    ]);
    let job = &v["jobs"][0];
    let iowq = job["iolab"]["cpu_ns"]["io_wq_workers"].as_u64().unwrap();
    assert!(iowq > 0, "io-wq CPU was counted: {job}");
}
