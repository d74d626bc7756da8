//! One worker: a thread that owns a file descriptor, a buffer pool, an engine and its own
//! statistics, and runs the submit/reap loop.
//!
//! The loop is generic over the engine, so `queue`, `commit` and `reap` are direct calls. Per
//! I/O it reads the clock twice (synchronous engines) or shares one reading per submitted
//! batch and one per reaped batch (asynchronous engines, as fio's `t/io_uring` does), draws
//! an offset, and records into preallocated histograms: no allocation, no lock, no
//! formatting, no system call besides the I/O itself. Deadlines are compared in ticks.

use std::cell::Cell;
use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

use iolab_engine::{
    open_engine, BufferPool, Completion, Direction, EngineKind, EngineTarget, EngineVisitor,
    IoEngine, IoUnit, QueueStatus,
};
use iolab_job::OffsetGen;
use iolab_stats::{Clock, LatencyHistogram};

use crate::cpu::CpuSnapshot;
use crate::result::{DepthCounts, DirResult, Sample, SAMPLE_INTERVAL_NS};
use crate::{PreparedJob, RunError};

pub(crate) struct WorkerResult {
    pub dirs: [Option<DirResult>; 2],
    pub runtime_ticks: u64,
    /// From the phase's start (the barrier) to the end of this worker's I/O.
    pub elapsed_ticks: u64,
    pub cpu: CpuSnapshot,
    pub depth: DepthCounts,
    pub notes: Vec<String>,
    pub interrupted: bool,
}

pub(crate) struct Worker<'a> {
    pub job: &'a PreparedJob,
    pub clone_index: u32,
    pub clock: Clock,
    pub barrier: &'a Barrier,
    /// Set by a worker that failed to start, so the others do not run alone.
    pub abort: &'a AtomicBool,
    pub stop: &'a AtomicBool,
    /// Whether this worker has passed the start barrier. A worker that fails before it must
    /// still arrive there (or the others wait forever); one that fails after must not.
    pub started: Cell<bool>,
}

impl Worker<'_> {
    /// Sets up and runs; `Ok(None)` when another worker failed to start.
    pub fn run(self) -> Result<Option<WorkerResult>, RunError> {
        let result = self.setup_and_run();
        if result.is_err() && !self.started.get() {
            // Failed before reaching the barrier: release the others and tell them.
            self.abort.store(true, Ordering::SeqCst);
            self.barrier.wait();
        }
        result
    }

    fn setup_and_run(&self) -> Result<Option<WorkerResult>, RunError> {
        let spec = &self.job.spec;
        let job = || spec.name.clone();
        if let Some(cpus) = &spec.cpus_allowed {
            pin_to(cpus.cpus()).map_err(|e| RunError::Unusable {
                job: job(),
                reason: format!("cpus_allowed={cpus}: {e}"),
            })?;
        }
        let mut opts = OpenOptions::new();
        opts.read(true).write(spec.writes());
        if spec.direct {
            opts.custom_flags(libc::O_DIRECT);
        }
        let file = opts.open(&spec.filename).map_err(|source| RunError::Io {
            job: job(),
            path: spec.filename.clone(),
            dir: if spec.writes() {
                Direction::Write
            } else {
                Direction::Read
            },
            offset: 0,
            len: 0,
            source,
        })?;
        let depth = spec.effective_iodepth();
        let seed = spec
            .seed
            .wrapping_add(self.clone_index as u64 * 0x1_0000_0001);
        let pool = BufferPool::new(depth as usize, spec.max_block_size() as usize, seed);
        let facts = &self.job.facts;
        let name = match (&facts.kind, &facts.disk_name) {
            (iolab_sysinfo::TargetKind::File, Some(disk)) => {
                format!("{} (on disk {disk})", spec.filename.display())
            }
            _ => spec.filename.display().to_string(),
        };
        let target = EngineTarget {
            fd: file.as_raw_fd(),
            direct: spec.direct,
            polled_device: self.job.facts.polled,
            name: &name,
        };
        let looper = Looper {
            w: self,
            pool: &pool,
            seed,
        };
        let res = open_engine(&spec.engine, target, depth, &pool, looper)
            .map_err(|source| RunError::Engine { job: job(), source })?;
        // The engine (and any buffers it registered) is dropped before `pool` and `file`.
        res
    }
}

