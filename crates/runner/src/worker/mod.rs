//! One worker: a thread that owns a file descriptor, a buffer pool, an engine and its own
//! statistics, and runs the submit/reap loop.
//!
//! The loop is generic over the engine, so `queue`, `commit` and `reap` are direct calls. Per
//! I/O it reads the clock twice (synchronous engines) or shares one reading per submitted
//! batch and one per reaped batch (asynchronous engines, as fio's `t/io_uring` does), draws
//! an offset, and records into preallocated histograms: no allocation, no lock, no
//! formatting, no system call besides the I/O itself. Deadlines are compared in ticks.
//!
//! Split by concern: [`setup`] (files, cache, buffers), [`issue`] (what the next I/O is),
//! [`clockwork`] (ramp, measured window, samples), [`rate`], [`fsync`], [`stats`] (what is
//! recorded), the two loops ([`sync_loop`], [`async_loop`]) and [`finish`] (the result).

mod async_loop;
mod clockwork;
mod dedupe;
mod depth_search;
mod exec;
mod file_pick;
mod finish;
mod fsync;
mod issue;
mod lean_loop;
mod open_loop;
mod rate;
mod setup;
mod stats;
mod sync_loop;
mod think;
mod trace;
mod verify;
mod write_log;

use std::cell::Cell;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use iolab_engine::{
    open_engine, BufferPool, Direction, EngineTarget, EngineVisitor, IoEngine, IoUnit,
};
use iolab_job::ErrorKind;
use iolab_results::{DepthCounts, DirResult};
use iolab_stats::Clock;

use crate::cpu::CpuSnapshot;
use crate::exits::ExitScope;
use crate::flow::{Flow, FlowGate};
use crate::gate::StartGate;
use crate::iolog::IoLogger;
use crate::live::LiveCounters;
use crate::steady::Tally;
use crate::IoLog;
use crate::{PreparedJob, RunError};

use clockwork::Timeline;
use dedupe::DedupeGen;
use depth_search::{DepthSearch, Step};
use fsync::Syncer;
use issue::Issuer;
use rate::RateLimit;
use stats::{DirStats, Recorder};
use verify::Verifier;

/// Why a job's blocks cannot carry its verify headers, if they cannot.
pub(crate) fn verify_unfit(spec: &iolab_job::JobSpec) -> Option<String> {
    Verifier::unfit(spec)
}

