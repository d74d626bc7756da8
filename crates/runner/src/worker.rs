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
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicBool, Ordering};

use iolab_engine::{
    open_engine, BufferPool, Completion, Direction, EngineKind, EngineTarget, EngineVisitor,
    IoEngine, IoUnit, QueueStatus,
};
use iolab_job::{BlockSizer, OffsetGen, Rng};
use iolab_stats::{Clock, LatencyHistogram};

use crate::cpu::CpuSnapshot;
use crate::gate::StartGate;
use crate::iolog::IoLogger;
use crate::run::LiveCounters;
use crate::IoLog;
use crate::{PreparedJob, RunError};
use iolab_results::{DepthCounts, DirResult, LatencyWindow, Sample, SAMPLE_INTERVAL_NS};

pub(crate) struct WorkerResult {
    pub dirs: [Option<DirResult>; 2],
    pub runtime_ticks: u64,
    /// From the phase's start (the barrier) to the end of this worker's I/O.
    pub elapsed_ticks: u64,
    pub cpu: CpuSnapshot,
    pub depth: DepthCounts,
    /// fsyncs issued by `fsync=N`; `None` when the job asks for none.
    pub sync: Option<DirResult>,
    pub log: Option<IoLog>,
    pub notes: Vec<String>,
    pub interrupted: bool,
}

