//! Latency windows and live counters through the real runner (null engine: no device
//! needed): a time-based job asking for windows gets one summary per window, and the live
//! counters end at the job's own totals.

use std::time::Duration;

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{JobSpec, SizeSpec};
use iolab_runner::{prepare, run_jobs, LiveCounters, RunOptions};
use iolab_stats::Clock;

#[test]
fn windows_cover_the_run_and_live_counters_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = JobSpec::new("w", dir.path().join("f"));
    j.engine = EngineConfig::new(EngineKind::Null);
    j.size = Some(SizeSpec::Bytes(1 << 20));
    j.time_based = true;
    j.runtime = Some(Duration::from_millis(1200));
    j.latency_window = Some(Duration::from_millis(200));
    std::fs::write(dir.path().join("f"), vec![0u8; 1 << 20]).unwrap();
    let jobs = prepare(&[j], &iolab_sysinfo::Consent::new("--allow-destroy")).unwrap();
    let live = LiveCounters::default();
    let clock = Clock::calibrate(Duration::from_millis(10));
    let out = run_jobs(
        &jobs,
        &RunOptions {
            clock,
            progress: None,
            live: Some(&live),
            live_text: None,
            status: None,
            watchdog: None,
            peers: None,
            keep_rseq: false,
            lean_loop: true,
            health_every: Some(iolab_runner::run::HEALTH_EVERY),
        },
    )
    .unwrap();
    let read = out.jobs[0].dirs[0].as_ref().unwrap();
    // Six 200 ms windows end within 1.2 s (the last may fall just past the deadline).
    assert!(
        (5..=6).contains(&read.windows.len()),
        "{}",
        read.windows.len()
    );
    for w in &read.windows {
        assert!(w.ios > 0);
        assert!(w.p50 <= w.p99 && w.p99 <= w.p9999 && w.p9999 <= w.max);
    }
    let in_windows: u64 = read.windows.iter().map(|w| w.ios).sum();
    assert!(in_windows <= read.ios && in_windows * 10 >= read.ios * 8);
    // Live totals are added every 100 ms of measured time: all but the last 100 ms or so.
    let (ios, bytes) = live.totals();
    assert_eq!(live.by_direction()[0], (ios, bytes), "reads only");
    assert!(
        ios <= read.ios && ios * 10 >= read.ios * 8,
        "{ios} of {}",
        read.ios
    );
    assert_eq!(bytes, ios * 4096);
    // A job without windows keeps none.
    assert!(out.jobs[0].dirs[1].is_none());
}
