//! iolab's open loop (`rate_open_loop`) for an asynchronous engine: each I/O goes when the
//! rate's schedule has it due, whether or not the ones before it completed, up to iodepth in
//! flight. A closed loop (fio's, and the async loop's with a rate) waits for a completion
//! before it issues again, so a stall delays every I/O behind it and never shows in their
//! latency (coordinated omission); here it shows in their response time.
//!
//! Between due times the loop waits in the engine's timed reap, so a completion is stamped
//! when it arrives and the next I/O is not held up by a blocking reap; the last stretch
//! before a due time is spun (a timed wait wakes tens of µs late). The I/Os due at once go
//! in one submit call.
//!
//! Each I/O records fio's figures as the closed loop does (slat, clat, and lat from its
//! start) and iolab's own: its response time (due → completion) and lateness (due → start).
//! An I/O that falls due while every slot is busy waits for one and is counted late for want
//! of a slot.

use std::time::Duration;

use iolab_engine::{BufferPool, Direction, IoEngine, QueueStatus};
use iolab_results::DepthCounts;

use super::async_loop::{InFlight, Slots};
use super::LoopState;
use crate::RunError;

/// Waits shorter than this are spun: a timed wait wakes up to tens of µs late.
const SPIN_NS: f64 = 100_000.0;

/// The longest single timed wait, so a stop is heard.
const MAX_WAIT: Duration = Duration::from_millis(50);

/// The schedule's next I/O: its direction once drawn, and whether it was counted late for
/// want of a slot already.
#[derive(Default)]
struct Pending {
    dir: Option<Direction>,
    late_counted: bool,
}

impl LoopState<'_, '_> {
    #[cold]
    #[inline(never)]
    pub(super) fn run_open<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        tighten_timer_slack();
        let mut q = Slots::new(pool.slots(), false, true);
        let mut pending = Pending::default();
        let mut stopping = false;
        let mut now = self.clock.now();
        loop {
            if !stopping && self.window_over(now) {
                stopping = true;
                self.end_measuring(now);
            }
            let mut next_due = u64::MAX;
            if !stopping && !self.bytes_done() {
                next_due = self.issue_due(engine, pool, &mut q, &mut pending)?;
            }
            if q.inflight == 0 && (stopping || self.bytes_done()) {
                if !stopping {
                    self.end_measuring(self.clock.now());
                }
                return Ok(());
            }
            now = self.wait_open(engine, &mut q, next_due, stopping)?;
            if now >= self.time.next_sample && !stopping {
                self.take_samples(now)?;
            }
        }
    }

    /// Issues every I/O that is due while a slot is free, in one submit call; returns when
    /// the next falls due (`u64::MAX`: when a slot frees, or never).
    fn issue_due<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        q: &mut Slots,
        pending: &mut Pending,
    ) -> Result<u64, RunError> {
        let mixed = (1..100).contains(&self.w.job.spec.read_percent);
        q.batch.clear();
        let mut next = u64::MAX;
        // The clock read before the last I/O went: a due time at or before it is due now
        // too, so each I/O costs one read (its start), and one more where the next is not.
        let mut now = self.clock.now();
        while !self.bytes_done() {
            let drawn = *pending
                .dir
                .get_or_insert_with(|| self.issue.next_direction());
            let (mut dir, mut due) = self.rate.pick(drawn, mixed, now);
            if due > now {
                now = self.clock.now();
                (dir, due) = self.rate.pick(drawn, mixed, now);
                if due > now {
                    next = due;
                    break;
                }
            }
            let Some(&slot) = q.free.last() else {
                if !pending.late_counted {
                    self.rec.late_for_slot(dir);
                    pending.late_counted = true;
                }
                break;
            };
            let Some(io) = self.build_io(dir, slot, pool, now) else {
                break;
            };
            *pending = Pending::default();
            let t_start = self.clock.now();
            now = t_start;
            // SAFETY: io.buf is the pool slot `slot`, free until now and kept out of the free
            // list until its completion is reaped; the pool outlives the engine.
            let status = unsafe { engine.queue(&io) }.map_err(|e| self.engine_error(e))?;
            match status {
                QueueStatus::Queued => {
                    q.free.pop();
                    q.batch.push(slot);
                    q.flight[slot as usize] = InFlight {
                        io,
                        start_t: t_start,
                        submit_t: 0,
                        due_t: due,
                    };
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
                    self.rec.completed(t, &io, 0, t - t_start, t - t_start);
                    self.rec.responded(io.dir, due, t_start, t);
                }
                QueueStatus::Completed(r) => return Err(self.io_error(&io, r)),
            }
        }
        if !q.batch.is_empty() {
            q.inflight += self.commit(engine, q, 0)?;
        }
        Ok(next)
    }

    /// Waits for a completion, no longer than until `next_due` (when a slot is free for
    /// it), the window's next deadline or the next sample; records what completed and
    /// returns the clock read after. Draining at the end (`stopping`), it waits for one.
    fn wait_open<E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Slots,
        next_due: u64,
        stopping: bool,
    ) -> Result<u64, RunError> {
        let now = self.clock.now();
        let until = match q.free.is_empty() {
            true => u64::MAX,
            false => next_due,
        }
        .min(self.time.deadline)
        .min(self.time.next_sample);
        if q.inflight == 0 {
            super::rate::wait_until(&self.clock, until, self.w.stop);
            return Ok(self.clock.now());
        }
        let max = self.batch_complete.1;
        let n = if stopping {
            self.reap_call(engine, &mut q.done, q.inflight, false)?.0
        } else {
            let left_ns = self.clock.ticks_to_ns(until.saturating_sub(now));
            let n = match left_ns > SPIN_NS {
                true => {
                    let wait = Duration::from_nanos((left_ns - SPIN_NS) as u64).min(MAX_WAIT);
                    engine.reap_within(&mut q.done[..max], wait)
                }
                false => engine.reap(0, &mut q.done[..max]),
            }
            .map_err(|e| self.engine_error(e))?;
            if n > 0 {
                self.rec.depth.complete[DepthCounts::batch_bucket(n)] += 1;
            }
            n
        };
        let now = self.clock.now();
        self.reaped::<true, E>(engine, q, n, now, stopping)?;
        Ok(now)
    }

    /// The synchronous loop's I/O under an open loop, once it completed at `done`: it was
    /// due when the rate last let one go, started at `start`; it was late for want of the
    /// one slot if it fell due before the I/O before it completed (`ready`).
    #[cold]
    #[inline(never)]
    pub(super) fn responded_sync(&mut self, dir: Direction, ready: u64, start: u64, done: u64) {
        let due = self.rate.last_due;
        self.rec.responded(dir, due, start, done);
        if due < ready {
            self.rec.late_for_slot(dir);
        }
    }
}

/// A sleep on this thread wakes within a microsecond of its time, not the default 50 µs
/// slack: the schedule's lateness is the tool's own error.
pub(super) fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes a nanosecond count and touches only this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong) };
}
