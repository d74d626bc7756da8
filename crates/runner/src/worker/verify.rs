//! Data verification, as fio's `verify`: writes are stamped with fio's headers and
//! checksums before their clock starts; reads are checked after their completion is timed,
//! so neither checksum counts in a latency. A write job remembers each completed write and
//! reads it back: every `verify_backlog` writes, and when its writes are done (`do_verify`).
//! A read-only job (or `verify_only`) checks every read.

use std::sync::Arc;

use iolab_engine::{BufferPool, Direction, IoUnit};
use iolab_job::{JobSpec, Rng};
use iolab_verify::state::{SavedState, VERSION_3};
use iolab_verify::{Expect, Format, Mismatch, Stamp};

use super::write_log::{Piece, WriteLog};

pub(super) struct Verifier {
    format: Format,
    /// Check every read (read-only jobs and `verify_only`).
    check_all_reads: bool,
    /// Issue reads where the job would write (`verify_only`).
    pub only: bool,
    /// Completed writes to read back (fio's list or tree, see [`WriteLog`]).
    log: WriteLog,
    keep_log: bool,
    backlog: usize,
    /// Read-backs per full backlog (`verify_backlog_batch`), and those left of the current.
    batch: usize,
    batch_left: usize,
    /// Reading back what is left, the writes being done.
    pub final_pass: bool,
    /// Slots whose I/O is a read-back (so its completion is checked).
    from_log: Vec<bool>,
    /// Per slot: the seed and number of the write in it, and what a read-back in it must
    /// find (`verify_header_seed`, `verify_write_sequence`).
    stamps: Vec<(u64, u16)>,
    expect: Vec<Expect>,
    check_seed: bool,
    check_numberio: bool,
    writes: u64,
    thread: u16,
    seeds: Rng,
    /// What a saved state says was written (`verify_state_load`), and the reads issued and
    /// completed that its rule counts.
    saved: Option<Arc<SavedState>>,
    reads_issued: u64,
    reads_done: u64,
    /// For `verify_state_save`: per file, the offsets of the last `iodepth` completed
    /// writes (a ring, as fio's `last_write_comp`), where each ring goes next, and the
    /// writes completed.
    ring: Vec<u64>,
    ring_next: Vec<u32>,
    ring_depth: usize,
    writes_done: u64,
}

impl Verifier {
    pub fn new(
        spec: &JobSpec,
        depth: usize,
        thread: u32,
        seed: u64,
        saved: Option<Arc<SavedState>>,
    ) -> Option<Verifier> {
        let v = spec.verify.as_ref()?;
        let files = spec.files().count().max(1);
        // fio keeps the ring at the job's iodepth as given, whatever the engine.
        let ring_depth = if v.save_state {
            spec.iodepth.max(1) as usize
        } else {
            0
        };
        let interval = v.effective_interval(
            spec.min_block_size(Direction::Write),
            spec.block_size[Direction::Write.index()],
            spec.min_block_size(Direction::Read),
        );
        let writes = spec.writes() && !v.only;
        // A time-based job never reaches its read-back (as fio's), so it keeps a log only
        // for a backlog, which is emptied as it is read.
        let keep_log = writes && ((v.after_writes && !spec.time_based) || v.backlog > 0);
        // fio keeps a random-mapped job's writes in a list, in write order (the map writes
        // each block once a pass); any other's by offset, a newer write dropping an older
        // one it overlaps, which only matters where a block can be written twice.
        let once = writes_each_block_once(spec);
        let log = WriteLog::new(
            !random_mapped(spec) && !once,
            if keep_log { expected_writes(spec) } else { 0 },
        );
        // The seed and number of a block's write are known where the log holds each block
        // once (the newest write of it): always by offset; in write order, only where no
        // block can be written twice.
        let once_each = writes && (log.holds_newest() || once);
        Some(Verifier {
            format: Format::new(v, interval),
            check_all_reads: !spec.writes() || v.only,
            only: v.only,
            log,
            keep_log,
            backlog: v.backlog as usize,
            batch: match v.backlog_batch {
                0 => v.backlog as usize,
                b => b as usize,
            },
            batch_left: 0,
            final_pass: false,
            from_log: vec![false; depth],
            stamps: vec![(0, 0); depth],
            expect: vec![Expect::default(); depth],
            check_seed: once_each && v.header_seed,
            check_numberio: once_each && v.write_sequence,
            writes: 0,
            thread: thread as u16,
            seeds: Rng::new(seed ^ 0x5E1F_1E55),
            saved,
            reads_issued: 0,
            reads_done: 0,
            ring: vec![0; files * ring_depth],
            ring_next: vec![0; if ring_depth > 0 { files } else { 0 }],
            ring_depth,
            writes_done: 0,
        })
    }

