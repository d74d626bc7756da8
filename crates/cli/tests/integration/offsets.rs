//! Random offsets are fio's: the same job under fio 3.33 and iolab (with `--fio-offsets`,
//! which zonemode=zbd implies) issues the same I/Os in the same order, read from each
//! tool's `write_iolog` (or, per job copy, its per-I/O latency log). Without it, iolab's
//! random map does the same blocks in an order of its own. Covers the random map and
//! `norandommap`, both Tausworthe generators, the seeds of `randrepeat`, `randseed` and
//! `allrandrepeat`, the passes of `loops` and `io_size`, time-based runs (the same I/Os as
//! far as the shorter run goes), job copies, and random writes over emulated zones
//! (`zonemode=zbd`), also with writes in flight, where the same I/Os mean the same write
//! pointers zone for zone.

use std::fs;
use std::path::Path;

use crate::file_setup::{lat_logged_ios, logged_ios, run_in};
use crate::jobfiles::fio_available;

/// Runs `args` (fio's words) under both tools over a fresh `f` in `dir` (made at `made`
/// bytes first where given, as zbd's emulated zones need), each writing `TOOL.log`: the
/// I/Os of fio's log and of iolab's.
fn both(dir: &Path, args: &[&str], made: Option<u64>) -> [Vec<String>; 2] {
    for tool in ["fio", "iolab"] {
        let _ = fs::remove_file(dir.join(format!("{tool}.log")));
    }
    run_both(dir, args, made)
}

/// [`both`], leaving the logs of an earlier run in place.
fn both_keeping_logs(dir: &Path, args: &[&str]) -> [Vec<String>; 2] {
    run_both(dir, args, None)
}

fn run_both(dir: &Path, args: &[&str], made: Option<u64>) -> [Vec<String>; 2] {
    run_both_ordered(dir, args, made, true)
}

/// [`run_both`]; `fio_order`: iolab runs with `--fio-offsets`.
fn run_both_ordered(
    dir: &Path,
    args: &[&str],
    made: Option<u64>,
    fio_order: bool,
) -> [Vec<String>; 2] {
    let f = dir.join("f");
    ["fio", "iolab"].map(|tool| {
        let _ = fs::remove_file(&f);
        if let Some(len) = made {
            fs::File::create(&f).unwrap().set_len(len).unwrap();
        }
        let log = dir.join(format!("{tool}.log"));
        let mut all = vec![
            format!("--filename={}", f.display()),
            format!("--write_iolog={}", log.display()),
            "--output=/dev/null".to_string(),
        ];
        if tool == "iolab" && made.is_some() {
            // Consent for the file made before the run (fio writes it without asking).
            all.push("--allow-destroy".to_string());
        }
        if tool == "iolab" && fio_order {
            all.push("--fio-offsets".into());
        }
        all.extend(args.iter().map(|a| a.to_string()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, err) = run_in(dir, tool, &all);
        assert_eq!(code, 0, "{tool} {args:?}: {err}");
        logged_ios(&log)
    })
}

#[test]
fn a_random_jobs_ios_are_fios_in_fios_order() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = ["--name=r", "--size=4m", "--bs=4k", "--ioengine=psync"];
    let cases: &[(&[&str], usize)] = &[
        (&["--rw=randread"], 1024),
        (&["--rw=randwrite"], 1024),
        (&["--rw=randread", "--norandommap"], 1024),
        (&["--rw=randread", "--random_generator=tausworthe64"], 1024),
        (&["--rw=randread", "--bs=8k", "--blockalign=4k"], 512),
        // Each loop and each io_size pass starts the same walk again, as fio reseeds it.
        (&["--rw=randread", "--loops=2"], 2048),
        (&["--rw=randread", "--io_size=12m"], 3072),
        // randseed moves fio's offsets only with randrepeat=0; then passes go on unseeded.
        (&["--rw=randread", "--randseed=1234"], 1024),
        (
            &[
                "--rw=randread",
                "--randrepeat=0",
                "--randseed=5",
                "--loops=2",
            ],
            2048,
        ),
        (
            &["--rw=randread", "--randrepeat=0", "--allrandrepeat=1"],
            1024,
        ),
        (
            &["--rw=randwrite", "--ioengine=libaio", "--iodepth=8"],
            1024,
        ),
    ];
    for (extra, ios) in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let [fio, iolab] = both(dir.path(), &args, None);
        assert_eq!(fio.len(), *ios, "{extra:?}: fio's I/Os");
        if let Some(i) = (0..fio.len()).find(|&i| fio.get(i) != iolab.get(i)) {
            panic!(
                "{extra:?}: I/O {i} is {:?} in fio, {:?} in iolab",
                fio[i],
                iolab.get(i)
            );
        }
        assert_eq!(iolab.len(), fio.len(), "{extra:?}");
    }
}

