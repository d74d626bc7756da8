//! The loop of a simple job on an engine whose reap submits (io_uring): one file, one
//! direction, one block size, nothing recorded per I/O but its count and bytes, nothing
//! paced (no rate, thinktime, flow, fsync, latency search), nothing verified.
//!
//! It is [`super::async_loop`]'s loop in its `gtod_reduce` form with every branch such a
//! job never takes left out, and its state in a few cache lines: on a device whose I/O goes
//! through a kernel worker, every cache line the loop touches is cold again after each
//! sleep, and the general loop's per-I/O walk through the job model cost more than the
//! kernel's own bookkeeping (bench/peak.py). Everything a user reads is the same as the
//! general loop's: the offsets are its generator's ([`LeanOffsets`] is tested against it),
//! the batches, the depth distributions, the samples and the deadline are counted in the
//! same places.

use iolab_engine::{BufferPool, Completion, Direction, IoEngine, IoUnit, QueueStatus};
use iolab_job::LeanOffsets;
use iolab_results::DepthCounts;

use super::LoopState;
use crate::RunError;

/// What a simple job issues: its offsets, direction and size, and how far it has got.
pub(super) struct LeanIssue {
    pub offsets: LeanOffsets,
    pub dir: Direction,
    pub bs: u32,
    /// Bytes and I/Os issued in this phase (ramp or measured window), and their limits
    /// (`u64::MAX`: none), as the job's [`super::issue::Issuer`] counts them.
    pub issued: u64,
    pub ios: u64,
    pub byte_limit: u64,
    pub io_limit: u64,
}

impl LeanIssue {
    #[inline(always)]
    fn done(&self) -> bool {
        self.issued >= self.byte_limit || self.ios >= self.io_limit
    }

    /// The next I/O, into `slot`'s buffer.
    #[inline(always)]
    fn next(&mut self, slot: u32, pool: &BufferPool) -> IoUnit {
        self.issued += self.bs as u64;
        self.ios += 1;
        IoUnit {
            slot,
            file: 0,
            dir: self.dir,
            offset: self.offsets.draw(),
            len: self.bs,
            buf: pool.slot_ptr(slot as usize),
            ioprio: 0,
            prio_index: 0,
        }
    }

    /// The engine could not take the last I/O: not issued after all (its offset is drawn,
    /// as the general loop's is).
    fn unissue(&mut self) {
        self.issued -= self.bs as u64;
        self.ios -= 1;
    }
}

/// The queue: free slots, each slot's offset while in flight (for an error's message), the
/// completions of the last reap.
struct Queue {
    free: Vec<u32>,
    offsets: Vec<u64>,
    done: Vec<Completion>,
    inflight: usize,
}

impl LoopState<'_, '_> {
    /// Runs `job` to its end, as [`Self::run_async`] would with a reap that submits.
    pub(super) fn run_lean<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        mut job: LeanIssue,
    ) -> Result<(), RunError> {
        let depth = pool.slots();
        let mut q = Queue {
            free: (0..depth as u32).rev().collect(),
            offsets: vec![0; depth],
            done: vec![Completion::default(); depth],
            inflight: 0,
        };
        let mut stopping = false;
        let mut now = self.clock.now();
        loop {
            if !stopping {
                let ramping = !self.time.measuring;
                if self.window_over(now) {
                    stopping = true;
                    self.end_measuring(now);
                } else if ramping && self.time.measuring {
                    // The ramp is over: its bytes do not count (the issuer's `reset`).
                    (job.issued, job.ios) = (0, 0);
                }
            }
            if !stopping && !job.done() && !q.free.is_empty() {
                self.queue_batch(engine, pool, &mut job, &mut q)?;
            }
            if q.inflight == 0 {
                if stopping {
                    return Ok(());
                }
                if job.done() {
                    self.end_measuring(self.clock.now());
                    return Ok(());
                }
                now = self.clock.now();
                if now >= self.time.next_sample {
                    self.take_samples(now)?;
                }
                continue;
            }
            let another_fits = q.free.len() >= self.batch_submit && !stopping && !job.done();
            now = self.reap_lean(engine, &mut q, &job, stopping, another_fits)?;
            if now >= self.time.next_sample && !stopping {
                self.take_samples(now)?;
            }
        }
    }

    /// Queues up to a batch into the free slots, for the next reap to submit, and counts
    /// it in the depth distributions as the general loop's `issued` does.
    #[inline(always)]
    fn queue_batch<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
        job: &mut LeanIssue,
        q: &mut Queue,
    ) -> Result<(), RunError> {
        let (mut n, mut inline) = (0, 0);
        while let Some(&slot) = q.free.last() {
            if job.done() {
                break;
            }
            let io = job.next(slot, pool);
            // SAFETY: io.buf is the pool slot `slot`, free until now and kept out of the free
            // list until its completion is reaped (or drained on an error); the pool outlives
            // the engine.
            match unsafe { engine.queue(&io) }.map_err(|e| self.engine_error(e))? {
                QueueStatus::Queued => {
                    q.free.pop();
                    q.offsets[slot as usize] = io.offset;
                    n += 1;
                    if n >= self.batch_submit {
                        break;
                    }
                }
                QueueStatus::Busy => {
                    job.unissue();
                    break;
                }
                // Reads and writes complete in a reap; an engine that finished one at once
                // is taken at its word, as the general loop does.
                QueueStatus::Completed(r) if r == io.len as i64 => {
                    let t = self.clock.now();
                    self.rec.completed(t, &io, 0, 0, 0);
                    inline += 1;
                    if inline >= q.offsets.len() {
                        break;
                    }
                }
                QueueStatus::Completed(r) => return Err(self.io_error(&io, r)),
            }
        }
        if n > 0 {
            let depth = &mut self.rec.depth;
            depth.level[DepthCounts::level_bucket(q.inflight + n)] += n as u64;
            depth.submit[DepthCounts::batch_bucket(n)] += 1;
            q.inflight += n;
        }
        Ok(())
    }

    /// One reap call (it submits what was queued): counts what completed (unless the window
    /// is over) and frees the slots; returns the clock read after it.
    #[inline(always)]
    fn reap_lean<E: IoEngine>(
        &mut self,
        engine: &mut E,
        q: &mut Queue,
        job: &LeanIssue,
        stopping: bool,
        no_wait: bool,
    ) -> Result<u64, RunError> {
        let (n, now) = self.reap_call(engine, &mut q.done, q.inflight, no_wait)?;
        for i in 0..n {
            let c = q.done[i];
            if c.result != job.bs as i64 {
                q.inflight -= n;
                super::async_loop::drain(engine, &mut q.done, q.inflight);
                let io = IoUnit {
                    slot: c.slot,
                    file: 0,
                    dir: job.dir,
                    offset: q.offsets[c.slot as usize],
                    len: job.bs,
                    buf: std::ptr::null_mut(),
                    ioprio: 0,
                    prio_index: 0,
                };
                return Err(self.io_error(&io, c.result));
            }
            q.free.push(c.slot);
        }
        q.inflight -= n;
        if !stopping {
            let s = &mut self.rec.stats[job.dir.index()];
            s.ios += n as u64;
            s.bytes += n as u64 * job.bs as u64;
        }
        Ok(now)
    }
}
