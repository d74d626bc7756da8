//! The loop of an asynchronous engine: keep up to iodepth I/Os in flight, submitting
//! `iodepth_batch_submit` at a time and reaping `iodepth_batch_complete_min..max` a call,
//! as fio's `td_io_queue()`/`td_io_commit()`/`io_u_queued_complete()` do.
//!
//! fio's figures, mirrored: each I/O's start is a clock read just before it is prepared
//! (`start_time`), its issue a clock read when its submit call returns (`issue_time`);
//! slat = issue − start, clat = reap − issue, lat = reap − start. At each submit call,
//! `iodepth_level` counts the call's I/Os in the bucket of the depth they make (fio's
//! `io_u_mark_depth` with `cur_depth`), and `iodepth_submit` counts the call once in the
//! bucket of its size.
//!
//! Where the job needs no issue time (no slat, no clat, no per-I/O log: fio's `gtod_reduce`)
//! and the engine's reap submits too (io_uring), the loop runs as t/io_uring's: a round
//! queues one batch and the reap's one system call submits it, waiting for completions only
//! once the queue is full. Where nothing needs an I/O's own start either (no latency at all,
//! no thinktime, rate, verify or latency search), its start is the clock read after the
//! last reap, as fio's gtod_reduce reads the clock only now and then.

use iolab_engine::{BufferPool, Completion, Direction, IoEngine, IoUnit, QueueStatus};
use iolab_results::DepthCounts;

use super::LoopState;
use crate::RunError;

/// What a slot carries while its I/O is in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct InFlight {
    pub io: IoUnit,
    /// Clock reads: before the I/O was prepared, and when its submit call returned.
    pub start_t: u64,
    pub submit_t: u64,
    /// When an open loop's schedule had it due (0 in the closed loop).
    pub due_t: u64,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight {
            io: IoUnit {
                slot: 0,
                file: 0,
                dir: Direction::Read,
                offset: 0,
                len: 0,
                buf: std::ptr::null_mut(),
                ioprio: 0,
                prio_index: 0,
            },
            start_t: 0,
            submit_t: 0,
            due_t: 0,
        }
    }
}

/// The slots of the queue: which are free, what each in flight carries, the batch being
/// queued and the completions of the last reap.
pub(super) struct Slots {
    pub free: Vec<u32>,
    pub flight: Vec<InFlight>,
    pub batch: Vec<u32>,
    pub done: Vec<Completion>,
    pub inflight: usize,
    /// t/io_uring's loop (see the module's doc): a round queues one batch, which the reap
    /// submits.
    defer_last: bool,
    /// Each I/O reads the clock for its start; false: it starts at the loop's last read.
    start_each: bool,
    /// fio's `iodepth_low`: once the queue is full, let it drain to this many before
    /// filling it again (`usize::MAX`: always refill), and whether it is draining now.
    low: usize,
    draining: bool,
    /// fio's `serialize_overlap`: a scratch mask of the free slots (`Some` when the job
    /// asks), and the I/O held back because one in flight overlaps it, with its start time
    /// (its slot stays on the free list, unused until it goes).
    overlap: Option<Vec<bool>>,
    held: Option<(IoUnit, u64)>,
    /// A rate-limited round stopped because the next I/O is not due yet: everything in
    /// flight completes before the job sleeps (fio's `io_u_quiesce()` in `rate_ddir()`).
    pub quiesce: bool,
    /// How long the job then sleeps (ticks): what was left until the I/O was due when the
    /// round stopped, however long the quiesce took, as fio's `rate_ddir()` reckons its
    /// sleep before it quiesces. A quiesce that outlasts the wait leaves the job behind, and
    /// it catches up by filling its queue, as fio's does.
    pub sleep: u64,
}

impl Slots {
    pub fn new(depth: usize, defer_last: bool, start_each: bool) -> Slots {
        Slots {
            free: (0..depth as u32).rev().collect(),
            flight: vec![InFlight::default(); depth],
            batch: Vec::with_capacity(depth),
            done: vec![Completion::default(); depth],
            inflight: 0,
            defer_last,
            start_each,
            low: usize::MAX,
            draining: false,
            overlap: None,
            held: None,
            quiesce: false,
            sleep: 0,
        }
    }