impl Worker<'_> {
    /// Sleeps through the job's `startdelay`, waking to notice a stop request; false if one
    /// came.
    fn delay_start(&self) -> bool {
        let until = std::time::Instant::now() + self.job.spec.start_delay;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let now = std::time::Instant::now();
            if now >= until {
                return true;
            }
            std::thread::sleep((until - now).min(std::time::Duration::from_millis(50)));
        }
    }
}

/// Receives the concrete engine and runs the loop for it.
struct Looper<'a, 'w> {
    w: &'a Worker<'w>,
    pool: &'a BufferPool,
    seed: u64,
}

impl EngineVisitor for Looper<'_, '_> {
    type Output = Result<Option<WorkerResult>, RunError>;

    fn visit<E: IoEngine>(self, mut engine: E) -> Self::Output {
        self.w.barrier.wait();
        self.w.started.set(true);
        if self.w.abort.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let phase_start = self.w.clock.now();
        if !self.w.delay_start() {
            // Stopped by a signal while waiting to start: nothing measured.
            return Ok(None);
        }
        let mut st = LoopState::new(self.w, self.seed);
        let sync = engine.capabilities().synchronous;
        let outcome = if sync {
            st.run_sync(&mut engine, self.pool)
        } else {
            st.run_async(&mut engine, self.pool)
        };
        let notes = engine.notes();
        drop(engine);
        outcome?;
        let elapsed = self.w.clock.now().saturating_sub(phase_start);
        Ok(Some(st.finish(sync, notes, elapsed)))
    }
}

/// Counters and histograms of one direction, while running.
struct DirStats {
    ios: u64,
    bytes: u64,
    slat: LatencyHistogram,
    clat: LatencyHistogram,
    lat: LatencyHistogram,
    samples: Vec<Sample>,
    /// Counters at the last sample.
    sampled: Sample,
}

impl DirStats {
    fn new(expected_samples: usize) -> DirStats {
        DirStats {
            ios: 0,
            bytes: 0,
            slat: LatencyHistogram::new(),
            clat: LatencyHistogram::new(),
            lat: LatencyHistogram::new(),
            samples: Vec::with_capacity(expected_samples),
            sampled: Sample::default(),
        }
    }

    fn reset(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.samples.clear();
        self.sampled = Sample::default();
        self.slat.reset();
        self.clat.reset();
        self.lat.reset();
    }
}

struct LoopState<'a, 'w> {
    w: &'a Worker<'w>,
    clock: Clock,
    offsets: OffsetGen,
    stats: [DirStats; 2],
    bs: [u64; 2],
    read_percent: u32,
    /// Bytes to issue in the measured phase (`u64::MAX` when time-based).
    byte_limit: u64,
    issued: u64,
    measuring: bool,
    run_ticks: u64,
    deadline: u64,
    measure_start: u64,
    measure_end: u64,
    /// Ticks per bandwidth/IOPS sample, and when the next is due (`u64::MAX`: never).
    sample_ticks: u64,
    next_sample: u64,
    depth: DepthCounts,
    cpu_start: CpuSnapshot,
    cpu_used: CpuSnapshot,
    interrupted: bool,
}