    /// Whether a saved state bounds what this job verifies.
    #[inline(always)]
    pub fn bounded(&self) -> bool {
        self.saved.is_some()
    }

    /// Whether the verifying read `io` is past what the saved state says was written (by
    /// the rule of the fio that wrote the state); counts it as issued when it is not.
    #[cold]
    pub fn saved_state_stops(&mut self, io: &IoUnit) -> bool {
        let Some(s) = &self.saved else {
            return false;
        };
        if s.stops(
            self.reads_done,
            self.reads_issued,
            io.file as u64,
            io.offset,
        ) {
            return true;
        }
        self.reads_issued += 1;
        false
    }

    /// Reads nothing more back: the saved state says the rest was not written.
    #[cold]
    pub fn stop_reading_back(&mut self, slot: u32) {
        self.from_log[slot as usize] = false;
        self.log.clear();
        self.keep_log = false;
    }

    /// What this job wrote, as fio's `verify_state_save` keeps it: `None` unless the job
    /// writes and saves its state. `index` is the copy's number over the run, from 0.
    pub fn saved_state(&self, spec: &JobSpec, index: u32) -> Option<SavedState> {
        if self.ring_depth == 0 || !spec.writes() {
            return None;
        }
        let depth = self.ring_depth;
        let per_file = self.writes_done.min(depth as u64) as usize;
        let mut completions = Vec::new();
        for (file, &next) in self.ring_next.iter().enumerate() {
            // Newest first, as fio walks its ring back from the last one written.
            let mut j = next as usize;
            for _ in 0..per_file {
                j = if j == 0 { depth - 1 } else { j - 1 };
                completions.push((file as u64, self.ring[file * depth + j]));
            }
        }
        Some(SavedState {
            version: VERSION_3,
            depth: depth as u32,
            files: self.ring_next.len() as u32,
            numberio: self.writes,
            index: index as u64,
            name: spec.name.clone(),
            completions,
            inflight: Vec::new(),
        })
    }

    /// Whether a read-back is due before the next new I/O: a whole backlog has completed,
    /// or the writes are done and some are left.
    #[inline]
    pub fn due(&self) -> bool {
        let waiting = self.log.waiting();
        waiting > 0
            && (self.final_pass
                || self.batch_left > 0
                || (self.backlog > 0 && waiting >= self.backlog))
    }

    /// The final pass has read everything back.
    pub fn all_read_back(&self) -> bool {
        self.log.waiting() == 0
    }

    /// Starts the final pass if the job asks for one (a write job with `do_verify`); true
    /// when there is something to read.
    pub fn begin_final_pass(&mut self) -> bool {
        self.final_pass = self.keep_log;
        self.final_pass && !self.all_read_back()
    }

    /// The next read-back into `slot`, or `None` where a loaded state says the writer
    /// stopped before it (then nothing more is read back).
    #[inline]
    pub fn read_back(&mut self, slot: u32, pool: &BufferPool) -> Option<IoUnit> {
        let io = self.next_read_back(slot, pool);
        if self.saved.is_some() && self.saved_state_stops(&io) {
            self.stop_reading_back(slot);
            return None;
        }
        Some(io)
    }

    /// The next read-back, into `slot`.
    fn next_read_back(&mut self, slot: u32, pool: &BufferPool) -> IoUnit {
        let p = self
            .log
            .pop()
            .expect("a read-back is due only while one waits");
        // A full backlog starts a batch of `verify_backlog_batch` read-backs.
        if !self.final_pass {
            if self.batch_left == 0 {
                self.batch_left = self.batch;
            }
            self.batch_left -= 1;
        }
        self.from_log[slot as usize] = true;
        self.expect[slot as usize] = Expect {
            seed: self.check_seed.then_some(p.seed),
            numberio: self.check_numberio.then_some(p.numberio),
        };
        IoUnit {
            slot,
            file: p.file,
            dir: Direction::Read,
            offset: p.offset,
            len: p.len,
            buf: pool.slot_ptr(slot as usize),
            ioprio: 0,
            prio_index: 0,
        }
    }