    /// serialize_overlap: holds `io` back when one in flight overlaps it (fio's
    /// FIO_Q_BUSY from `io_u_submit()`: the same I/O goes again once a completion has been
    /// reaped). Its slot stays on the free list, unused until it goes.
    #[cold]
    #[inline(never)]
    fn hold_if_overlapping(&mut self, io: IoUnit, t_start: u64) -> bool {
        let overlaps = self.overlaps_in_flight(&io);
        if overlaps {
            self.held = Some((io, t_start));
        }
        overlaps
    }

    /// The held-back I/O, once nothing in flight overlaps it, with its slot moved to the top
    /// of the free list (where the submit loop takes its slot from); `None` while it still
    /// overlaps.
    #[cold]
    #[inline(never)]
    fn take_held(&mut self) -> Option<(IoUnit, u64)> {
        let (io, t) = self.held?;
        if self.overlaps_in_flight(&io) {
            return None;
        }
        let at = self.free.iter().position(|&s| s == io.slot)?;
        self.held = None;
        let top = self.free.len() - 1;
        self.free.swap(at, top);
        Some((io, t))
    }

    /// Whether an I/O in flight (or queued for the next submit call) overlaps `io`'s bytes.
    /// As fio's `in_flight_overlap()`, offsets are compared whatever the file.
    #[cold]
    fn overlaps_in_flight(&mut self, io: &IoUnit) -> bool {
        let Some(free) = self.overlap.as_mut() else {
            return false;
        };
        free.iter_mut().for_each(|f| *f = false);
        for &s in &self.free {
            free[s as usize] = true;
        }
        let (a, b) = (io.offset, io.offset + io.len as u64);
        self.flight.iter().enumerate().any(|(s, f)| {
            !free[s]
                && s != io.slot as usize
                && a < f.io.offset + f.io.len as u64
                && f.io.offset < b
        })
    }

    /// Whether new I/O may go in: a free slot, and not draining to `iodepth_low` (the
    /// drain ends once the queue is that low).
    #[inline(always)]
    fn room(&mut self) -> bool {
        if self.draining && self.inflight <= self.low {
            self.draining = false;
        }
        !self.free.is_empty() && !self.draining
    }

    /// After a round of submits: a full queue starts draining to `iodepth_low`.
    #[inline(always)]
    fn filled(&mut self) {
        if self.low != usize::MAX && self.free.is_empty() {
            self.draining = true;
        }
    }
}

impl LoopState<'_, '_> {
    #[inline(never)]
    pub(super) fn run_async<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        if self.rate.open_loop {
            return self.run_open(engine, pool);
        }
        let spec = &self.w.job.spec;
        let no_issue_time = !spec.recorded.slat && !spec.recorded.clat && !spec.logs.any();
        let start_each = !no_issue_time
            || spec.recorded.lat
            || self.rec.stats.iter().any(|s| !s.prios.is_empty())
            || self.think.is_some()
            || self.rate.on
            || self.verify.is_some()
            || self.search.is_some();
        let defer_last = no_issue_time && engine.capabilities().submits_on_reap;
        if let Some(job) = self.lean_job(defer_last && !start_each) {
            self.lean = true;
            return self.run_lean(engine, pool, job);
        }
        let mut q = Slots::new(pool.slots(), defer_last, start_each);
        let low = spec.iodepth_low as usize;
        if low > 0 && low < pool.slots() {
            q.low = low;
        }
        if spec.serializes_overlap() {
            q.overlap = Some(vec![false; pool.slots()]);
        }
        let mut stopping = false;
        let mut now = self.clock.now();
        loop {
            if !stopping && (self.window_over(now) || self.search_done(now)) {
                stopping = true;
                self.end_measuring(now);
            }
            let room = q.room() && self.search.as_ref().is_none_or(|s| s.room(q.inflight));
            if !stopping && !self.bytes_done() && room && !self.syncer.pending {
                q.inflight += self.submit(engine, pool, &mut q, now)?;
                q.filled();
            }
            if !stopping && self.think.as_ref().is_some_and(|t| t.pending) {
                now = self.think_pause(engine, &mut q, stopping)?;
                continue;
            }
            if std::mem::take(&mut q.quiesce) {
                // Ahead of the rate: everything in flight completes, then the job sleeps
                // what was left when it stopped.
                while q.inflight > 0 {
                    now = self.reap(engine, &mut q, stopping, false)?;
                }
                let until = now.saturating_add(std::mem::take(&mut q.sleep));
                super::rate::sleep_as_fio(
                    &self.clock,
                    until.min(self.time.final_end()),
                    self.w.stop,
                );
                now = self.clock.now();
                continue;
            }
            if q.inflight == 0 {
                if self.search.as_ref().is_some_and(|s| s.quiescing) {
                    self.drained(self.clock.now());
                }
                if self.syncer.pending {
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
                if now >= self.time.next_sample {
                    // Everything completed inside queue (trims): samples are due all the same.
                    self.take_samples(now)?;
                }
                continue;
            }
            // Deferring: wait only when another whole batch cannot go in flight
            // (t/io_uring's `to_wait`).
            let another_fits = q.defer_last
                && q.free.len() >= self.batch_submit
                && !stopping
                && !self.bytes_done()
                && !self.syncer.pending
                && !self.rate.on
                && self.search.is_none();
            now = self.reap(engine, &mut q, stopping, another_fits)?;
            if now >= self.time.next_sample && !stopping {
                self.take_samples(now)?;
            }
        }
    }

