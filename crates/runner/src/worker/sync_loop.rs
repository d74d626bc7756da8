//! The loop of a synchronous engine: one I/O at a time, two clock reads each. Submission
//! and completion are the same call, so only `lat` is recorded (clat is the same histogram).

use iolab_engine::{BufferPool, IoEngine, QueueStatus};

use super::LoopState;
use crate::RunError;

impl LoopState<'_, '_> {
    #[inline(never)]
    pub(super) fn run_sync<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        if self.rate.open_loop {
            return self.run_sync_open(engine, pool);
        }
        self.run_sync_with::<false, E>(engine, pool)
    }

    /// [`Self::run_sync`] under an open loop (`rate_open_loop`): the same loop, compiled
    /// apart, so that recording response times costs other jobs nothing.
    #[cold]
    #[inline(never)]
    fn run_sync_open<E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        super::open_loop::tighten_timer_slack();
        self.run_sync_with::<true, E>(engine, pool)
    }

    /// The loop; `OPEN`: each I/O's response time from its due time too.
    #[inline(always)]
    fn run_sync_with<const OPEN: bool, E: IoEngine>(
        &mut self,
        engine: &mut E,
        pool: &BufferPool,
    ) -> Result<(), RunError> {
        let mut now = self.clock.now();
        while !self.window_over(now) && !self.bytes_done() {
            // Due syncs run before the next I/O, so none follows the last write (as fio).
            if self.syncer.due() || self.syncer.empty_due {
                self.do_sync()?;
            }
            if !self.flow_allows() {
                now = self.clock.now();
                continue;
            }
            // When the slot was free for the next I/O (the open loop's late-for-slot test).
            let ready = now;
            let Some(io) = self.next_io(0, pool, now) else {
                now = self.clock.now();
                continue;
            };
            let (t0, mut status);
            if self.w.job.locks.is_none() {
                t0 = self.clock.now();
                // SAFETY: io.buf is slot 0 of the pool, which outlives the engine; a
                // synchronous engine is done with it when queue returns.
                status = unsafe { engine.queue(&io) }.map_err(|e| self.engine_error(e))?;
                now = self.clock.now();
            } else {
                (t0, status, now) = self.queue_locked(engine, &io)?;
            }
            if let QueueStatus::Completed(r) = status {
                if r > 0 && r < io.len as i64 && engine.transfers() {
                    // The kernel moved part (a call is capped at 2 GiB - 4 KiB): the rest is
                    // submitted again, as fio requeues a residue; one I/O, timed whole.
                    (status, now) = self.rest_of(engine, &io, r)?;
                }
            }
            engine.settle();
            self.note_loop_end();
            if self.issue.special {
                let ok = matches!(status, QueueStatus::Completed(r) if r == io.len as i64);
                self.issue.zoned_done(&io, ok);
            }
            match status {
                QueueStatus::Completed(r) if r == io.len as i64 && !engine.timed() => {
                    // A file-operation engine's I/O between its operations: it only counts.
                    self.rec.counted(&io);
                }
                QueueStatus::Completed(r) if r == io.len as i64 => {
                    // An engine without I/O (cpuio) counts and times its I/Os, no bytes.
                    let io = match engine.transfers() {
                        true => io,
                        false => iolab_engine::IoUnit { len: 0, ..io },
                    };
                    self.rec.completed_sync(now, &io, now - t0);
                    if OPEN {
                        self.responded_sync(io.dir, ready, t0, now);
                    }
                    self.verify_or_forgive(&io)?;
                    if self.lat_checks {
                        self.max_checked(&io, now - t0)?;
                        if self.search.is_some() {
                            self.lat_checked(&io, now - t0, now)?;
                            if self.search_done(now) {
                                break;
                            }
                            // One I/O at a time: nothing is in flight to wait for.
                            self.drained(now);
                        }
                    }
                    if let Some(t) = self.think.as_mut() {
                        if let Some(pause) = engine.think() {
                            t.set_sleep(pause);
                        }
                        t.issued(1, &self.clock, self.w.stop, self.time.final_end());
                        t.completed(1);
                        if t.due(now) {
                            now = t.pause(&self.clock, self.w.stop, self.time.final_end());
                            self.thought(now);
                        }
                    }
                    if now >= self.time.next_sample {
                        self.take_samples(now)?;
                    }
                }
                QueueStatus::Completed(r) => self.forgive_or_fail(&io, r)?,
                QueueStatus::Queued | QueueStatus::Busy => return Err(self.not_synchronous()),
            }
        }
        self.end_measuring(now);
        Ok(())
    }

    /// The rest of a synchronous I/O that moved `done` of its bytes, submitted again until
    /// all have moved, an error, or a call that moves nothing (EIO, as fio's "full resid");
    /// what the whole I/O comes to and the clock after it.
    #[cold]
    #[inline(never)]
    fn rest_of<E: IoEngine>(
        &mut self,
        engine: &mut E,
        io: &iolab_engine::IoUnit,
        mut done: i64,
    ) -> Result<(QueueStatus, u64), RunError> {
        while done > 0 && done < io.len as i64 {
            let rest = iolab_engine::IoUnit {
                offset: io.offset + done as u64,
                len: io.len - done as u32,
                // SAFETY: within the I/O's own buffer, `done` < len bytes in.
                buf: unsafe { io.buf.add(done as usize) },
                ..*io
            };
            // SAFETY: as the loop's own queue call: the slot's buffer, which the pool keeps.
            match unsafe { engine.queue(&rest) }.map_err(|e| self.engine_error(e))? {
                QueueStatus::Completed(r) if r > 0 => done += r,
                QueueStatus::Completed(0) => done = -(libc::EIO as i64),
                QueueStatus::Completed(r) => done = r,
                QueueStatus::Queued | QueueStatus::Busy => return Err(self.not_synchronous()),
            }
        }
        Ok((QueueStatus::Completed(done), self.clock.now()))
    }

    /// One I/O under fio's `lockfile` (either loop): the file's lock is taken before the
    /// clock starts (waiting for it is not the I/O's latency) and let go when the call
    /// returns; the start and end clock reads and what the engine said.
    #[cold]
    #[inline(never)]
    pub(super) fn queue_locked<E: IoEngine>(
        &mut self,
        engine: &mut E,
        io: &iolab_engine::IoUnit,
    ) -> Result<(u64, QueueStatus, u64), RunError> {
        let locks = self.w.job.locks.as_ref();
        let _held = locks
            .expect("a locking job has its locks")
            .lock(io.file, io.dir);
        let t0 = self.clock.now();
        // SAFETY: as the callers' own queue calls: the I/O's slot buffer, which the pool
        // keeps and nobody else touches until the I/O completes (sync: when queue returns;
        // async: when it is reaped).
        let status = unsafe { engine.queue(io) }.map_err(|e| self.engine_error(e))?;
        Ok((t0, status, self.clock.now()))
    }

    #[cold]
    fn not_synchronous(&self) -> RunError {
        let spec = &self.w.job.spec;
        RunError::Worker {
            job: spec.name.clone(),
            reason: format!(
                "{} declared itself synchronous but did not complete an I/O",
                spec.engine.label()
            ),
        }
    }
}
