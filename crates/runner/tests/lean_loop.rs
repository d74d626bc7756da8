//! The lean loop (simple jobs on io_uring, nothing timed per I/O) against the general loop,
//! through the real runner on a temp file: the same I/O counts, bytes and depth figures, and
//! a ramp's bytes forgotten in both. Which loop ran is on the setup line.

use std::time::Duration;

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{JobSpec, Pattern, SizeSpec};
use iolab_runner::{prepare, run_jobs, JobReport, RunOptions};
use iolab_stats::Clock;

/// Whether this kernel lets the test make an io_uring ring.
fn io_uring_allowed() -> bool {
    let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
        .map(|s| s.trim() != "0")
        .unwrap_or(false);
    if disabled {
        eprintln!("skipped: io_uring is disabled (kernel.io_uring_disabled)");
    }
    !disabled
}

/// A size-based job of `rw` over a 4 MiB file at `depth`, timing nothing per I/O.
fn job(dir: &std::path::Path, name: &str, pattern: Pattern, reads: bool, depth: u32) -> JobSpec {
    let path = dir.join(name);
    std::fs::write(&path, vec![7u8; 4 << 20]).unwrap();
    let mut j = JobSpec::new(name, path);
    j.engine = EngineConfig::new(EngineKind::IoUring);
    j.size = Some(SizeSpec::Bytes(4 << 20));
    j.pattern = pattern;
    j.read_percent = if reads { 100 } else { 0 };
    // Writes carry the pool's data as it is (`scramble_buffers=0`): stamping each one is
    // the general loop's work.
    j.buffers.scramble = false;
    j.iodepth = depth;
    j.recorded.slat = false;
    j.recorded.clat = false;
    j.recorded.lat = false;
    j
}

/// Runs `spec` in the lean loop where it may (`lean`) or always in the general one.
fn run(spec: &JobSpec, lean: bool) -> JobReport {
    let mut consent = iolab_sysinfo::Consent::new("--allow-destroy");
    consent.grant(&spec.filename);
    let jobs = prepare(std::slice::from_ref(spec), &consent).unwrap();
    let opts = RunOptions {
        clock: Clock::calibrate(Duration::from_millis(10)),
        progress: None,
        live: None,
        live_text: None,
        status: None,
        watchdog: None,
        peers: None,
        keep_rseq: false,
        lean_loop: lean,
        health_every: Some(iolab_runner::run::HEALTH_EVERY),
    };
    run_jobs(&jobs, &opts).unwrap().jobs.remove(0)
}

fn ran_lean(r: &JobReport) -> bool {
    r.engine_setup
        .as_deref()
        .is_some_and(|s| s.contains("lean loop"))
}

/// (I/Os, bytes) per direction.
fn moved(r: &JobReport) -> Vec<Option<(u64, u64)>> {
    r.dirs
        .iter()
        .map(|d| d.as_ref().map(|d| (d.ios, d.bytes)))
        .collect()
}

#[test]
fn the_lean_loop_moves_what_the_general_loop_moves() {
    if !io_uring_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = vec![
        job(dir.path(), "seqread", Pattern::Sequential, true, 1),
        job(dir.path(), "randread-map", Pattern::Random, true, 4),
        job(dir.path(), "seqwrite", Pattern::Sequential, false, 8),
        job(dir.path(), "randwrite", Pattern::Random, false, 1),
    ];
    jobs[1].random_map = true;
    jobs[3].random_map = false;
    jobs[3].block_size = [8192; 3];
    for j in &jobs {
        let (lean, general) = (run(j, true), run(j, false));
        assert!(ran_lean(&lean), "{}: {:?}", j.name, lean.engine_setup);
        assert!(
            !ran_lean(&general),
            "{}: {:?}",
            j.name,
            general.engine_setup
        );
        let bs = j.block_size[0] as u64;
        let ios = (4u64 << 20) / bs;
        let d = if j.read_percent == 100 { 0 } else { 1 };
        assert_eq!(moved(&lean), moved(&general), "{}", j.name);
        assert_eq!(moved(&lean)[d], Some((ios, ios * bs)), "{}", j.name);
        // At depth 1 every round is one I/O, so the depth figures cannot depend on timing.
        if j.iodepth == 1 {
            assert_eq!(lean.depth.level, general.depth.level, "{}", j.name);
            assert_eq!(lean.depth.submit, general.depth.submit, "{}", j.name);
            assert_eq!(lean.depth.complete, general.depth.complete, "{}", j.name);
        }
        let levels: u64 = lean.depth.level.iter().sum();
        assert_eq!(
            levels, ios,
            "{}: every I/O counted once at its depth",
            j.name
        );
    }
}

#[test]
fn a_ramp_is_forgotten_in_the_lean_loop_too() {
    if !io_uring_allowed() {
        return;
    }
    // The ramp ends a few thousand I/Os into the job's 4 MiB; the measured part then moves
    // all 4 MiB again, as fio's does once its ramp is over, plus the ramp's I/Os still in
    // flight when it ended (they complete in the window).
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), "ramped", Pattern::Sequential, true, 2);
    j.block_size = [512; 3];
    j.ramp_time = Duration::from_millis(2);
    for lean in [true, false] {
        let r = run(&j, lean);
        assert_eq!(ran_lean(&r), lean);
        let (ios, bytes) = moved(&r)[0].unwrap();
        assert!((8192..=8194).contains(&ios), "lean: {lean}: {ios}");
        assert_eq!(bytes, ios * 512);
        assert!(r.elapsed_ns > r.runtime_ns, "the ramp came first");
    }
}

#[test]
fn jobs_the_lean_loop_cannot_serve_run_in_the_general_one() {
    if !io_uring_allowed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = job(dir.path(), "j", Pattern::Random, true, 2);
    let mut timed = base.clone();
    timed.recorded.clat = true;
    let mut mixed = base.clone();
    mixed.read_percent = 70;
    let mut sized = base.clone();
    sized.block_dist[0] = iolab_job::BlockDist::Range { min: 512 };
    let mut stamped = base.clone();
    stamped.read_percent = 0;
    stamped.buffers.scramble = true;
    let mut zipf = base.clone();
    zipf.distribution = iolab_job::RandomDistribution::Zipf(1.2);
    for (what, j) in [
        ("clat", timed),
        ("randrw", mixed),
        ("bsrange", sized),
        ("zipf", zipf),
        ("scramble_buffers", stamped),
    ] {
        let r = run(&j, true);
        assert!(!ran_lean(&r), "{what}: {:?}", r.engine_setup);
        let ios: u64 = r.dirs.iter().flatten().map(|d| d.ios).sum();
        assert!(ios > 0, "{what}");
    }
    assert!(ran_lean(&run(&base, true)));
}