    /// The job as the lean loop runs it, where it may: the loop is t/io_uring's (`fits`:
    /// the reap submits, and nothing needs an I/O's start), nothing paces or syncs the
    /// job, and its issuer is simple (see [`super::lean_loop`]).
    fn lean_job(&self, fits: bool) -> Option<super::lean_loop::LeanIssue> {
        let spec = &self.w.job.spec;
        let paced = self.flow.is_some()
            || spec.files.unlink_each_loop
            || spec.fsync_every > 0
            || spec.fdatasync_every > 0
            || spec.sync_file_range.0 > 0;
        let limited = self.max_lat.iter().any(|m| *m != u64::MAX);
        let paced = paced
            || limited
            || (spec.iodepth_low > 0 && spec.iodepth_low < spec.iodepth)
            || spec.control.errors.on()
            || self.w.job.locks.is_some()
            || spec.serializes_overlap();
        if !fits || paced || !self.w.lean_loop {
            return None;
        }
        self.issue.lean()
    }

    /// One reap call: records what completed (unless the window is over) and frees the
    /// slots; returns the clock read after it.
    #[inline(always)]
    fn reap<E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Slots,
        stopping: bool,
        no_wait: bool,
    ) -> Result<u64, RunError> {
        let (n, now) = self.reap_call(engine, &mut q.done, q.inflight, no_wait)?;
        self.reaped::<false, E>(engine, q, n, now, stopping)?;
        Ok(now)
    }

    /// Records the `n` completions a reap left in `q.done` at `now` (unless the window is
    /// over) and frees their slots. `OPEN`: each I/O's response time too, from when it was
    /// due (the open loop).
    #[inline(always)]
    pub(super) fn reaped<const OPEN: bool, E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Slots,
        n: usize,
        now: u64,
        stopping: bool,
    ) -> Result<(), RunError> {
        for i in 0..n {
            let c = q.done[i];
            let mut f = q.flight[c.slot as usize];
            if self.issue.special {
                self.issue.zoned_done(&f.io, c.result == f.io.len as i64);
            }
            // A short transfer (a call the kernel caps at 2 GiB - 4 KiB): its bytes count, as
            // fio's io_completed counts an asynchronous I/O's residue; nothing is read back
            // from part of a block.
            if c.result > 0 && c.result < f.io.len as i64 && self.verify.is_none() {
                f.io.len = c.result as u32;
            }
            if c.result != f.io.len as i64 {
                if let Err(e) = self.forgive_or_fail(&f.io, c.result) {
                    // Drain the rest before returning, so no buffer is freed under the
                    // kernel.
                    q.inflight -= n;
                    drain(engine, &mut q.done, q.inflight);
                    return Err(e);
                }
                // Gone past (`continue_on_error`): the slot is free, nothing is recorded.
                q.free.push(c.slot);
                continue;
            }
            q.free.push(c.slot);
            if !stopping {
                let (start, sub) = (f.start_t, f.submit_t);
                self.rec
                    .completed(now, &f.io, sub - start, now - sub, now - start);
                if OPEN {
                    self.rec.responded(f.io.dir, f.due_t, start, now);
                }
                let checked = match self.lat_checks {
                    false => Ok(()),
                    true => self
                        .max_checked(&f.io, now - start)
                        .and_then(|()| self.lat_checked(&f.io, now - start, now)),
                };
                if let Err(e) = checked {
                    q.inflight -= n;
                    drain(engine, &mut q.done, q.inflight);
                    return Err(e);
                }
            }
            if let Err(e) = self.verify_or_forgive(&f.io) {
                q.inflight -= n;
                drain(engine, &mut q.done, q.inflight);
                return Err(e);
            }
        }
        q.inflight -= n;
        if let Some(t) = self.think.as_mut() {
            t.completed(n);
        }
        Ok(())
    }

    /// The reap call both loops make: waits for `iodepth_batch_complete_min` of the
    /// `inflight` I/Os (none when `no_wait`), takes up to `iodepth_batch_complete_max` into
    /// `done`, and counts the call in fio's `iodepth_complete` distribution; returns how many
    /// completed and the clock read after it.
    #[inline(always)]
    pub(super) fn reap_call<E: IoEngine>(
        &mut self,
        engine: &mut E,
        done: &mut [Completion],
        inflight: usize,
        no_wait: bool,
    ) -> Result<(usize, u64), RunError> {
        let (min, max) = self.batch_complete;
        let min = if no_wait { 0 } else { min.min(inflight) };
        let n = engine
            .reap(min as u32, &mut done[..max])
            .map_err(|e| self.engine_error(e))?;
        let now = self.clock.now();
        if n > 0 || min > 0 {
            self.rec.depth.complete[DepthCounts::batch_bucket(n)] += 1;
        }
        Ok((n, now))
    }

    /// fio's thinktime: everything in flight completes, then the job pauses.
    #[cold]
    fn think_pause<E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Slots,
        stopping: bool,
    ) -> Result<u64, RunError> {
        while q.inflight > 0 {
            self.reap(engine, q, stopping, false)?;
        }
        let end = self.time.final_end();
        let t = self.think.as_mut().expect("a pending pause has a pauser");
        t.pending = false;
        let now = t.pause(&self.clock, self.w.stop, end);
        self.thought(now);
        Ok(now)
    }

    /// Queues I/Os into the free slots and submits them `iodepth_batch_submit` at a time;
    /// returns how many went in flight. `now` is the loop's last clock read.
    #[inline(always)]
    fn submit<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        q: &mut Slots,
        now: u64,
    ) -> Result<usize, RunError> {
        if q.overlap.is_some() {
            return self.submit_serialized(engine, pool, q, now);
        }
        self.submit_with::<false, E>(engine, pool, q, now)
    }

    /// [`Self::submit`] for a job with `serialize_overlap`: the same loop, compiled apart,
    /// so that the checks it adds cost other jobs nothing.
    #[cold]
    #[inline(never)]
    fn submit_serialized<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        q: &mut Slots,
        now: u64,
    ) -> Result<usize, RunError> {
        self.submit_with::<true, E>(engine, pool, q, now)
    }

    /// The submit loop; `SERIAL`: holding back an I/O that overlaps one in flight, and
    /// sending a held one first.
    #[inline(always)]
    fn submit_with<const SERIAL: bool, E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        q: &mut Slots,
        now: u64,
    ) -> Result<usize, RunError> {
        let mut submitted = 0;
        // I/Os the engine completed inside queue (trims): their slots stay free, so the
        // round ends after a depth of them, to let the loop look at the clock.
        let mut inline = 0;
        q.batch.clear();
        while let Some(&slot) = q.free.last() {
            let (io, t_start) = if SERIAL && q.held.is_some() {
                // serialize_overlap's held-back I/O, drawn already: it goes first, if it may.
                match q.take_held() {
                    Some(held) => {
                        self.issue.reissue(&held.0);
                        held
                    }
                    None => break,
                }
            } else {
                if self.bytes_done() || self.syncer.pending {
                    break;
                }
                // fio's pacing (`rate_ddir()`): an I/O that is due goes at once, however many
                // are in flight, so a job behind its schedule fills its queue; one that is not
                // due yet first lets everything in flight complete (the loop reaps them all),
                // then sleeps until it is.
                let in_flight = q.inflight + submitted + q.batch.len();
                if self.rate.on && in_flight > 0 {
                    if let Some(wait) = self.rate.ahead(self.clock.now()) {
                        q.quiesce = true;
                        q.sleep = wait;
                        break;
                    }
                }
                if self.think.as_ref().is_some_and(|t| t.pending) {
                    break;
                }
                if !self.flow_allows() {
                    break;
                }
                let in_flight = q.inflight + submitted + q.batch.len();
                if self.search.as_ref().is_some_and(|s| !s.room(in_flight)) {
                    break;
                }
                let mut t_start = if q.start_each { self.clock.now() } else { now };
                let Some(io) = self.next_io(slot, pool, t_start) else {
                    break;
                };
                if self.rate.on || self.verify.is_some() {
                    // next_io may have waited for the rate limit or stamped a verify header:
                    // neither is latency.
                    t_start = self.clock.now();
                }
                if SERIAL && q.hold_if_overlapping(io, t_start) {
                    // Its bytes count again when it goes: until then the job is not done.
                    self.issue.hold(&io);
                    break;
                }
                (io, t_start)
            };
            let slot = io.slot;
            // SAFETY: io.buf is the pool slot `slot`, free until now and kept out of the free
            // list until its completion is reaped (or drained on an error); the pool outlives
            // the engine.
            let status = match self.w.job.locks.is_none() {
                true => unsafe { engine.queue(&io) }.map_err(|e| self.engine_error(e))?,
                false => self.queue_locked(engine, &io)?.1,
            };
            match status {
                QueueStatus::Queued => {
                    q.free.pop();
                    q.batch.push(slot);
                    q.flight[slot as usize] = InFlight {
                        io,
                        start_t: t_start,
                        submit_t: 0,
                        due_t: 0,
                    };
                    if let Some(t) = self.think.as_mut() {
                        t.issued(1, &self.clock, self.w.stop, self.time.final_end());
                        t.pending = t.due(t_start);
                    }
                    if self.syncer.due() && !self.bytes_done() {
                        // Let what is in flight finish, then sync (as fio's libaio).
                        self.syncer.pending = true;
                    }
                    self.note_loop_end();
                    if q.batch.len() >= self.batch_submit {
                        if q.defer_last {
                            // The reap submits this batch.
                            break;
                        }
                        submitted += self.commit(engine, q, submitted)?;
                    }
                }
                QueueStatus::Busy => {
                    self.issue.unissue(&io);
                    break;
                }
                QueueStatus::Completed(r) if r == io.len as i64 => {
                    if self.issue.special {
                        self.issue.zoned_done(&io, true);
                    }
                    let t = self.clock.now();
                    let lat = t - t_start;
                    self.rec.completed(t, &io, 0, lat, lat);
                    self.verify_completed(&io)?;
                    if let Some(th) = self.think.as_mut() {
                        th.issued(1, &self.clock, self.w.stop, self.time.final_end());
                        th.completed(1);
                        th.pending = th.due(t);
                    }
                    inline += 1;
                    if inline >= q.flight.len() {
                        break;
                    }
                }
                QueueStatus::Completed(r) => return Err(self.io_error(&io, r)),
            }
        }
        if !q.batch.is_empty() {
            submitted += if q.defer_last {
                self.issued(q, submitted, None)
            } else {
                self.commit(engine, q, submitted)?
            };
        }
        Ok(submitted)
    }

    /// One submit call for the queued batch, then [`Self::issued`] with its issue time.
    #[inline(always)]
    pub(super) fn commit<E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Slots,
        submitted: usize,
    ) -> Result<usize, RunError> {
        engine.commit().map_err(|e| self.engine_error(e))?;
        let t_sub = self.clock.now();
        Ok(self.issued(q, submitted, Some(t_sub)))
    }

    /// Counts the batch's submit call in the depth distributions and stamps each I/O's
    /// issue time and slat; with no issue time (the reap submits it), slat is 0 and the
    /// issue time the start. `submitted` I/Os went in flight earlier in this round, after
    /// the `q.inflight` before it.
    #[inline(always)]
    fn issued(&mut self, q: &mut Slots, submitted: usize, t_sub: Option<u64>) -> usize {
        let n = q.batch.len();
        // A batch committed because the job is about to quiesce for its rate counts the
        // I/O fio was preparing too: fio takes it from the free list (`cur_depth`) before its
        // rate check commits what is queued (`io_u_quiesce()`).
        let depth_now = q.inflight + submitted + n + usize::from(q.quiesce);
        let depth = &mut self.rec.depth;
        depth.level[DepthCounts::level_bucket(depth_now)] += n as u64;
        depth.submit[DepthCounts::batch_bucket(n)] += 1;
        for &slot in q.batch.iter() {
            let f = &mut q.flight[slot as usize];
            f.submit_t = t_sub.unwrap_or(f.start_t);
            self.rec.submitted(f.io.dir, f.submit_t - f.start_t);
        }
        q.batch.clear();
        n
    }
}

/// Reaps until nothing is in flight, ignoring results (used on the error path).
pub(super) fn drain<E: IoEngine>(engine: &mut E, done: &mut [Completion], mut inflight: usize) {
    while inflight > 0 {
        match engine.reap(1, done) {
            Ok(n) => inflight -= n.min(inflight),
            Err(_) => break,
        }
    }
}