#[test]
fn by_default_the_random_map_does_fios_blocks_in_iolabs_order() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--name=r",
        "--size=4m",
        "--bs=4k",
        "--rw=randwrite",
        "--loops=2",
    ];
    let [mut fio, mut iolab] = run_both_ordered(dir.path(), &args, None, false);
    assert_eq!(iolab.len(), 2048);
    assert_ne!(fio, iolab, "iolab's own order");
    // Each pass does every block once, in both tools.
    for pass in 0..2 {
        let mut a = fio[pass * 1024..(pass + 1) * 1024].to_vec();
        let mut b = iolab[pass * 1024..(pass + 1) * 1024].to_vec();
        a.sort();
        b.sort();
        a.dedup();
        b.dedup();
        assert_eq!(a.len(), 1024, "pass {pass}: every block once");
        assert_eq!(a, b, "pass {pass}: the same blocks");
    }
    fio.sort();
    iolab.sort();
    assert_eq!(fio, iolab);
}

#[test]
fn a_time_based_random_job_repeats_fios_ios_for_as_long_as_both_run() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 64 blocks: a pass every 64 I/Os, so the map is reset (and fio's spent draw taken)
    // hundreds of times within the second.
    let args = [
        "--name=t",
        "--size=256k",
        "--bs=4k",
        "--rw=randread",
        "--time_based",
        "--runtime=1",
    ];
    let [fio, iolab] = both(dir.path(), &args, None);
    let n = fio.len().min(iolab.len());
    assert!(n > 2_000, "only {n} I/Os");
    assert_eq!(fio[..n], iolab[..n], "the first {n} I/Os");
}

#[test]
fn each_job_copy_draws_fios_offsets_for_its_number() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let mut logs = Vec::new();
    for tool in ["fio", "iolab"] {
        let _ = fs::remove_file(&f);
        let prefix = dir.path().join(tool);
        let args = [
            "--name=c".to_string(),
            format!("--filename={}", f.display()),
            "--size=1m".into(),
            "--rw=randread".into(),
            "--numjobs=3".into(),
            format!("--write_lat_log={}", prefix.display()),
            "--log_offset=1".into(),
            "--output=/dev/null".into(),
        ];
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        if tool == "iolab" {
            args.push("--fio-offsets");
        }
        let (code, err) = run_in(dir.path(), tool, &args);
        assert_eq!(code, 0, "{tool}: {err}");
        let copies: Vec<Vec<String>> = (1..=3)
            .map(|n| lat_logged_ios(&dir.path().join(format!("{tool}_clat.{n}.log")), &f))
            .collect();
        logs.push(copies);
    }
    for (n, (fio, iolab)) in logs[0].iter().zip(&logs[1]).enumerate() {
        assert_eq!(fio.len(), 256, "copy {}", n + 1);
        assert_eq!(fio, iolab, "copy {}", n + 1);
    }
    assert_ne!(logs[0][0], logs[0][1], "the copies walk differently");
}

#[test]
fn random_writes_over_emulated_zones_leave_fios_write_pointers() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 16 zones, 4 open at a time, three passes of the map: zones fill, are reset and are
    // written again, each write at its zone's pointer.
    let base = [
        "--name=z",
        "--rw=randwrite",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--max_open_zones=4",
        "--bs=64k",
        "--size=16m",
        "--io_size=48m",
    ];
    // With writes in flight, a write that must wait for them (to reset a zone, or for a
    // zone to close) waits where fio waits and goes on as fio goes on, and a new pass starts
    // once the last one's writes are done, as fio's.
    let cases: &[&[&str]] = &[
        &[],
        &["--max_open_zones=2", "--bs=128k"],
        &["--zone_reset_threshold=0.3", "--zone_reset_frequency=1"],
        &["--ioengine=libaio", "--iodepth=4"],
        &[
            "--ioengine=libaio",
            "--iodepth=8",
            "--zone_reset_threshold=0.2",
            "--zone_reset_frequency=0.5",
        ],
        &["--ioengine=io_uring", "--iodepth=16", "--max_open_zones=3"],
    ];
    for extra in cases {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let [fio, iolab] = both(dir.path(), &args, Some(16 << 20));
        assert!(fio.len() >= 384, "{extra:?}: {} I/Os", fio.len());
        // Every write goes at its zone's pointer: the same writes in the same order leave
        // the same pointers, zone for zone.
        assert_eq!(fio, iolab, "{extra:?}");
    }
}

#[test]
fn write_iolog_adds_to_an_existing_log_as_fio() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = ["--name=a", "--size=64k", "--rw=randread"];
    let mut twice = Vec::new();
    for _ in 0..2 {
        let [fio, iolab] = both_keeping_logs(dir.path(), &args);
        twice.push((fio, iolab));
    }
    let (fio, iolab) = &twice[1];
    assert_eq!(fio.len(), 32, "fio's log holds both runs");
    assert_eq!(fio, iolab);
    let text = fs::read_to_string(dir.path().join("iolab.log")).unwrap();
    assert_eq!(text.matches("fio version 3 iolog").count(), 2, "{text}");
}
