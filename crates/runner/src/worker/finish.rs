//! What a worker hands back when its loop is done: per-direction results, the depth
//! distributions, fsyncs, the I/O log, CPU, and the notes on how the kernel served it.

use iolab_engine::EngineKind;
use iolab_results::{DepthCounts, DirResult, PrioLatency};

use super::stats::DirStats;
use super::{LoopState, WorkerResult};
use crate::cpu::CpuSnapshot;
use crate::IoLog;

impl LoopState<'_, '_> {
    pub(super) fn finish(
        mut self,
        sync: bool,
        mut notes: Vec<String>,
        elapsed_ticks: u64,
    ) -> WorkerResult {
        let ramp_only = self.interrupted && !self.time.measuring;
        if ramp_only {
            // Stopped during the ramp (ramp_time or ramp_size): what it did was warm-up, never
            // the job's results.
            let now = self.clock.now();
            self.rec.reset(now);
            self.syncer.reset();
            self.time.measure_start = now;
            self.time.measure_end = now;
            self.time.cpu_used = CpuSnapshot::default();
            notes.push(
                "interrupted during ramp_time: the warm-up's I/O is not reported; nothing \
                 was measured"
                    .into(),
            );
        }
        let spec = &self.w.job.spec;
        let cpu = self.time.cpu_used;
        if spec.engine.kind == EngineKind::IoUring {
            notes.extend(io_wq_note(&cpu, &spec.filename));
        }
        let depth = if sync {
            sync_depth(&self.rec.stats)
        } else {
            self.rec.depth
        };
        let log = self.take_log();
        let end_ns = self.clock.ticks_to_ns(self.clock.now()) as u64;
        let trace = self.issue.trace.take().map(|t| t.finish(end_ns));
        if let Some(l) = log.as_ref().filter(|l| l.dropped > 0) {
            notes.push(format!(
                "I/O log: kept the first {} I/Os of the measured window and dropped {} (the \
                 logs' share of available memory); use log_avg_msec for a long run",
                l.per_io.len(),
                l.dropped
            ));
        }
        let syncs = spec.fsync_every > 0 || spec.fdatasync_every > 0 || spec.sync_file_range.0 > 0;
        let sync_result = syncs.then(|| DirResult {
            ios: self.syncer.count,
            bytes: 0,
            slat: None,
            clat: self.syncer.lat.clone(),
            lat: self.syncer.lat.clone(),
            samples: Vec::new(),
            windows: Vec::new(),
            prios: Vec::new(),
            sampling: spec.sampling(),
            open_loop: None,
            lat_split: None,
            pooled: None,
        });
        // A write job that verified reports its reads back, as fio.
        let verify_reads = self.verify.is_some() && self.rec.stats[0].ios > 0;
        let issued =
            [spec.reads() || verify_reads, spec.writes(), spec.trims()].map(|i| i && !ramp_only);
        let window_ns = self.clock.ticks_to_ns(
            self.time
                .measure_end
                .saturating_sub(self.time.measure_start),
        ) as u64;
        for o in self.rec.stats.iter_mut().filter_map(|s| s.open.as_mut()) {
            o.cpu_wait_ns = cpu.wait_ns;
            o.window_ns = window_ns;
        }
        let [read, write, trim] = self.rec.stats;
        WorkerResult {
            dirs: [
                issued[0].then(|| dir_result(read, sync, spec.sampling())),
                issued[1].then(|| dir_result(write, sync, spec.sampling())),
                issued[2].then(|| dir_result(trim, sync, spec.sampling())),
            ],
            runtime_ticks: self
                .time
                .measure_end
                .saturating_sub(self.time.measure_start),
            elapsed_ticks,
            cpu,
            depth,
            sync: sync_result,
            log,
            trace,
            errors: self.errors.result(),
            zone_resets: self.issue.zbd.as_ref().map_or(0, |z| z.resets),
            notes,
            fallback: None,
            engine_setup: None,
            interrupted: self.interrupted,
            steady: None,
            error: None,
            lat_target: self.search.as_ref().map(|s| {
                let t = &spec.lat_target;
                iolab_results::LatTargetResult {
                    depth: s.qd,
                    target_ns: t.target.as_nanos() as u64,
                    window_us: t.window.as_micros() as u64,
                    percentile: t.percentile,
                }
            }),
        }
    }