impl<'a, 'w> LoopState<'a, 'w> {
    fn new(w: &'a Worker<'w>, seed: u64) -> Self {
        let spec = &w.job.spec;
        let clock = w.clock;
        let run_ticks = spec
            .runtime
            .map_or(u64::MAX, |d| clock.duration_to_ticks(d));
        let ramp_ticks = clock.duration_to_ticks(spec.ramp_time);
        let sample_ticks =
            clock.duration_to_ticks(std::time::Duration::from_nanos(SAMPLE_INTERVAL_NS));
        // Room for every sample of a time-based run, so the loop never grows the vectors.
        let expected_samples = spec.runtime.filter(|_| spec.recorded.bw).map_or(64, |r| {
            (r.as_nanos() / SAMPLE_INTERVAL_NS as u128) as usize + 2
        });
        let now = clock.now();
        let mut st = LoopState {
            w,
            clock,
            offsets: OffsetGen::new(spec, w.job.region, seed),
            stats: [
                DirStats::new(expected_samples),
                DirStats::new(expected_samples),
            ],
            bs: [spec.block_size[0] as u64, spec.block_size[1] as u64],
            read_percent: spec.read_percent,
            byte_limit: if spec.time_based {
                u64::MAX
            } else {
                w.job.region.len.saturating_mul(spec.loops as u64)
            },
            issued: 0,
            measuring: false,
            run_ticks,
            deadline: now.saturating_add(ramp_ticks),
            measure_start: now,
            measure_end: now,
            sample_ticks: sample_ticks.max(1),
            next_sample: u64::MAX,
            depth: DepthCounts::default(),
            cpu_start: CpuSnapshot::default(),
            cpu_used: CpuSnapshot::default(),
            interrupted: false,
        };
        if ramp_ticks == 0 {
            st.begin_measuring(now);
        }
        st
    }

    /// The ramp is over (or there was none): forget what was measured, start the clock.
    #[cold]
    fn begin_measuring(&mut self, now: u64) {
        for s in &mut self.stats {
            s.reset();
        }
        self.issued = 0;
        self.depth = DepthCounts::default();
        self.measuring = true;
        self.measure_start = now;
        if self.w.job.spec.recorded.bw {
            self.next_sample = now.saturating_add(self.sample_ticks);
        }
        self.deadline = now.saturating_add(self.run_ticks);
        self.cpu_start = CpuSnapshot::of_current_thread();
    }

    /// One bandwidth/IOPS sample per direction for each interval that has ended (an interval
    /// in which nothing completed gets a zero sample).
    #[cold]
    fn take_samples(&mut self, now: u64) {
        while now >= self.next_sample {
            for s in &mut self.stats {
                s.samples.push(Sample {
                    bytes: s.bytes - s.sampled.bytes,
                    ios: s.ios - s.sampled.ios,
                });
                s.sampled = Sample {
                    bytes: s.bytes,
                    ios: s.ios,
                };
            }
            self.next_sample = self.next_sample.saturating_add(self.sample_ticks);
        }
    }

    #[cold]
    fn end_measuring(&mut self, now: u64) {
        self.measure_end = now;
        self.cpu_used = CpuSnapshot::of_current_thread().since(&self.cpu_start);
    }

    /// Checks the deadline and the stop flag (ending the ramp on the way): true when the
    /// measured window is over. Reaching the byte limit is not this: it stops issuing, but
    /// the I/Os still in flight are part of the job and are recorded.
    #[inline(always)]
    fn window_over(&mut self, now: u64) -> bool {
        if now >= self.deadline {
            if !self.measuring {
                self.begin_measuring(now);
            } else {
                return true;
            }
        }
        if self.w.stop.load(Ordering::Relaxed) {
            self.interrupted = true;
            return true;
        }
        false
    }

    #[inline(always)]
    fn bytes_done(&self) -> bool {
        self.issued >= self.byte_limit
    }

    #[inline(always)]
    fn next_io(&mut self, slot: u32, pool: &BufferPool) -> IoUnit {
        let dir = self.offsets.next_direction(self.read_percent);
        let len = self.bs[dir.index()];
        let offset = self.offsets.next(dir, len);
        self.issued += len;
        IoUnit {
            slot,
            dir,
            offset,
            len: len as u32,
            buf: pool.slot_ptr(slot as usize),
        }
    }