pub(crate) struct Worker<'a> {
    pub job: &'a PreparedJob,
    pub clone_index: u32,
    /// fio's job number of this copy (1-based over the run).
    pub job_number: u32,
    pub clock: Clock,
    pub barrier: &'a StartGate,
    /// Set by a worker that failed to start, so the others do not run alone.
    pub abort: &'a AtomicBool,
    pub stop: &'a AtomicBool,
    /// Whether this worker has passed the start barrier. A worker that fails before it must
    /// still arrive there (or the others wait forever); one that fails after must not.
    pub started: Cell<bool>,
    /// Shared running totals for a live progress line, updated once per sample interval.
    pub live: Option<&'a LiveCounters>,
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
        // The null engine does no I/O: it opens nothing (its file may not even exist).
        let files = spec
            .files()
            .filter(|_| spec.engine.kind != EngineKind::Null)
            .map(|path| {
                opts.open(path).map_err(|source| RunError::Io {
                    job: job(),
                    path: path.clone(),
                    dir: if spec.writes() {
                        Direction::Write
                    } else {
                        Direction::Read
                    },
                    offset: 0,
                    len: 0,
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let fds: Vec<RawFd> = files.iter().map(|f| f.as_raw_fd()).collect();
        let mut setup_notes = Vec::new();
        for (fd, (facts, region)) in fds.iter().zip(self.job.files()) {
            if spec.invalidate {
                if let Err(e) = invalidate_cache(*fd, facts, region) {
                    setup_notes.push(format!(
                        "cache invalidation of {} failed: {e}",
                        facts.path.display()
                    ));
                }
            }
            if let Err(e) = advise(*fd, spec, region) {
                setup_notes.push(format!("fadvise hint failed: {e}"));
            }
        }
        let depth = spec.effective_iodepth();
        let seed = spec
            .seed
            .wrapping_add(self.clone_index as u64 * 0x1_0000_0001);
        let mut pool = BufferPool::new(depth as usize, spec.max_block_size() as usize, seed);
        if spec.buffers.zero || spec.buffers.compress_percent > 0 {
            pool.fill(seed, spec.buffers.zero, spec.buffers.compress_percent);
        }
        let facts = &self.job.facts;
        let name = match (&facts.kind, &facts.disk_name) {
            (iolab_sysinfo::TargetKind::File, Some(disk)) => {
                format!("{} (on disk {disk})", spec.filename.display())
            }
            _ => spec.filename.display().to_string(),
        };
        let target = EngineTarget {
            fds: &fds,
            direct: spec.direct,
            polled_device: self.job.facts.polled,
            name: &name,
        };
        let looper = Looper {
            w: self,
            pool: &pool,
            seed,
            fds: &fds,
            setup_notes,
        };
        let res = open_engine(&spec.engine, target, depth, &pool, looper)
            .map_err(|source| RunError::Engine { job: job(), source })?;
        // The engine (and any buffers it registered) is dropped before `pool` and `files`.
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
    /// The job's files, for fsync.
    fds: &'a [RawFd],
    /// What setting up said (a cache invalidation that failed).
    setup_notes: Vec<String>,
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
        let mut st = LoopState::new(self.w, self.seed, self.fds);
        let sync = engine.capabilities().synchronous;
        let outcome = if sync {
            st.run_sync(&mut engine, self.pool)
        } else {
            st.run_async(&mut engine, self.pool)
        };
        let mut notes = self.setup_notes;
        notes.extend(engine.notes());
        drop(engine);
        outcome?;
        if self.w.job.spec.end_fsync {
            st.fsync().map_err(|e| st.sync_error(e))?;
        }
        let elapsed = self.w.clock.now().saturating_sub(phase_start);
        Ok(Some(st.finish(sync, notes, elapsed)))
    }
}

/// What an asynchronous engine's slot carries while its I/O is in flight.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    dir: Direction,
    offset: u64,
    len: u32,
    file: u32,
    /// Clock reads: before the I/O was prepared, and when its submit call returned.
    start_t: u64,
    submit_t: u64,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight {
            dir: Direction::Read,
            offset: 0,
            len: 0,
            file: 0,
            start_t: 0,
            submit_t: 0,
        }
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
    /// Latencies of the current latency window, when the job asks for windows.
    window: Option<LatencyHistogram>,
    windows: Vec<LatencyWindow>,
}

impl DirStats {
    fn new(expected_samples: usize, expected_windows: Option<usize>) -> DirStats {
        DirStats {
            ios: 0,
            bytes: 0,
            slat: LatencyHistogram::new(),
            clat: LatencyHistogram::new(),
            lat: LatencyHistogram::new(),
            samples: Vec::with_capacity(expected_samples),
            sampled: Sample::default(),
            window: expected_windows.map(|_| LatencyHistogram::new()),
            windows: Vec::with_capacity(expected_windows.unwrap_or(0)),
        }
    }

    /// Records one I/O's total latency.
    #[inline(always)]
    fn record_lat(&mut self, ticks: u64) {
        self.lat.record(ticks);
        if let Some(w) = &mut self.window {
            w.record(ticks);
        }
    }

    fn reset(&mut self) {
        self.ios = 0;
        self.bytes = 0;
        self.samples.clear();
        self.sampled = Sample::default();
        self.windows.clear();
        if let Some(w) = &mut self.window {
            w.reset();
        }
        self.slat.reset();
        self.clat.reset();
        self.lat.reset();
    }
}

struct LoopState<'a, 'w> {
    w: &'a Worker<'w>,
    clock: Clock,
    /// One offset generator per file; I/Os go to the files in turn.
    offsets: Vec<OffsetGen>,
    next_file: usize,
    stats: [DirStats; 2],
    sizers: [BlockSizer; 2],
    /// Draws block sizes (its own stream, so fixed-size jobs keep their offset sequence).
    size_rng: Rng,
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
    /// The next sample or latency window due, whichever comes first (`u64::MAX`: never).
    next_sample: u64,
    sample_due: u64,
    /// Ticks per latency window (0: no windows), and when the next ends.
    window_ticks: u64,
    window_due: u64,
    depth: DepthCounts,
    fds: &'a [RawFd],
    /// fsync after this many writes (0: never); writes since the last; a sync is due once
    /// the I/O in flight has finished.
    fsync_every: u64,
    writes_since_sync: u64,
    sync_pending: bool,
    sync_stats: DirStats,
    /// Rate limit: ticks per I/O per direction (0: none), I/Os counted since `rate_base`.
    rated: bool,
    rate_ticks: [u64; 2],
    rate_count: [u64; 2],
    rate_base: u64,
    /// I/Os per submit call (fio's `iodepth_batch_submit`, fixed up).
    batch_submit: usize,
    /// (fewest, most) completions per reap (fio's `iodepth_batch_complete_min/max`).
    batch_complete: (usize, usize),
    /// Drop the page cache again at each new pass over a file (fio's `loop_cache_invalidate`:
    /// buffered, invalidating jobs that go over their region more than once).
    invalidate_per_pass: bool,
    /// Write buffers: refill or stamp before each write.
    refill: bool,
    scramble: bool,
    fill_state: u64,
    logger: Option<IoLogger>,
    cpu_start: CpuSnapshot,
    cpu_used: CpuSnapshot,
    interrupted: bool,
}

impl<'a, 'w> LoopState<'a, 'w> {
    fn new(w: &'a Worker<'w>, seed: u64, fds: &'a [RawFd]) -> Self {
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
        let window_ticks = spec
            .latency_window
            .map_or(0, |d| clock.duration_to_ticks(d).max(1));
        let expected_windows = spec.latency_window.map(|w| {
            spec.runtime
                .map_or(64, |r| (r.as_nanos() / w.as_nanos().max(1)) as usize + 2)
        });
        let now = clock.now();
        let mut st = LoopState {
            w,
            clock,
            offsets: w
                .job
                .files()
                .enumerate()
                .map(|(i, (_, region))| {
                    OffsetGen::new(spec, *region, seed.wrapping_add(i as u64 * 0x5EED))
                })
                .collect(),
            next_file: 0,
            stats: [
                DirStats::new(expected_samples, expected_windows),
                DirStats::new(expected_samples, expected_windows),
            ],
            sizers: [
                BlockSizer::new(&spec.block_dist[0], spec.block_size[0]),
                BlockSizer::new(&spec.block_dist[1], spec.block_size[1]),
            ],
            size_rng: Rng::new(seed ^ 0xB5B5_B5B5),
            read_percent: spec.read_percent,
            byte_limit: if spec.time_based {
                u64::MAX
            } else {
                w.job
                    .files()
                    .map(|(_, r)| r.len)
                    .sum::<u64>()
                    .saturating_mul(spec.loops as u64)
            },
            issued: 0,
            measuring: false,
            run_ticks,
            deadline: now.saturating_add(ramp_ticks),
            measure_start: now,
            measure_end: now,
            sample_ticks: sample_ticks.max(1),
            next_sample: u64::MAX,
            sample_due: u64::MAX,
            window_ticks,
            window_due: u64::MAX,
            depth: DepthCounts::default(),
            fds,
            fsync_every: spec.fsync_every as u64,
            writes_since_sync: 0,
            sync_pending: false,
            sync_stats: DirStats::new(0, None),
            rated: spec.rate_iops.iter().any(Option::is_some),
            rate_ticks: spec.rate_iops.map(|r| {
                r.map_or(0, |iops| {
                    clock.duration_to_ticks(std::time::Duration::from_secs(1)) / iops as u64
                })
            }),
            rate_count: [0, 0],
            rate_base: now,
            batch_submit: spec.effective_batch_submit().max(1) as usize,
            batch_complete: {
                let (min, max) = spec.effective_batch_complete();
                (min as usize, max as usize)
            },
            invalidate_per_pass: spec.invalidate
                && !spec.direct
                && (spec.time_based || spec.loops > 1),
            refill: spec.buffers.refill && !spec.buffers.zero,
            scramble: spec.buffers.scrambles(),
            fill_state: seed ^ 0xF111,
            logger: spec.logs.any().then(|| {
                let avg = spec.logs.avg_msec;
                let window = clock.duration_to_ticks(std::time::Duration::from_millis(avg as u64));
                // Per-I/O logs of a time-based job grow while it runs; start with room for
                // a second at 100k IOPS so short runs never regrow.
                IoLogger::new(
                    w.job_number,
                    avg,
                    window,
                    if avg == 0 { 100_000 } else { 0 },
                    w.job.log_cap_entries,
                )
            }),
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
        self.sync_stats.reset();
        self.rate_base = now;
        self.rate_count = [0, 0];
        self.measuring = true;
        self.measure_start = now;
        self.sample_due = if self.w.job.spec.recorded.bw {
            now.saturating_add(self.sample_ticks)
        } else {
            u64::MAX
        };
        self.window_due = if self.window_ticks > 0 {
            now.saturating_add(self.window_ticks)
        } else {
            u64::MAX
        };
        self.next_sample = self.sample_due.min(self.window_due);
        if let Some(l) = &mut self.logger {
            l.start(now);
        }
        self.deadline = now.saturating_add(self.run_ticks);
        self.cpu_start = CpuSnapshot::of_current_thread();
    }

    /// One bandwidth/IOPS sample per direction for each interval that has ended (an interval
    /// in which nothing completed gets a zero sample), and the summary of each latency window
    /// that has ended. Runs a few times a second, never per I/O.
    #[cold]
    fn take_samples(&mut self, now: u64) {
        while now >= self.sample_due {
            let mut delta = Sample::default();
            for s in &mut self.stats {
                let d = Sample {
                    bytes: s.bytes - s.sampled.bytes,
                    ios: s.ios - s.sampled.ios,
                };
                s.samples.push(d);
                delta.bytes += d.bytes;
                delta.ios += d.ios;
                s.sampled = Sample {
                    bytes: s.bytes,
                    ios: s.ios,
                };
            }
            if let Some(live) = self.w.live {
                live.add(delta.ios, delta.bytes);
            }
            self.sample_due = self.sample_due.saturating_add(self.sample_ticks);
        }
        while now >= self.window_due {
            for s in &mut self.stats {
                if let Some(w) = &mut s.window {
                    s.windows.push(LatencyWindow::of(w));
                    w.reset();
                }
            }
            self.window_due = self.window_due.saturating_add(self.window_ticks);
        }
        self.next_sample = self.sample_due.min(self.window_due);
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
    fn next_io(&mut self, slot: u32, pool: &BufferPool, now: u64) -> IoUnit {
        let file = self.next_file;
        if self.offsets.len() > 1 {
            self.next_file = (file + 1) % self.offsets.len();
        }
        let dir = self.offsets[0].next_direction(self.read_percent);
        if self.rated {
            self.throttle(dir);
        }
        let sizer = &self.sizers[dir.index()];
        let mut len = sizer.next(&mut self.size_rng);
        let room = self.byte_limit - self.issued;
        if len > room {
            // The last I/Os of a size-based job shrink to end exactly at its size, as fio's.
            len = sizer.largest_fitting(room).unwrap_or(len);
        }
        let offset = self.offsets[file].next(dir, len);
        if self.offsets[file].take_wrapped() && self.invalidate_per_pass {
            self.invalidate_again(file);
        }
        self.issued += len;
        let buf = pool.slot_ptr(slot as usize);
        if dir == Direction::Write {
            self.writes_since_sync += 1;
            if self.refill || self.scramble {
                self.prepare_write(buf, len as usize, offset, now);
            }
        }
        IoUnit {
            slot,
            file: file as u32,
            dir,
            offset,
            len: len as u32,
            buf,
        }
    }

    /// A new pass over `file` began: drop its region's page cache, as fio does, so every
    /// pass of a buffered job reads the device. Failures were noted at setup already.
    #[cold]
    fn invalidate_again(&mut self, file: usize) {
        if let (Some(&fd), Some((facts, region))) =
            (self.fds.get(file), self.w.job.files().nth(file))
        {
            let _ = invalidate_cache(fd, facts, region);
        }
    }

    /// Fresh random data (`refill_buffers`) or fio's stamps (`scramble_buffers`, with the
    /// time of `now`) in a write buffer.
    #[inline]
    fn prepare_write(&mut self, buf: *mut u8, len: usize, offset: u64, now: u64) {
        // SAFETY: the slot's buffer holds at least the largest block size and is not in
        // flight (its slot was free).
        let b = unsafe { std::slice::from_raw_parts_mut(buf, len) };
        if self.refill {
            iolab_engine::buffer::fill_buffer(
                b,
                &mut self.fill_state,
                false,
                self.w.job.spec.buffers.compress_percent,
            );
        } else {
            let ns = self.clock.ticks_to_ns(now) as u64;
            iolab_engine::buffer::scramble(b, offset, ns / 1_000_000_000, ns % 1_000_000_000);
        }
    }

    /// Waits until direction `d` may issue its next I/O under `rate_iops`. A job that fell
    /// behind is not made to wait until it has caught up (fio does the same).
    #[cold]
    fn throttle(&mut self, d: Direction) {
        let per = self.rate_ticks[d.index()];
        if per == 0 {
            return;
        }
        let due = self.rate_base + self.rate_count[d.index()] * per;
        self.rate_count[d.index()] += 1;
        loop {
            let now = self.clock.now();
            if now >= due || self.w.stop.load(Ordering::Relaxed) {
                return;
            }
            let left_ns = self.clock.ticks_to_ns(due - now);
            if left_ns > 200_000.0 {
                std::thread::sleep(std::time::Duration::from_nanos(left_ns as u64 - 100_000));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// fsync the job's files, returning the latency in ticks.
    fn fsync(&self) -> std::io::Result<u64> {
        let t0 = self.clock.now();
        for &fd in self.fds {
            // SAFETY: fd is one of the job's files, open for the whole loop.
            if unsafe { libc::fsync(fd) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(self.clock.now() - t0)
    }

    fn sync_error(&self, source: std::io::Error) -> RunError {
        RunError::Io {
            job: self.w.job.spec.name.clone(),
            path: self.w.job.spec.filename.clone(),
            dir: Direction::Write,
            offset: 0,
            len: 0,
            source: std::io::Error::new(source.kind(), format!("fsync: {source}")),
        }
    }

    /// Whether `fsync=N` calls for a sync now.
    #[inline(always)]
    fn sync_due(&self) -> bool {
        self.fsync_every > 0 && self.writes_since_sync >= self.fsync_every
    }

    #[cold]
    fn do_sync(&mut self) -> Result<(), RunError> {
        let ticks = self.fsync().map_err(|e| self.sync_error(e))?;
        self.writes_since_sync = 0;
        self.sync_pending = false;
        self.sync_stats.ios += 1;
        self.sync_stats.lat.record(ticks);
        Ok(())
    }

    fn io_error(
        &self,
        file: u32,
        io_dir: Direction,
        offset: u64,
        len: u32,
        result: i64,
    ) -> RunError {
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
            path: self
                .w
                .job
                .spec
                .files()
                .nth(file as usize)
                .cloned()
                .unwrap_or_default(),
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
            // Due syncs run before the next I/O, so none follows the last write (as fio).
            if self.sync_due() {
                self.do_sync()?;
            }
            let io = self.next_io(0, pool, now);
            let t0 = self.clock.now();
            let status = engine.queue(&io).map_err(|e| self.engine_error(e))?;
            now = self.clock.now();
            match status {
                QueueStatus::Completed(r) if r == io.len as i64 => {
                    let s = &mut self.stats[io.dir.index()];
                    s.ios += 1;
                    s.bytes += io.len as u64;
                    s.record_lat(now - t0);
                    if now >= self.next_sample {
                        self.take_samples(now);
                    }
                    if let Some(l) = &mut self.logger {
                        l.record(now, io.dir, io.len, 0, now - t0, now - t0);
                    }
                }
                QueueStatus::Completed(r) => {
                    return Err(self.io_error(io.file, io.dir, io.offset, io.len, r))
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
        let mut slots = vec![InFlight::default(); depth];
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
            if !stopping && !self.bytes_done() && !free.is_empty() && !self.sync_pending {
                inflight +=
                    self.submit(engine, pool, &mut free, &mut slots, &mut batch, inflight)?;
            }
            if inflight == 0 {
                if self.sync_pending {
                    self.do_sync()?;
                }
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
            let (min, max) = self.batch_complete;
            let n = engine
                .reap(min.min(inflight) as u32, &mut done[..max])
                .map_err(|e| self.engine_error(e))?;
            now = self.clock.now();
            self.depth.complete[DepthCounts::batch_bucket(n)] += 1;
            for i in 0..n {
                let c = done[i];
                let slot = c.slot as usize;
                let InFlight {
                    dir,
                    offset,
                    len,
                    file,
                    start_t,
                    submit_t,
                } = slots[slot];
                if c.result != len as i64 {
                    // Drain the rest before returning, so no buffer is freed under the kernel.
                    inflight -= n;
                    drain(engine, &mut done, inflight);
                    return Err(self.io_error(file, dir, offset, len, c.result));
                }
                free.push(c.slot);
                if !stopping {
                    let s = &mut self.stats[dir.index()];
                    s.ios += 1;
                    s.bytes += len as u64;
                    s.clat.record(now - submit_t);
                    s.record_lat(now - start_t);
                    if let Some(l) = &mut self.logger {
                        let (start, sub) = (start_t, submit_t);
                        l.record(now, dir, len, sub - start, now - sub, now - start);
                    }
                }
            }
            inflight -= n;
            if now >= self.next_sample && !stopping {
                self.take_samples(now);
            }
        }
    }

    /// Queues I/Os into the free slots and submits them `iodepth_batch_submit` at a time,
    /// as fio's `td_io_queue()`/`td_io_commit()` do; returns how many went in flight.
    ///
    /// fio's figures, mirrored: each I/O's start is a clock read just before it is prepared
    /// (`start_time`), its issue a clock read when its submit call returns (`issue_time`);
    /// slat = issue − start, clat = reap − issue, lat = reap − start. At each submit call,
    /// `iodepth_level` counts the call's I/Os in the bucket of the depth they make (fio's
    /// `io_u_mark_depth` with `cur_depth`), and `iodepth_submit` counts the call once in the
    /// bucket of its size.
    #[inline(always)]
    fn submit<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        free: &mut Vec<u32>,
        slots: &mut [InFlight],
        batch: &mut Vec<u32>,
        inflight: usize,
    ) -> Result<usize, RunError> {
        let per_call = self.batch_submit;
        let mut submitted = 0;
        batch.clear();
        while let Some(&slot) = free.last() {
            // A rate-limited job submits one I/O a round and reaps before the next, so
            // completions never wait behind the rate limiter's sleep.
            let one_done = submitted > 0 || !batch.is_empty();
            if self.bytes_done() || self.sync_pending || (self.rated && one_done) {
                break;
            }
            let mut t_start = self.clock.now();
            let io = self.next_io(slot, pool, t_start);
            if self.rated {
                // next_io may have waited for the rate limit: that is not latency.
                t_start = self.clock.now();
            }
            match engine.queue(&io).map_err(|e| self.engine_error(e))? {
                QueueStatus::Queued => {
                    free.pop();
                    batch.push(slot);
                    slots[slot as usize] = InFlight {
                        dir: io.dir,
                        offset: io.offset,
                        len: io.len,
                        file: io.file,
                        start_t: t_start,
                        submit_t: 0,
                    };
                    if self.sync_due() && !self.bytes_done() {
                        // Let what is in flight finish, then sync (as fio's libaio).
                        self.sync_pending = true;
                    }
                    if batch.len() >= per_call {
                        submitted += self.commit(engine, slots, batch, inflight + submitted)?;
                    }
                }
                QueueStatus::Busy => {
                    self.issued -= io.len as u64;
                    break;
                }
                QueueStatus::Completed(r) => {
                    if r != io.len as i64 {
                        return Err(self.io_error(io.file, io.dir, io.offset, io.len, r));
                    }
                    let t = self.clock.now();
                    let s = &mut self.stats[io.dir.index()];
                    s.ios += 1;
                    s.bytes += io.len as u64;
                    s.clat.record(t - t_start);
                    s.record_lat(t - t_start);
                    if let Some(l) = &mut self.logger {
                        l.record(t, io.dir, io.len, 0, t - t_start, t - t_start);
                    }
                }
            }
        }
        if !batch.is_empty() {
            submitted += self.commit(engine, slots, batch, inflight + submitted)?;
        }
        Ok(submitted)
    }

    /// One submit call for the queued `batch`: stamps each I/O's issue time and slat and
    /// counts the call in the depth distributions. `before` I/Os are in flight already.
    #[inline(always)]
    fn commit<E: IoEngine>(
        &mut self,
        engine: &mut E,
        slots: &mut [InFlight],
        batch: &mut Vec<u32>,
        before: usize,
    ) -> Result<usize, RunError> {
        engine.commit().map_err(|e| self.engine_error(e))?;
        let t_sub = self.clock.now();
        let n = batch.len();
        let depth_now = before + n;
        self.depth.level[DepthCounts::level_bucket(depth_now)] += n as u64;
        self.depth.submit[DepthCounts::batch_bucket(n)] += 1;
        for &slot in batch.iter() {
            let f = &mut slots[slot as usize];
            f.submit_t = t_sub;
            self.stats[f.dir.index()].slat.record(t_sub - f.start_t);
        }
        batch.clear();
        Ok(n)
    }

    fn finish(mut self, sync: bool, mut notes: Vec<String>, elapsed_ticks: u64) -> WorkerResult {
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
                windows: st.windows,
                slat: (!sync).then_some(st.slat),
                // Synchronous engines record one latency: submitting is completing.
                clat: if sync { st.lat.clone() } else { st.clat },
                lat: st.lat,
            })
        };
        let measure_end = self.measure_end;
        let tick_ms = self.clock.ticks_to_ns(1_000_000) / 1e12;
        let log = self.logger.take().map(|l| l.finish(measure_end, tick_ms));
        if let Some(l) = log.as_ref().filter(|l| l.dropped > 0) {
            notes.push(format!(
                "I/O log: kept the first {} I/Os of the measured window and dropped {} (the \
                 logs' share of available memory); use log_avg_msec for a long run",
                l.per_io.len(),
                l.dropped
            ));
        }
        let sync_result = (spec.fsync_every > 0).then(|| DirResult {
            ios: self.sync_stats.ios,
            bytes: 0,
            slat: None,
            clat: self.sync_stats.lat.clone(),
            lat: self.sync_stats.lat,
            samples: Vec::new(),
            windows: Vec::new(),
        });
        let [read, write] = self.stats;
        let dirs = [result(read, spec.reads()), result(write, spec.writes())];
        WorkerResult {
            dirs,
            runtime_ticks: self.measure_end.saturating_sub(self.measure_start),
            elapsed_ticks,
            cpu,
            depth,
            sync: sync_result,
            log,
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

/// Drops the page cache of the job's region of one file, as fio's `invalidate` does when it
/// opens a file: `posix_fadvise(DONTNEED)` for a regular file, `BLKFLSBUF` for a block device.
fn invalidate_cache(
    fd: RawFd,
    facts: &iolab_sysinfo::TargetFacts,
    region: &iolab_job::Region,
) -> std::io::Result<()> {
    /// `BLKFLSBUF` = _IO(0x12, 97).
    const BLKFLSBUF: u64 = 0x1261;
    // SAFETY: plain syscalls on an open fd; BLKFLSBUF takes no argument.
    let r = unsafe {
        match facts.kind {
            iolab_sysinfo::TargetKind::File => {
                let e = libc::posix_fadvise(
                    fd,
                    region.start as libc::off_t,
                    region.len as libc::off_t,
                    libc::POSIX_FADV_DONTNEED,
                );
                if e != 0 {
                    return Err(std::io::Error::from_raw_os_error(e));
                }
                0
            }
            iolab_sysinfo::TargetKind::BlockDevice => libc::ioctl(fd, BLKFLSBUF as _, 0),
        }
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// fio's `fadvise_hint` when a file is opened: random or sequential advice for the region.
fn advise(fd: RawFd, spec: &iolab_job::JobSpec, region: &iolab_job::Region) -> std::io::Result<()> {
    use iolab_job::{FadviseHint, Pattern};
    let advice = match (spec.fadvise_hint, spec.pattern) {
        (FadviseHint::None, _) => return Ok(()),
        (FadviseHint::Random, _) | (FadviseHint::Type, Pattern::Random) => libc::POSIX_FADV_RANDOM,
        (FadviseHint::Sequential, _) | (FadviseHint::Type, _) => libc::POSIX_FADV_SEQUENTIAL,
    };
    // SAFETY: a plain syscall on an open fd.
    let e = unsafe {
        libc::posix_fadvise(
            fd,
            region.start as libc::off_t,
            region.len as libc::off_t,
            advice,
        )
    };
    if e != 0 {
        return Err(std::io::Error::from_raw_os_error(e));
    }
    Ok(())
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