#[derive(Debug)]
pub(crate) struct WorkerResult {
    pub dirs: [Option<DirResult>; Direction::COUNT],
    pub runtime_ticks: u64,
    /// From the phase's start (the barrier) to the end of this worker's I/O.
    pub elapsed_ticks: u64,
    pub cpu: CpuSnapshot,
    pub depth: DepthCounts,
    /// fsyncs issued by `fsync=N`; `None` when the job asks for none.
    pub sync: Option<DirResult>,
    pub log: Option<IoLog>,
    /// The I/Os issued, for `write_iolog`.
    pub trace: Option<iolab_results::IoTrace>,
    /// Errors gone past (`continue_on_error`).
    pub errors: Option<iolab_results::ErrorCounts>,
    /// Zone resets (`zonemode=zbd`).
    pub zone_resets: u64,
    pub notes: Vec<String>,
    /// Why the engine's I/O did not take the path asked for, when it did not.
    pub fallback: Option<String>,
    /// How the engine was set up where it chose (the io_uring flags the kernel took).
    pub engine_setup: Option<String>,
    pub interrupted: bool,
    /// What the steady-state check found, on the worker that carries its window.
    pub steady: Option<iolab_results::SteadyResult>,
    /// The queue depth the latency-target search settled on, if the job had a target.
    pub lat_target: Option<iolab_results::LatTargetResult>,
    /// The error that ended the job early; what it measured until then is kept.
    pub error: Option<RunError>,
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
    /// Where interim results are asked for (fio's `--status-interval`), and this worker's
    /// place among the phase's workers.
    pub status: Option<(&'a crate::status::StatusBoard, usize)>,
    /// The phase's flow groups (fio's `flow_id`).
    pub flows: &'a [Flow],
    /// Copies still running, per job of the run; and the job this one waits for (`wait_for`).
    pub running: &'a [AtomicU32],
    pub waits_on: Option<usize>,
    /// This copy's job, as an index into `running`.
    pub index: usize,
    /// With `exitall` in the run: the phase's stop flags (`stop` is this worker's), and this
    /// worker's place among them.
    pub exit: Option<(ExitScope<'a>, usize)>,
    /// Where this worker publishes its totals for the steady-state check, if its job has one.
    pub tally: Option<&'a Tally>,
    /// Job copies in the whole run (fio's `thread_number`), over which `dedupe_global`
    /// spreads its working set.
    pub run_copies: u32,
    /// Keep the thread's rseq registration (`--keep-rseq`).
    pub keep_rseq: bool,
    /// Run a simple job in the lean loop (see `lean_loop`); false: always the general one.
    pub lean_loop: bool,
    /// Where this worker's I/O stamps go for the latency split, if its job splits.
    pub split: Option<&'a crate::split::TapSlot>,
}

impl Worker<'_> {
    /// Sets up and runs; `Ok(None)` when another worker failed to start.
    pub fn run(self) -> Result<Option<WorkerResult>, RunError> {
        let result = self.setup_and_run();
        // Finished, however: a job waiting for this one (`wait_for`) may go once all are.
        self.running[self.index].fetch_sub(1, Ordering::Release);
        if let Some((scope, me)) = &self.exit {
            let spec = &self.job.spec;
            let failed = match &result {
                Err(_) => true,
                Ok(r) => r.as_ref().is_some_and(|r| r.error.is_some()),
            };
            // fio: `exitall_on_terminate || (exitall_error && td->error)`.
            if scope.on_any_end || (failed && spec.control.exitall_on_error) {
                scope.ended(*me, spec.exit_what);
            }
        }
        if result.is_err() && !self.started.get() {
            // Failed before reaching the barrier: release the others and tell them.
            self.abort.store(true, Ordering::SeqCst);
            self.barrier.wait();
        }
        result
    }

    fn setup_and_run(&self) -> Result<Option<WorkerResult>, RunError> {
        let spec = &self.job.spec;
        let rseq = match self.keep_rseq {
            true => crate::rseq::Rseq::None,
            false => crate::rseq::unregister_this_thread(),
        };
        setup::pin(spec, self.job_number)?;
        setup::prioritize(spec)?;
        // In the job's cgroup until the job is done (dropped last), as fio's cgroup_setup.
        let _cgroup = crate::cgroup::join(spec)?;
        setup::set_ioscheduler(self.job)?;
        exec::take_ids(self.job)?;
        // fio's lockmem: held until the job ends.
        let _locked =
            iolab_engine::memory::LockedMemory::lock(spec.control.lockmem).map_err(|e| {
                RunError::Unusable {
                    job: spec.name.clone(),
                    reason: format!("lockmem={}: {e}", spec.control.lockmem),
                }
            })?;
        let files = setup::open_files(self.job)?;
        setup::set_write_hint(spec, &files)?;
        if let Some(cmd) = &spec.control.exec_prerun {
            exec::run(self.job, cmd, "prerun")?;
        }
        let fds: Vec<RawFd> = files.iter().map(|f| f.as_raw_fd()).collect();
        let mut setup_notes = setup::prepare_cache(self.job, &fds);
        setup_notes.extend(setup::unwritten(self.job, &fds));
        setup_notes.extend(setup::pre_read(self.job));
        let depth = spec.effective_iodepth();
        let seed = spec
            .seed
            .wrapping_add(self.clone_index as u64 * iolab_job::COPY_SEED_STEP);
        let pool = setup::buffer_pool(spec, depth, seed)?;
        let name = setup::target_name(self.job);
        let pass_bytes: Vec<u64> = self.job.files().map(|(_, r)| r.len).collect();
        let target = EngineTarget {
            pins: &self.job.pins,
            pass_bytes: &pass_bytes,
            fds: &fds,
            direct: spec.direct,
            polled_device: self.job.facts.polled,
            name: &name,
            logical_block_size: self.job.facts.logical_block_size,
            access: setup::access_hint(spec),
            donor: self
                .job
                .donor
                .as_ref()
                .map(|p| (p, self.job.facts.size_bytes)),
        };
        let looper = Looper {
            w: self,
            pool: &pool,
            seed,
            fds: &fds,
            setup_notes,
            rseq,
        };
        let job = spec.name.clone();
        // The engine (and any buffers it registered) is dropped before `pool` and `files`.
        let mut result = open_engine(&spec.engine, target, depth, &pool, looper)
            .map_err(|source| RunError::Engine { job, source })??;
        if let Some(cmd) = &spec.control.exec_postrun {
            // fio reports a postrun's failure and keeps the job's results.
            if let Err(e) = exec::run(self.job, cmd, "postrun") {
                eprintln!("iolab: {e}");
            }
        }
        let unlinked = setup::unlink_files(self.job);
        if let Some(r) = result.as_mut() {
            r.notes.extend(unlinked);
        }
        Ok(result)
    }

    /// Waits for the job `wait_for` names to finish, then sleeps through the job's
    /// `startdelay`, waking to notice a stop request; false if one came.
    /// The phase's common start, in ticks, for a copy in a flow that starts with the phase:
    /// its window ends with its partners'. Each copy's own start differs by how late its
    /// thread got a CPU after the gate opened (milliseconds beside busy CPUs), and the first
    /// copy to finish leaves the flow, so the last would run alone, unpaced, for the
    /// difference: on a busy machine, as many I/Os as in the whole paced window.
    fn shared_start(&self, now: u64) -> Option<u64> {
        let spec = &self.job.spec;
        if spec.flow.weight == 0 || !spec.start_delay.is_zero() || self.waits_on.is_some() {
            return None;
        }
        let late = self.barrier.released().elapsed();
        Some(now.saturating_sub(self.clock.duration_to_ticks(late)))
    }

    fn delay_start(&self) -> bool {
        let waiting = || {
            self.waits_on
                .is_some_and(|j| self.running[j].load(Ordering::Acquire) > 0)
        };
        while waiting() {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
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

/// The errors a job went past (fio's `total_err_count`, `first_error`), under its policy.
pub(super) struct ErrorTally {
    policy: iolab_job::ErrorPolicy,
    pub total: u64,
    pub first: i32,
}

impl ErrorTally {
    fn new(policy: &iolab_job::ErrorPolicy) -> ErrorTally {
        ErrorTally {
            policy: policy.clone(),
            total: 0,
            first: 0,
        }
    }

    /// Whether the job goes on after `errno` of `kind`. With a policy, every error is
    /// counted, the fatal one too (fio's `total_err` then counts it).
    fn forgive(&mut self, kind: ErrorKind, errno: i32) -> bool {
        if !self.policy.on() {
            return false;
        }
        self.total += 1;
        if self.first == 0 {
            self.first = errno;
        }
        self.policy.forgives(kind, errno)
    }

    /// What the results carry: the counts where the policy is on (fio prints them only
    /// with `continue_on_error`).
    pub fn result(&self) -> Option<iolab_results::ErrorCounts> {
        self.policy.on().then_some(iolab_results::ErrorCounts {
            total: self.total,
            first: self.first,
        })
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
    /// Whether the thread dropped its rseq registration.
    rseq: crate::rseq::Rseq,
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
        st.synchronous = sync;
        let spec = &self.w.job.spec;
        let outcome = match spec.files.create_only {
            // fio's create_only: the files are laid out, no I/O runs.
            true => Ok(()),
            false => st.run_loop(&mut engine, self.pool, sync),
        };
        let outcome = outcome.and_then(|()| {
            if !spec.files.create_only && st.begin_read_back() {
                st.run_loop(&mut engine, self.pool, sync)
            } else {
                Ok(())
            }
        });
        let mut notes = self.setup_notes;
        notes.extend(engine.notes());
        let fallback = engine.fallback();
        let engine_setup = engine.setup();
        drop(engine);
        // A failed I/O ends the job, not its figures: they are reported with the error, as
        // fio prints a job with err=5.
        let error = match outcome {
            Err(e) => {
                // The loop ended on the error: the measured window ends here.
                st.time.end(self.w.clock.now());
                Some(e)
            }
            // As fio 3.42: end_syncfs, where given, instead of end_fsync's fsync a file.
            Ok(()) if self.w.job.spec.end_syncfs && spec.writes() => {
                setup::syncfs_each(st.syncer.fds()).map(|e| st.sync_error(e))
            }
            Ok(()) if self.w.job.spec.end_fsync => st
                .syncer
                .fsync(&st.clock)
                .map_err(|e| st.sync_error(e))
                .err(),
            Ok(()) => None,
        };
        let error =
            error.or_else(|| setup::fsync_on_close(spec, self.fds).map(|e| st.sync_error(e)));
        notes.extend(st.save_verify_state());
        let elapsed = self.w.clock.now().saturating_sub(phase_start);
        let lean = st.lean;
        let mut result = st.finish(sync, notes, elapsed);
        result.error = error;
        result.fallback = fallback;
        result.engine_setup = setup_line(engine_setup, lean, self.rseq);
        Ok(Some(result))
    }
}

/// The setup line: the engine's, then whether the lean loop ran the job and what became of
/// the thread's rseq registration, where it was there to drop.
fn setup_line(engine: Option<String>, lean: bool, rseq: crate::rseq::Rseq) -> Option<String> {
    let rseq = match rseq {
        crate::rseq::Rseq::None => None,
        crate::rseq::Rseq::Dropped => Some("rseq off".to_string()),
        crate::rseq::Rseq::Kept(e) => Some(format!("rseq kept (errno {e})")),
    };
    let parts: Vec<String> = [engine, lean.then(|| "lean loop".to_string()), rseq]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A worker's loop state: a part per concern, each a dozen fields at most.
struct LoopState<'a, 'w> {
    w: &'a Worker<'w>,
    clock: Clock,
    issue: Issuer<'a>,
    time: Timeline,
    rec: Recorder,
    rate: RateLimit,
    syncer: Syncer<'a>,
    /// I/Os per submit call (fio's `iodepth_batch_submit`, fixed up).
    batch_submit: usize,
    /// (fewest, most) completions per reap (fio's `iodepth_batch_complete_min/max`).
    batch_complete: (usize, usize),
    /// fio's verify: stamps writes, checks reads, reads written blocks back.
    /// Boxed: the hot loop's state stays as small as it was before verify had a state file.
    verify: Option<Box<Verifier>>,
    /// This copy's place in its flow group (fio's `flow`), if any.
    flow: Option<FlowGate<'w>>,
    /// Pauses between I/Os (fio's `thinktime`), if the job has them.
    think: Option<think::Pauser>,
    /// The search for the deepest queue meeting `latency_target`, if the job has one; and
    /// whether its final window starts once the queue has drained.
    search: Option<DepthSearch>,
    restart_when_drained: bool,
    /// fio's `max_latency` per direction, in ticks (`u64::MAX`: none).
    max_lat: [u64; 3],
    /// A latency is checked per I/O: `max_latency` or the depth search is on.
    lat_checks: bool,
    /// Errors gone past (`continue_on_error`).
    errors: ErrorTally,
    interrupted: bool,
    /// The job ran in the lean loop.
    lean: bool,
    /// Per direction, the (I/Os, bytes) already added to the run's live counters.
    live_sent: [(u64, u64); 3],
    /// The last interim status this worker answered.
    status_served: u64,
    /// The engine completes each I/O in its call (set once the engine is open).
    synchronous: bool,
}

impl<'a, 'w> LoopState<'a, 'w> {
    fn new(w: &'a Worker<'w>, seed: u64, fds: &'a [RawFd]) -> Self {
        let spec = &w.job.spec;
        let clock = w.clock;
        let now = clock.now();
        let time = Timeline::new(
            &clock,
            now,
            w.shared_start(now),
            spec.ramp_time,
            spec.runtime,
            spec.latency_window,
            // Steady state looks every millisecond; a live line or a status, ten times a
            // second.
            match (w.tally.is_some(), w.live.is_some() || w.status.is_some()) {
                (true, _) => Some(std::time::Duration::from_millis(1)),
                (false, true) => Some(std::time::Duration::from_millis(100)),
                (false, false) => None,
            },
            std::time::Duration::from_millis(spec.sampling().every_ms as u64),
        );
        let (min, max) = spec.effective_batch_complete();
        let mut st = LoopState {
            w,
            clock,
            issue: Issuer::new(w.job, w.clone_index, w.job_number, fds, seed),
            time,
            rec: recorder(w, &clock),
            rate: RateLimit::new(&clock, spec, seed, now),
            syncer: Syncer::new(fds, spec.fsync_every, spec.fdatasync_every)
                .with_ranges(spec.sync_file_range.0, spec.sync_file_range.1),
            batch_submit: spec.effective_batch_submit().max(1) as usize,
            batch_complete: (min as usize, max as usize),
            verify: Verifier::new(
                spec,
                spec.effective_iodepth() as usize,
                w.job_number,
                seed,
                w.job
                    .saved_states
                    .get(w.clone_index as usize)
                    .cloned()
                    .flatten(),
            )
            .map(Box::new),
            flow: FlowGate::new(w.flows, spec.flow),
            think: think::Pauser::new(&spec.think, &clock, now),
            // Bounded by iodepth as given, as fio's search is even for a synchronous engine
            // (its latency_depth then names a depth the engine never reaches).
            search: DepthSearch::new(&spec.lat_target, spec.iodepth, &clock, now),
            restart_when_drained: false,
            live_sent: [(0, 0); 3],
            status_served: 0,
            synchronous: false,
            max_lat: spec.control.max_latency_ns().map(|ns| match ns {
                u64::MAX => u64::MAX,
                ns => clock.ns_to_ticks(ns),
            }),
            lat_checks: spec.control.max_latency.iter().any(Option::is_some)
                || spec.lat_target.on(),
            errors: ErrorTally::new(&spec.control.errors),
            interrupted: false,
            lean: false,
        };
        if let Some(path) = &spec.logs.iolog {
            let start = clock.ticks_to_ns(now) as u64;
            let cap = w.job.log_cap_entries;
            st.issue.trace = Some(Box::new(trace::Tracer::new(w.job, path, start, cap)));
            st.issue.special = true;
        }
        let size = w.job.files().map(|(_, r)| r.len).sum();
        st.issue.writes.dedupe = DedupeGen::new(spec, w.job_number, w.run_copies, seed, size);
        if spec.ramp_bytes > 0 {
            // A ramp by bytes has no time to end at: ramp_size_check ends it.
            st.time.deadline = u64::MAX;
        } else if spec.ramp_time.is_zero() {
            st.begin_measuring(now);
        }
        st
    }

    /// The ramp is over (or there was none): forget what was measured, start the clock.
    #[cold]
    fn begin_measuring(&mut self, now: u64) {
        self.rec.reset(now);
        self.issue.reset();
        self.syncer.reset();
        // The window and the rate's schedule start once the histograms are cleared
        // (milliseconds of zeroing), or an open loop's first I/Os would be late by that much
        // and its achieved rate short of the offered one.
        let now = self.clock.now();
        self.rate.restart(now);
        self.time.begin(now, self.w.job.spec.recorded.bw);
        self.time.floor_checked(self.rate.floor_due());
        if let Some(s) = self.search.as_mut() {
            s.restarted(now);
        }
    }

    /// I/Os completed in the measured window so far.
    fn completed_ios(&self) -> u64 {
        self.rec.stats.iter().map(|s| s.ios).sum()
    }

    /// Tells the depth search an I/O took `lat` ticks; the job's error when the target
    /// cannot be met even at depth 1.
    #[inline(always)]
    fn lat_checked(&mut self, io: &IoUnit, lat: u64, now: u64) -> Result<(), RunError> {
        if self.search.is_none() {
            return Ok(());
        }
        let ios = self.completed_ios();
        let s = self.search.as_mut().expect("checked above");
        s.completed(lat, now, ios)
            .map_err(|()| self.late_error(io, lat))
    }

    /// After a thinktime pause that ended at `now`: with `rate_ignore_thinktime`, the rate
    /// does not make the job catch up on the pause.
    #[cold]
    fn thought(&mut self, now: u64) {
        let spec = &self.w.job.spec;
        if !spec.think.ignore_for_rate || !self.rate.on {
            return;
        }
        let Some(t) = self.think.as_ref() else {
            return;
        };
        let min_bs = Direction::ALL.map(|d| spec.min_block_size(d));
        self.rate
            .skip_thinking(now.saturating_sub(t.last_t), min_bs);
    }

    /// fio's `max_latency`: the job's error when an I/O took longer than its direction may
    /// (its whole latency, as fio's `lat_fatal()`).
    #[inline(always)]
    fn max_checked(&self, io: &IoUnit, lat: u64) -> Result<(), RunError> {
        match lat > self.max_lat[io.dir as usize] {
            false => Ok(()),
            true => Err(self.over_max_error(io, lat)),
        }
    }

    #[cold]
    fn over_max_error(&self, io: &IoUnit, lat: u64) -> RunError {
        RunError::LatencyTarget {
            job: self.w.job.spec.name.clone(),
            reason: format!(
                "latency of {} nsec exceeds max_latency ({} nsec): {} offset {} length {}",
                self.clock.ticks_to_ns(lat) as u64,
                self.w.job.spec.control.max_latency_ns()[io.dir as usize],
                io.dir.name(),
                io.offset,
                io.len
            ),
        }
    }

    #[cold]
    fn late_error(&self, io: &IoUnit, lat: u64) -> RunError {
        let spec = &self.w.job.spec;
        RunError::LatencyTarget {
            job: spec.name.clone(),
            reason: format!(
                "latency of {} nsec exceeds latency_target ({} nsec) at queue depth 1: {} \
                 offset {} length {}",
                self.clock.ticks_to_ns(lat) as u64,
                spec.lat_target.target.as_nanos(),
                io.dir.name(),
                io.offset,
                io.len
            ),
        }
    }

    /// Judges the depth search's window when it is over; true once its final window is
    /// done (the job ends, as fio's `td->done`).
    #[inline(always)]
    fn search_done(&mut self, now: u64) -> bool {
        if !self.time.measuring {
            return false;
        }
        let ios = self.completed_ios();
        let Some(s) = self.search.as_mut() else {
            return false;
        };
        match s.check(now, ios) {
            Step::Go | Step::Quiesce => false,
            Step::FinalRun => {
                self.restart_when_drained = true;
                false
            }
            Step::Done => true,
        }
    }

    /// The queue has drained after a depth change: go on at the new depth, measuring
    /// afresh when that is the final window.
    #[cold]
    fn drained(&mut self, now: u64) {
        if let Some(s) = self.search.as_mut() {
            s.quiescing = false;
        }
        if std::mem::take(&mut self.restart_when_drained) {
            self.begin_measuring(now);
        }
    }

    /// Adds what was measured since the last call to the run's live counters (a measurement
    /// that started afresh, after a depth search's drain, counts from its new start).
    #[cold]
    fn publish_live(&mut self, live: &LiveCounters) {
        for (d, s) in self.rec.stats.iter().enumerate() {
            let sent = &mut self.live_sent[d];
            if s.ios < sent.0 || s.bytes < sent.1 {
                *sent = (0, 0);
            }
            live.add(d, s.ios - sent.0, s.bytes - sent.1);
            *sent = (s.ios, s.bytes);
        }
    }

    /// One bandwidth/IOPS sample per direction for each interval that has ended (an interval
    /// in which nothing completed gets a zero sample), and the summary of each latency window
    /// that has ended. Runs a few times a second, never per I/O.
    #[cold]
    fn take_samples(&mut self, now: u64) -> Result<(), RunError> {
        while now >= self.time.sample_due {
            for s in &mut self.rec.stats {
                s.sample();
            }
            self.time.sample_taken();
        }
        while now >= self.time.window_due {
            self.rec.stats.iter_mut().for_each(DirStats::close_window);
            self.time.window_taken();
        }
        if now >= self.time.tally_due {
            if let Some(t) = self.w.tally {
                let st = &self.rec.stats;
                let ios = st.iter().map(|s| s.ios).sum();
                // A synchronous engine's clat is its lat (copied over at the end).
                let (clat_ticks, clat_ios) = st.iter().fold((0, 0), |(t, n), s| {
                    let h = if s.clat.count() > 0 { &s.clat } else { &s.lat };
                    (t + h.sum_ticks(), n + h.count())
                });
                let clat_ns = (clat_ticks as f64 / self.w.clock.ticks_per_ns()) as u64;
                t.publish(ios, st.iter().map(|s| s.bytes).sum(), clat_ns, clat_ios);
            }
            if let Some(live) = self.w.live {
                self.publish_live(live);
            }
            if let Some((board, n)) = self.w.status {
                let wanted = board.wanted();
                if wanted > self.status_served {
                    self.status_served = wanted;
                    board.answer(n, self.snapshot());
                }
            }
            self.time.tally_taken(now);
        }
        if now >= self.time.floor_due {
            let stats = &self.rec.stats;
            let done = self.rate.check_floor(
                now,
                stats.each_ref().map(|s| s.bytes),
                stats.each_ref().map(|s| s.ios),
            );
            self.time.floor_checked(self.rate.floor_due());
            done.map_err(|reason| RunError::RateFloor {
                job: self.w.job.spec.name.clone(),
                reason,
            })?;
        }
        Ok(())
    }

    #[cold]
    fn end_measuring(&mut self, now: u64) {
        self.time.end(now);
    }

    /// Checks the deadline and the stop flag (ending the ramp on the way): true when the
    /// measured window is over. Reaching the byte limit is not this: it stops issuing, but
    /// the I/Os still in flight are part of the job and are recorded.
    #[inline(always)]
    fn window_over(&mut self, now: u64) -> bool {
        if now >= self.time.deadline {
            if !self.time.measuring {
                self.begin_measuring(now);
            } else {
                return true;
            }
        }
        if self.time.stop_check_due(now) {
            if self.w.stop.load(Ordering::Relaxed) {
                self.interrupted = true;
                return true;
            }
            self.ramp_size_check(now);
        }
        false
    }

    /// Ends a ramp by bytes (fio 3.42's `ramp_size`) once the job copy has transferred
    /// them; looked at with the stop flag, not per I/O.
    #[cold]
    fn ramp_size_check(&mut self, now: u64) {
        let ramp = self.w.job.spec.ramp_bytes;
        if ramp == 0 || self.time.measuring {
            return;
        }
        if self.rec.stats.iter().map(|s| s.bytes).sum::<u64>() >= ramp {
            self.begin_measuring(now);
        }
    }

    /// Nothing more to issue: the job's bytes are issued and no read-back is due (or, in
    /// the read-back after the writes, everything is read back).
    #[inline(always)]
    fn bytes_done(&self) -> bool {
        match &self.verify {
            None => self.issue.bytes_done(),
            Some(v) if v.final_pass => v.all_read_back(),
            Some(v) => self.issue.bytes_done() && !v.due(),
        }
    }

    fn run_loop<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        sync: bool,
    ) -> Result<(), RunError> {
        if sync {
            self.run_sync(engine, pool)
        } else {
            self.run_async(engine, pool)
        }
    }

    /// The next I/O into `slot`: its direction (waiting for the rate limit), then its size,
    /// offset and content; `None` when a stop came while waiting for the rate limit.
    #[inline(always)]
    fn next_io(&mut self, slot: u32, pool: &BufferPool, now: u64) -> Option<IoUnit> {
        if let Some(v) = self.verify.as_mut().filter(|v| v.due()) {
            return v.read_back(slot, pool);
        }
        if self.issue.special {
            if let Some(due_ns) = self.issue.replay_due_ns() {
                if !self.replay_wait(due_ns) {
                    return None;
                }
            }
        }
        let mut dir = self.issue.next_direction();
        if self.rate.on {
            let mixed = (1..100).contains(&self.w.job.spec.read_percent);
            let end = self.time.final_end();
            dir = self.rate.wait(dir, mixed, &self.clock, self.w.stop, end);
            if self.w.stop.load(Ordering::Relaxed) || self.rate.out_of_time {
                // Stopped, or out of time, while waiting for the rate: no further I/O.
                return None;
            }
        }
        self.build_io(dir, slot, pool, now)
    }

    /// The next I/O in direction `dir` into `slot`, its direction chosen (and any wait for
    /// it done): its size, offset and content, counted against the rate's schedule.
    #[inline(always)]
    fn build_io(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now: u64,
    ) -> Option<IoUnit> {
        let clock = self.clock;
        let mut io = self
            .issue
            .next_io(dir, slot, pool, || clock.ticks_to_ns(now) as u64)?;
        if dir == Direction::Write {
            self.syncer.writes_since += 1;
            if !self.syncer.ranges.is_empty() {
                self.syncer
                    .wrote(io.file as usize, io.offset, io.len as u64);
            }
        }
        if self.rate.on {
            self.rate.issued(dir, io.len);
        }
        if let Some(v) = self.verify.as_mut() {
            if io.dir == Direction::Write {
                if v.only {
                    io.dir = Direction::Read;
                } else {
                    v.stamp(&io, clock.ticks_to_ns(now) as u64);
                }
            }
            if io.dir == Direction::Read && v.bounded() {
                return self.within_saved_state(io);
            }
        }
        Some(io)
    }

    /// Waits until the replayed stream's next I/O is due, `due_ns` after the measured window
    /// began (fio's `iolog_delay()`, against the start rather than the last I/O, so delays
    /// do not add up); false when a stop came or the job's time ran out meanwhile.
    #[cold]
    fn replay_wait(&mut self, due_ns: u64) -> bool {
        let until = self
            .time
            .measure_start
            .saturating_add(self.clock.ns_to_ticks(due_ns));
        let end = self.time.final_end();
        rate::wait_until(&self.clock, until.min(end), self.w.stop) && until <= end
    }

    /// Whether the job's flow group lets it issue now (always, outside a flow); when not, it
    /// has paused (`flow_sleep`) before the caller asks again.
    #[inline(always)]
    fn flow_allows(&mut self) -> bool {
        let Some(g) = &mut self.flow else {
            return true;
        };
        if g.allows() {
            return true;
        }
        g.pause();
        false
    }

    /// What the verifier makes of a completed I/O (after its latency was recorded).
    /// A failed I/O: counted and gone past when the job's `continue_on_error` forgives it
    /// (fio's `td_non_fatal_error()`), else the job's error.
    #[cold]
    fn forgive_or_fail(&mut self, io: &IoUnit, result: i64) -> Result<(), RunError> {
        let kind = match io.dir {
            Direction::Write => ErrorKind::Write,
            _ => ErrorKind::Read,
        };
        // fio counts a failed I/O among the direction's I/Os (`total_io_u`, and so its
        // IOPS), with no bytes and no latency.
        self.rec.stats[io.dir.index()].ios += 1;
        // A short transfer is fio's EIO.
        let errno = if result < 0 {
            (-result) as i32
        } else {
            libc::EIO
        };
        match self.errors.forgive(kind, errno) {
            true => Ok(()),
            false => Err(self.io_error(io, result)),
        }
    }

    /// As [`Self::verify_completed`], a mismatch gone past when `continue_on_error` forgives
    /// verify errors (EILSEQ).
    #[inline(always)]
    fn verify_or_forgive(&mut self, io: &IoUnit) -> Result<(), RunError> {
        match self.verify_completed(io) {
            Err(_) if self.errors.forgive(ErrorKind::Verify, libc::EILSEQ) => Ok(()),
            other => other,
        }
    }

    #[inline(always)]
    fn verify_completed(&mut self, io: &IoUnit) -> Result<(), RunError> {
        match self.verify.as_mut().map(|v| v.completed(io)) {
            Some(Err(mismatch)) => Err(self.verify_error(io, mismatch)),
            _ => Ok(()),
        }
    }

    /// The writes are done: starts reading them back if the job verifies after writing and
    /// its writes ran to their end (not cut by runtime or a signal, as fio). The files are
    /// synced and their cache dropped first, so the reads come from the device.
    fn begin_read_back(&mut self) -> bool {
        let ended = !self.interrupted && self.issue.bytes_done();
        let Some(v) = self.verify.as_mut().filter(|_| ended) else {
            return false;
        };
        if !v.begin_final_pass() {
            return false;
        }
        let _ = self.syncer.fsync(&self.clock);
        for (i, (facts, region)) in self.w.job.files().enumerate() {
            if let Some(&fd) = self.syncer.fds().get(i) {
                let _ = setup::invalidate_cache(fd, facts, region);
            }
        }
        // fio's read-back is not cut by runtime: only size-based jobs get here.
        self.time.deadline = u64::MAX;
        true
    }

    /// A verifying read under a loaded state (`verify_state_load`): the read, or `None`
    /// where the state says the writer stopped, which ends the job. Out of the I/O path.
    #[cold]
    #[inline(never)]
    fn within_saved_state(&mut self, io: IoUnit) -> Option<IoUnit> {
        let stops = self
            .verify
            .as_mut()
            .is_some_and(|v| v.saved_state_stops(&io));
        if !stops {
            return Some(io);
        }
        self.issue.unissue(&io);
        self.issue.end_here();
        None
    }

    /// fio's `verify_state_save`: a write job that verifies leaves what it wrote in fio's
    /// state file, through the guard. A file that cannot be written is a note, as fio
    /// prints an error and goes on.
    fn save_verify_state(&self) -> Option<String> {
        let spec = &self.w.job.spec;
        let index = self.w.job_number.saturating_sub(1);
        let state = self.verify.as_ref()?.saved_state(spec, index)?;
        let dir = spec.verify.as_ref()?.state_dir.as_deref();
        let path = iolab_verify::state::file_path(dir, &spec.name, index);
        let written = iolab_sysinfo::open_output(&path, "verify_state_save", &[])
            .map_err(|e| e.to_string())
            .and_then(|mut f| {
                std::io::Write::write_all(&mut f, &state.encode()).map_err(|e| e.to_string())
            });
        written
            .err()
            .map(|why| format!("verify_state_save: {} not written: {why}", path.display()))
    }

    #[cold]
    fn verify_error(&self, io: &IoUnit, mismatch: iolab_verify::Mismatch) -> RunError {
        let spec = &self.w.job.spec;
        let path = spec
            .files()
            .nth(io.file as usize)
            .cloned()
            .unwrap_or_default();
        let dumped = spec
            .verify
            .as_ref()
            .filter(|v| v.dump)
            .and_then(|_| dump_block(&path, io));
        RunError::Verify {
            job: spec.name.clone(),
            path,
            mismatch: Box::new(mismatch),
            dumped,
        }
    }

    #[cold]
    fn do_sync(&mut self) -> Result<(), RunError> {
        if self.syncer.empty_due {
            self.syncer.empty_files().map_err(|e| self.sync_error(e))?;
            if !self.syncer.due() {
                self.syncer.pending = false;
                return Ok(());
            }
        }
        self.syncer
            .sync(&self.clock)
            .map_err(|e| self.sync_error(e))
    }

    /// After an I/O was issued: where it ended a loop of an `unlink_each_loop` job, the
    /// files are emptied once what is in flight has finished (before the next loop).
    #[inline(always)]
    fn note_loop_end(&mut self) {
        if self.issue.loop_ended() {
            self.syncer.empty_due = true;
            self.syncer.pending = true;
        }
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

    /// The error of an I/O that failed (`result` < 0) or moved fewer bytes than asked.
    fn io_error(&self, io: &IoUnit, result: i64) -> RunError {
        let source = if result < 0 {
            std::io::Error::from_raw_os_error((-result) as i32)
        } else {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("short transfer: {result} of {} bytes", io.len),
            )
        };
        let spec = &self.w.job.spec;
        RunError::Io {
            job: spec.name.clone(),
            path: spec
                .files()
                .nth(io.file as usize)
                .cloned()
                .unwrap_or_default(),
            dir: io.dir,
            offset: io.offset,
            len: io.len,
            source,
        }
    }

    fn engine_error(&self, source: iolab_engine::EngineError) -> RunError {
        RunError::Engine {
            job: self.w.job.spec.name.clone(),
            source,
        }
    }
}

/// fio's `verify_dump`: the block as read, in `NAME.OFFSET.received` in the current
/// directory; its path, if it could be written. Opened through the output guard, as every
/// output: an old dump (a regular file) is rewritten, but never a target, the results
/// database or another output of the run, whatever is at that name now.
fn dump_block(path: &std::path::Path, io: &IoUnit) -> Option<std::path::PathBuf> {
    use std::io::Write;
    let name = path.file_name()?.to_string_lossy();
    let out = std::path::PathBuf::from(format!("{name}.{}.received", io.offset));
    // SAFETY: the read has completed and its buffer holds `len` bytes.
    let data = unsafe { std::slice::from_raw_parts(io.buf, io.len as usize) };
    iolab_sysinfo::open_output(&out, "verify_dump", &[path])
        .ok()
        .and_then(|mut f| f.write_all(data).ok())
        .map(|_| out)
}

/// What the worker records per I/O, sized for the whole run up front.
fn recorder(w: &Worker<'_>, clock: &Clock) -> Recorder {
    let spec = &w.job.spec;
    // Room for every sample of a time-based run, so the loop never grows the vectors.
    let expected_samples = spec.runtime.filter(|_| spec.recorded.bw).map_or(64, |r| {
        (r.as_millis() / spec.sampling().every_ms.max(1) as u128) as usize + 2
    });
    let expected_windows = spec.latency_window.map(|w| {
        spec.runtime
            .map_or(64, |r| (r.as_nanos() / w.as_nanos().max(1)) as usize + 2)
    });
    let logger = spec.logs.any().then(|| {
        let avg = spec.logs.avg_msec;
        let window = clock.duration_to_ticks(std::time::Duration::from_millis(avg as u64));
        // Per-I/O logs of a time-based job grow while it runs; start with room for a
        // second at 100k IOPS so short runs never regrow.
        let room = if avg == 0 { 100_000 } else { 0 };
        let layout = (avg, spec.logs.offset, spec.logs.prio);
        let logger = IoLogger::new(w.job_number, layout, window, room, w.job.log_cap_entries)
            .with_epoch(spec.logs.epoch_clock)
            .with_max(spec.logs.max_value)
            .with_both(spec.logs.window_both)
            .with_issue_time(spec.logs.issue_time);
        let logger = match spec.logs.per_io_kinds() {
            true => logger,
            false => logger.without_entries(),
        };
        match spec.logs.hist {
            Some(_) => {
                let ns_per_tick = 1.0 / clock.ticks_per_ns();
                logger.with_hist(spec.logs.hist_msec, ns_per_tick, ns_per_tick / 1e6)
            }
            None => logger,
        }
    });
    let mut stats: [DirStats; 3] =
        std::array::from_fn(|d| match spec.directions().any(|x| x.index() == d) {
            true => DirStats::new(expected_samples, expected_windows),
            false => DirStats::new(0, None),
        });
    if spec.rate.open_loop {
        for (d, s) in stats.iter_mut().enumerate() {
            let min_bs = spec.min_block_size(Direction::ALL[d]).max(1) as u64;
            let iops = spec.rate.bytes_per_sec(d, min_bs as u32).unwrap_or(0) / min_bs;
            if iops > 0 {
                s.open = Some(iolab_results::OpenLoop::new(iops as f64));
            }
        }
    }
    for (d, s) in stats.iter_mut().take(2).enumerate() {
        let table = iolab_job::PrioTable::new(&spec.cmdprio, d, &spec.priority);
        if table.is_on() {
            s.prios = table
                .values
                .iter()
                .map(|&v| (v, Default::default()))
                .collect();
        }
    }
    Recorder {
        stats,
        depth: DepthCounts::default(),
        logger,
        keep: spec.recorded,
        prio_total_lat: spec.lat_percentiles,
        thread_prio: spec.priority.ioprio().unwrap_or(0) as u16,
        // Taken once: a read-back pass runs with the same recorder.
        split: w
            .split
            .and_then(|slot| slot.lock().ok().and_then(|mut t| t.take())),
    }
}