    fn io_error(&self, io_dir: Direction, offset: u64, len: u32, result: i64) -> RunError {
        let source = if result < 0 {
            std::io::Error::from_raw_os_error((-result) as i32)
        } else {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("short transfer: {result} of {len} bytes"),
            )
        };
        RunError::Io {
            job: self.w.job.spec.name.clone(),
            path: self.w.job.spec.filename.clone(),
            dir: io_dir,
            offset,
            len,
            source,
        }
    }

    fn engine_error(&self, source: iolab_engine::EngineError) -> RunError {
        RunError::Engine {
            job: self.w.job.spec.name.clone(),
            source,
        }
    }

    /// Synchronous engines: one I/O at a time, two clock reads each; submission and completion
    /// are the same call, so only `lat` is recorded (clat is the same histogram).
    fn run_sync<E: IoEngine>(&mut self, engine: &mut E, pool: &BufferPool) -> Result<(), RunError> {
        let mut now = self.clock.now();
        while !self.window_over(now) && !self.bytes_done() {
            let io = self.next_io(0, pool);
            let t0 = self.clock.now();
            let status = engine.queue(&io).map_err(|e| self.engine_error(e))?;
            now = self.clock.now();
            match status {
                QueueStatus::Completed(r) if r == io.len as i64 => {
                    let s = &mut self.stats[io.dir.index()];
                    s.ios += 1;
                    s.bytes += io.len as u64;
                    s.lat.record(now - t0);
                    if now >= self.next_sample {
                        self.take_samples(now);
                    }
                }
                QueueStatus::Completed(r) => {
                    return Err(self.io_error(io.dir, io.offset, io.len, r))
                }
                QueueStatus::Queued | QueueStatus::Busy => {
                    return Err(RunError::Worker {
                        job: self.w.job.spec.name.clone(),
                        reason: format!(
                            "{} declared itself synchronous but did not complete an I/O",
                            self.w.job.spec.engine.label()
                        ),
                    })
                }
            }
        }
        self.end_measuring(now);
        Ok(())
    }

    /// Asynchronous engines: keep up to iodepth I/Os in flight. One clock read before a
    /// submitted batch, one after its commit (slat), one per reaped batch (clat, lat).
    fn run_async<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        let depth = pool.slots();
        let mut free: Vec<u32> = (0..depth as u32).rev().collect();
        let mut start_t = vec![0u64; depth];
        let mut submit_t = vec![0u64; depth];
        let mut slot_io: Vec<(Direction, u64, u32)> = vec![(Direction::Read, 0, 0); depth];
        let mut batch: Vec<u32> = Vec::with_capacity(depth);
        let mut done = vec![Completion::default(); depth];
        let mut inflight = 0usize;
        let mut stopping = false;
        let mut now = self.clock.now();
        loop {
            if !stopping && self.window_over(now) {
                stopping = true;
                self.end_measuring(now);
            }
            if !stopping && !self.bytes_done() && !free.is_empty() {
                let t_start = self.clock.now();
                batch.clear();
                while let Some(&slot) = free.last() {
                    if self.bytes_done() {
                        break;
                    }
                    let io = self.next_io(slot, pool);
                    match engine.queue(&io).map_err(|e| self.engine_error(e))? {
                        QueueStatus::Queued => {
                            free.pop();
                            batch.push(slot);
                            self.depth.level[DepthCounts::level_bucket(inflight + batch.len())] +=
                                1;
                            start_t[slot as usize] = t_start;
                            slot_io[slot as usize] = (io.dir, io.offset, io.len);
                        }
                        QueueStatus::Busy => {
                            self.issued -= io.len as u64;
                            break;
                        }
                        QueueStatus::Completed(r) => {
                            if r != io.len as i64 {
                                return Err(self.io_error(io.dir, io.offset, io.len, r));
                            }
                            let t = self.clock.now();
                            let s = &mut self.stats[io.dir.index()];
                            s.ios += 1;
                            s.bytes += io.len as u64;
                            s.clat.record(t - t_start);
                            s.lat.record(t - t_start);
                        }
                    }
                }
                if !batch.is_empty() {
                    engine.commit().map_err(|e| self.engine_error(e))?;
                    let t_sub = self.clock.now();
                    self.depth.submit[DepthCounts::batch_bucket(batch.len())] += 1;
                    for &slot in &batch {
                        submit_t[slot as usize] = t_sub;
                        self.stats[slot_io[slot as usize].0.index()]
                            .slat
                            .record(t_sub - t_start);
                    }
                    inflight += batch.len();
                }
            }
            if inflight == 0 {
                if stopping {
                    return Ok(());
                }
                if self.bytes_done() {
                    self.end_measuring(self.clock.now());
                    return Ok(());
                }
                now = self.clock.now();
                continue;
            }
            let n = engine
                .reap(1, &mut done)
                .map_err(|e| self.engine_error(e))?;
            now = self.clock.now();
            self.depth.complete[DepthCounts::batch_bucket(n)] += 1;
            for i in 0..n {
                let c = done[i];
                let slot = c.slot as usize;
                let (dir, offset, len) = slot_io[slot];
                if c.result != len as i64 {
                    // Drain the rest before returning, so no buffer is freed under the kernel.
                    inflight -= n;
                    drain(engine, &mut done, inflight);
                    return Err(self.io_error(dir, offset, len, c.result));
                }
                free.push(c.slot);
                if !stopping {
                    let s = &mut self.stats[dir.index()];
                    s.ios += 1;
                    s.bytes += len as u64;
                    s.clat.record(now - submit_t[slot]);
                    s.lat.record(now - start_t[slot]);
                }
            }
            inflight -= n;
            if now >= self.next_sample && !stopping {
                self.take_samples(now);
            }
        }
    }

    fn finish(self, sync: bool, mut notes: Vec<String>, elapsed_ticks: u64) -> WorkerResult {
        let spec = &self.w.job.spec;
        let cpu = self.cpu_used;
        if spec.engine.kind == EngineKind::IoUring && cpu.iowq_ns > 0 {
            let own = cpu.user_ns + cpu.sys_ns;
            let share =
                cpu.iowq_ns as f64 * 100.0 / (own + cpu.iowq_ns + cpu.sqpoll_ns).max(1) as f64;
            if share >= 5.0 {
                notes.push(format!(
                    "io_uring handed requests to kernel worker threads (io-wq): {share:.0}% of \
                     this job's CPU was theirs. {} does not complete I/O without blocking \
                     (no NOWAIT support), so requests pay a thread hand-off; fio does not count \
                     this CPU",
                    spec.filename.display()
                ));
            }
        }
        let mut depth = self.depth;
        if sync {
            // One I/O in flight, one per call, always.
            let ios: u64 = self.stats.iter().map(|s| s.ios).sum();
            depth.level[0] = ios;
            depth.submit[1] = ios;
            depth.complete[1] = ios;
        }
        let result = |st: DirStats, issued: bool| {
            issued.then(|| DirResult {
                ios: st.ios,
                bytes: st.bytes,
                samples: st.samples,
                slat: (!sync).then_some(st.slat),
                // Synchronous engines record one latency: submitting is completing.
                clat: if sync { st.lat.clone() } else { st.clat },
                lat: st.lat,
            })
        };
        let [read, write] = self.stats;
        let dirs = [result(read, spec.reads()), result(write, spec.writes())];
        WorkerResult {
            dirs,
            runtime_ticks: self.measure_end.saturating_sub(self.measure_start),
            elapsed_ticks,
            cpu,
            depth,
            notes,
            interrupted: self.interrupted,
        }
    }
}

/// Reaps until nothing is in flight, ignoring results (used on the error path).
fn drain<E: IoEngine>(engine: &mut E, done: &mut [Completion], mut inflight: usize) {
    while inflight > 0 {
        match engine.reap(1, done) {
            Ok(n) => inflight -= n.min(inflight),
            Err(_) => break,
        }
    }
}

fn pin_to(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes within it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            if c >= libc::CPU_SETSIZE as usize {
                return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
            }
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