    /// A copy of what was measured so far, for an interim status (fio's
    /// `--status-interval`): the directions' figures, the time measured, the CPU used.
    #[cold]
    pub(super) fn snapshot(&self) -> WorkerResult {
        let spec = &self.w.job.spec;
        let sync = self.synchronous;
        let issued = [
            spec.reads() || self.verify.is_some(),
            spec.writes(),
            spec.trims(),
        ]
        .map(|i| i && self.time.measuring);
        let [read, write, trim] = self.rec.stats.clone();
        let now = self.clock.now();
        let runtime_ticks = match self.time.measuring {
            true => now.saturating_sub(self.time.measure_start),
            false => 0,
        };
        WorkerResult {
            dirs: [
                issued[0].then(|| dir_result(read, sync, spec.sampling())),
                issued[1].then(|| dir_result(write, sync, spec.sampling())),
                issued[2].then(|| dir_result(trim, sync, spec.sampling())),
            ],
            runtime_ticks,
            elapsed_ticks: runtime_ticks,
            cpu: CpuSnapshot::of_current_thread().since(&self.time.cpu_start),
            depth: match sync {
                true => sync_depth(&self.rec.stats),
                false => self.rec.depth,
            },
            sync: None,
            log: None,
            trace: None,
            errors: self.errors.result(),
            zone_resets: self.issue.zbd.as_ref().map_or(0, |z| z.resets),
            notes: Vec::new(),
            fallback: None,
            engine_setup: None,
            interrupted: false,
            steady: None,
            error: None,
            lat_target: None,
        }
    }

    fn take_log(&mut self) -> Option<IoLog> {
        let tick_ms = self.clock.ticks_to_ns(1_000_000) / 1e12;
        let end = self.time.measure_end;
        self.rec.logger.take().map(|l| l.finish(end, tick_ms))
    }
}

fn dir_result(st: DirStats, sync: bool, sampling: iolab_results::Sampling) -> DirResult {
    DirResult {
        sampling,
        ios: st.ios,
        bytes: st.bytes,
        samples: st.samples,
        windows: st.windows,
        slat: (!sync).then_some(st.slat),
        // Synchronous engines record one latency: submitting is completing.
        clat: if sync { st.lat.clone() } else { st.clat },
        lat: st.lat,
        prios: st
            .prios
            .into_iter()
            .map(|(ioprio, lat)| PrioLatency { ioprio, lat })
            .collect(),
        open_loop: st.open,
        lat_split: None,
        pooled: None,
    }
}

/// A synchronous engine's depths: one I/O in flight, one per call, always.
fn sync_depth(stats: &[DirStats]) -> DepthCounts {
    let ios: u64 = stats.iter().map(|s| s.ios).sum();
    let mut depth = DepthCounts::default();
    depth.level[0] = ios;
    depth.submit[1] = ios;
    depth.complete[1] = ios;
    depth
}

/// io_uring that handed its requests to kernel worker threads says so, with their share.
fn io_wq_note(cpu: &CpuSnapshot, target: &std::path::Path) -> Option<String> {
    if cpu.iowq_ns == 0 {
        return None;
    }
    let own = cpu.user_ns + cpu.sys_ns;
    let share = cpu.iowq_ns as f64 * 100.0 / (own + cpu.iowq_ns + cpu.sqpoll_ns).max(1) as f64;
    (share >= 5.0).then(|| {
        format!(
            "io_uring handed requests to kernel worker threads (io-wq): {share:.0}% of this \
             job's CPU was theirs. {} does not complete I/O without blocking (no NOWAIT \
             support), so requests pay a thread hand-off; fio does not count this CPU",
            target.display()
        )
    })
}