    /// Fills a write's buffer with fio's headers and data.
    pub fn stamp(&mut self, io: &IoUnit, now_ns: u64) {
        let stamp = Stamp {
            seed: self.seeds.next_u64(),
            time_sec: (now_ns / 1_000_000_000) as u32,
            time_nsec: (now_ns % 1_000_000_000) as u32,
            thread: self.thread,
            numberio: self.writes as u16,
        };
        self.writes += 1;
        if let Some(s) = self.stamps.get_mut(io.slot as usize) {
            *s = (stamp.seed, stamp.numberio);
        }
        // SAFETY: the slot's buffer holds at least the largest block size and is not in
        // flight (its slot was free).
        let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len as usize) };
        self.format.stamp(buf, io.offset, &stamp);
    }

    /// A completed I/O: a write is remembered for reading back, a read checked if it is one
    /// that must be. Runs after the completion was timed.
    #[inline]
    pub fn completed(&mut self, io: &IoUnit) -> Result<(), Mismatch> {
        match io.dir {
            Direction::Write => {
                if self.keep_log {
                    let (seed, numberio) = self
                        .stamps
                        .get(io.slot as usize)
                        .copied()
                        .unwrap_or_default();
                    self.log.push(Piece {
                        file: io.file,
                        offset: io.offset,
                        len: io.len,
                        seed,
                        numberio,
                    });
                }
                if self.ring_depth > 0 {
                    self.note_write(io);
                }
                Ok(())
            }
            Direction::Read => {
                self.reads_done += 1;
                let slot = io.slot as usize;
                let logged = std::mem::take(&mut self.from_log[slot]);
                if !(self.check_all_reads || logged) {
                    return Ok(());
                }
                let expect = match logged {
                    true => std::mem::take(&mut self.expect[slot]),
                    false => Expect::default(),
                };
                // SAFETY: the read has completed; its slot is not reused until freed.
                let buf = unsafe { std::slice::from_raw_parts_mut(io.buf, io.len as usize) };
                self.format.check(buf, io.offset, &expect)
            }
            _ => Ok(()),
        }
    }

    /// A completed write's offset into its file's ring (fio's `file_log_write_comp`).
    #[inline]
    fn note_write(&mut self, io: &IoUnit) {
        let file = io.file as usize;
        if let Some(next) = self.ring_next.get_mut(file) {
            self.ring[file * self.ring_depth + *next as usize] = io.offset;
            *next = (*next + 1) % self.ring_depth as u32;
        }
        self.writes_done += 1;
    }

    /// Why this job's blocks cannot carry its verify headers, if they cannot.
    pub fn unfit(spec: &JobSpec) -> Option<String> {
        let v = spec.verify.as_ref()?;
        if let iolab_job::VerifyKind::Checksum(c) = v.kind {
            let checks_others = !spec.writes() || v.only;
            if checks_others && !iolab_verify::fio_compatible(c) {
                return Some(format!(
                    "verify={} can only check blocks this job wrote: fio's {0} is not the \
                     standard algorithm iolab uses, so data fio wrote would read as corrupt; \
                     write and verify in one job, or use md5, crc32c, crc64, sha1 or xxhash",
                    c.name()
                ));
            }
        }
        let smallest = spec.min_block_size(Direction::Write);
        let interval = v.effective_interval(
            smallest,
            spec.block_size[Direction::Write.index()],
            spec.min_block_size(Direction::Read),
        );
        Format::new(v, interval).unfit(smallest)
    }
}

/// Whether fio keeps the job's writes in a list (`file_randommap()`: a random job with its
/// random map, fio's default generator): else by offset.
fn random_mapped(spec: &JobSpec) -> bool {
    spec.pattern == iolab_job::Pattern::Random
        && spec.random_map
        && spec.generator != iolab_job::Generator::FullPeriod
}

/// Whether a job writes no block twice: one pass (not time-based, one loop, no wrap past its
/// region), one block size, each offset drawn once (sequential without holes, or random
/// under the random map with a fresh draw every I/O), and no trims. A sequential job with
/// holes (`rw=write:3M`) covers less than its size in a pass, so it wraps and writes again.
fn writes_each_block_once(spec: &JobSpec) -> bool {
    let w = Direction::Write;
    let one_size = spec.min_block_size(w) == spec.block_size[w.index()];
    let drawn_once = match spec.pattern {
        iolab_job::Pattern::Sequential => spec.seq_add == 0,
        iolab_job::Pattern::Random => spec.random_map && spec.random_every == 1,
    };
    !spec.time_based
        && spec.loops <= 1
        && spec.io_size.is_none()
        && one_size
        && drawn_once
        && spec.trim == iolab_job::TrimMix::None
}

/// Room for every write of a size-based job, so the log does not grow while it runs (a
/// time-based one grows it, amortised).
fn expected_writes(spec: &JobSpec) -> usize {
    match spec.size {
        Some(iolab_job::SizeSpec::Bytes(b)) if !spec.time_based => {
            let per = spec.min_block_size(Direction::Write).max(1) as u64;
            ((b / per) * spec.loops as u64).min(1 << 24) as usize
        }
        _ => 1 << 16,
    }
}
