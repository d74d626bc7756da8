//! What to issue next: which file, which direction, how long, at which offset, and what
//! a write carries. One call per I/O, inlined into the loop; the offset generators and
//! block sizers draw from their own random streams.

use std::os::fd::RawFd;

use iolab_engine::{BufferPool, Direction, IoUnit};
use iolab_job::{
    BlockSizer, FioMix, FioRand, Generator, JobSpec, OffsetGen, PrioTable, Region, Rng, TrimMix,
};

use super::dedupe::DedupeGen;
use super::file_pick::FilePicker;
use super::lean_loop::LeanIssue;
use crate::PreparedJob;

pub(super) struct Issuer<'a> {
    job: &'a PreparedJob,
    fds: &'a [RawFd],
    /// One offset generator per file.
    offsets: Vec<OffsetGen>,
    /// Which file the next I/O goes to (`file_service_type`).
    files: FilePicker,
    sizers: [BlockSizer; Direction::COUNT],
    /// Each direction's block-size stream, fio's (`bsrange_state`: see [`size_streams`]).
    size_rand: [FioRand; Direction::COUNT],
    read_percent: u32,
    /// A read/write mix's directions, drawn as fio draws them (see [`FioMix`]).
    mix: Option<FioMix>,
    trim: TrimMix,
    /// `trimwrite`: the place of the trim whose write comes next (file, offset, length).
    trimmed: Option<(usize, u64, u64)>,
    /// Bytes to issue in the measured phase (`u64::MAX` when time-based).
    byte_limit: u64,
    /// Whether the last I/O shrinks to end exactly at the byte limit. fio's sizes only ever
    /// fit the file's end, which a sequential job or a random map reaches exactly; a random
    /// job without the map (`norandommap`), or any job whose limit is an `io_size` short of
    /// or past its region's end, overshoots its limit by part of its last I/O.
    exact_end: bool,
    pub issued: u64,
    /// I/Os to issue (`number_ios` × loops; `u64::MAX`: no count) and issued.
    io_limit: u64,
    ios: u64,
    /// Per-I/O priorities of reads and writes (fio's `cmdprio*`), drawn from their own
    /// stream (fio's `prio_state`); `prios_on`: either direction has any.
    prios: [PrioTable; 2],
    prios_on: bool,
    prio_rng: Rng,
    /// Drop the page cache again at each new pass over a file (fio's `loop_cache_invalidate`:
    /// buffered, invalidating jobs that go over their region more than once).
    invalidate_per_pass: bool,
    pub writes: WriteContent,
    /// Every issued I/O, for `write_iolog`.
    pub trace: Option<Box<super::trace::Tracer>>,
    /// A recorded stream to issue instead (`read_iolog`), and how far it has got.
    pub replay: Option<(iolab_job::Replay, usize)>,
    /// The copy's view of its target's zones (`zonemode=zbd`); boxed, off the hot lines.
    pub zbd: Option<Box<crate::zbd::ZbdCursor>>,
    /// Sizes vary, or some file's region is smaller than the largest block: each size is
    /// fitted to where its I/O lands (a random map over mixed sizes does that on every job).
    fitted: bool,
    /// Any of the four above is on: one test per I/O keeps them off the common path.
    pub special: bool,
    /// The last I/O drawn began a new pass over its file.
    new_pass: bool,
    /// `unlink_each_loop` over several loops: the bytes of one loop (0: off), and the
    /// issued bytes at which the next loop begins.
    loop_bytes: u64,
    next_loop_at: u64,
}

/// What each write carries beyond the pool's contents: fresh random data or fio's stamps.
pub(super) struct WriteContent {
    refill: bool,
    scramble: bool,
    compress_percent: u8,
    compress_chunk: usize,
    /// Boxed: 514 bytes read only when refilling, kept off the issuer's hot lines.
    pattern: Option<Box<iolab_engine::buffer::FillPattern>>,
    fill_state: u64,
    /// Which earlier data a repeating write carries (`dedupe_percentage`), if any.
    pub dedupe: Option<DedupeGen>,
}

impl WriteContent {
    fn new(spec: &JobSpec, seed: u64) -> WriteContent {
        // Verified writes are filled by the verifier instead.
        let own = spec.verify.is_none();
        WriteContent {
            refill: own && spec.buffers.refill && !spec.buffers.zero,
            scramble: own && spec.buffers.scrambles(),
            compress_percent: spec.buffers.compress_percent,
            compress_chunk: spec.buffers.compress_chunk as usize,
            pattern: spec.buffers.pattern.map(Box::new),
            fill_state: seed ^ 0xF111,
            dedupe: None,
        }
    }

    /// Whether writes carry the pool's contents as they are.
    fn plain(&self) -> bool {
        !self.refill && !self.scramble && self.dedupe.is_none()
    }

    /// Fresh random data (`refill_buffers`) or fio's stamps (`scramble_buffers`, with the
    /// time `now_ns`) in a write buffer.
    #[inline]
    fn prepare(&mut self, buf: *mut u8, len: usize, offset: u64, now_ns: impl Fn() -> u64) {
        if !(self.refill || self.scramble) {
            return;
        }
        // SAFETY: the slot's buffer holds at least the largest block size and is not in
        // flight (its slot was free).
        let b = unsafe { std::slice::from_raw_parts_mut(buf, len) };
        if self.refill {
            let state = match self.dedupe.as_mut() {
                Some(d) => &mut d.next_state(),
                None => &mut self.fill_state,
            };
            iolab_engine::buffer::fill_buffer_with(
                b,
                state,
                false,
                self.compress_percent,
                self.compress_chunk,
                self.pattern.as_deref(),
            );
        } else {
            let ns = now_ns();
            iolab_engine::buffer::scramble(b, offset, ns / 1_000_000_000, ns % 1_000_000_000);
        }
    }
}

/// The bytes a size-based job moves in `region` per loop: the region's length, except for
/// fio's quirk with holes (`rw=write:112k`) in a region that starts past the file's start:
/// fio's `get_next_seq_offset()` compares the offset within the region against the file's
/// end, never wraps, and so ends the job after one pass (the I/Os that fit, a block and a
/// hole apart), where a region at offset 0 wraps until `size` bytes are moved.
fn one_pass_bytes(spec: &JobSpec, region: Region) -> u64 {
    let bs = spec.block_size.iter().copied().max().unwrap_or(0) as u64;
    let fixed = spec
        .block_dist
        .iter()
        .all(|d| *d == iolab_job::BlockDist::Fixed);
    let holed = spec.pattern == iolab_job::Pattern::Sequential && spec.seq_add > 0;
    if !(holed && fixed && region.start > 0 && bs > 0 && region.len >= bs) {
        return region.len;
    }
    let stride = bs + spec.seq_add as u64;
    ((region.len - bs) / stride + 1) * bs
}

/// The bytes a size-based job with `io_size` moves when its region takes one pass per loop
/// (see [`one_pass_bytes`]: `pass` bytes of `region` bytes; `io_size` = `want`). fio's
/// `keep_running()` runs `loops` passes, then, as long as `io_size` is not reached (counting
/// a write job's verify reads too) by at least a block, one more pass each; a pass after
/// the first only happens where fio resets its done files (`loops` > 1 or `do_verify`), and
/// the writes never pass `io_size` × `loops` (`io_issue_bytes_exceeded()`).
fn one_pass_io_size_bytes(spec: &JobSpec, pass: u64, want: u64) -> u64 {
    let loops = spec.loops.max(1) as u64;
    let do_verify = spec.do_verify;
    let reads_back = !spec.reads()
        && spec
            .verify
            .as_ref()
            .is_some_and(|v| !v.only && (v.after_writes || v.backlog > 0));
    let counted = pass * if reads_back { 2 } else { 1 };
    let bs = spec.block_size.iter().copied().max().unwrap_or(0) as u64;
    let mut passes = loops;
    if (loops > 1 || do_verify) && counted > 0 {
        while passes * counted < want && want - passes * counted >= bs.max(1) {
            passes += 1;
        }
    }
    (passes * pass).min(want.saturating_mul(loops))
}

/// fio's block-size streams of job copy `thread` (`td_fill_rand_seeds()`): reads, writes and
/// trims each their own, except that a verifying job's writes draw as its reads (so the
/// verify phase can follow them) and trimwrite's writes as its trims.
fn size_streams(spec: &JobSpec, thread: u32) -> [FioRand; Direction::COUNT] {
    let wide = spec.generator == Generator::Tausworthe64;
    let write = match spec.verify.is_some() {
        true => 0,
        false => 1,
    };
    let trim = match spec.trim == TrimMix::ThenWrite {
        true => write,
        false => 2,
    };
    [0, write, trim].map(|k| FioRand::new(spec.seed_rule.stream_seed(thread, k), wide))
}

/// A block size of `sizer` no larger than `room`: drawn again until one fits, as fio's
/// `get_next_buflen()` does, or else the largest that fits.
fn refit(sizer: &BlockSizer, rng: &mut FioRand, room: u64) -> Option<u64> {
    (0..64)
        .map(|_| sizer.next(rng))
        .find(|&l| l <= room)
        .or_else(|| sizer.largest_fitting(room))
}

/// Where a job copy's issuing stops, in bytes, and what that limit is.
struct Limits {
    /// Bytes to issue in the measured phase (`u64::MAX` when time-based).
    bytes: u64,
    /// The limit is the end of the copy's region(s), where fio's blocks are fitted; else the
    /// last I/O may run past it (see `Issuer::exact_end`).
    region_ends: bool,
    /// `unlink_each_loop`: one loop's bytes (0: off).
    loop_bytes: u64,
    /// Loops, trimwrite's pairs counted as two.
    loops: u64,
}

impl Limits {
    fn of(job: &PreparedJob, copy: u32) -> Limits {
        let spec = &job.spec;
        // fio's trimwrite trims each byte and then writes it: twice the bytes and I/Os.
        let pairs = if spec.trim == TrimMix::ThenWrite {
            2
        } else {
            1
        };
        let loops = spec.loops as u64 * pairs;
        let regions = || {
            job.files()
                .map(|(f, r)| r.of_copy(spec, copy, f.size_bytes))
        };
        let pass: u64 = regions().map(|r| one_pass_bytes(spec, r)).sum();
        let one_pass = pass < regions().map(|r| r.len).sum();
        let bytes = match (spec.time_based, spec.io_size) {
            (true, _) => u64::MAX,
            (false, Some(io)) if one_pass && pairs == 1 => {
                one_pass_io_size_bytes(spec, pass, io.resolve(job.facts.size_bytes))
            }
            (false, Some(io)) => io.resolve(job.facts.size_bytes).saturating_mul(loops),
            (false, None) => pass.saturating_mul(loops),
        };
        // fio stops issuing once the issued bytes reach the job's limit and fits a block only
        // to where the region (or a random map's hole) ends (`io_u_fits()`,
        // `mark_random_map()`), never to the limit: where the limit is `io_size` and not the
        // region's own end, the last I/O runs past it (a 16 MiB `size` over fifty 4 MiB files
        // in 64k-1M blocks moves up to 1 MiB more).
        let region_ends = bytes == pass.saturating_mul(loops) || one_pass && pairs == 1;
        // fio empties the files between loops (`unlink_each_loop`): the worker is told when
        // one loop's bytes are all issued (a loop of trimwrite's pairs included).
        let loop_bytes = match spec.files.unlink_each_loop && spec.loops > 1 && !spec.time_based {
            true => bytes / spec.loops as u64,
            false => 0,
        };
        Limits {
            bytes,
            region_ends,
            loop_bytes,
            loops,
        }
    }
}

/// Each file's offset generator for job copy `copy` (fio's job `thread`), every file
/// drawing from the first's stream, as fio draws one for all of a job's files.
fn offset_gens(job: &PreparedJob, copy: u32, thread: u32, seed: u64) -> Vec<OffsetGen> {
    let spec = &job.spec;
    let mut offsets: Vec<OffsetGen> = job
        .files()
        .enumerate()
        .map(|(i, (facts, region))| {
            let region = region.of_copy(spec, copy, facts.size_bytes);
            let seed = seed.wrapping_add(i as u64 * 0x5EED);
            OffsetGen::strided(spec, region, facts.size_bytes, seed).for_job(spec, thread)
        })
        .collect();
    if let Some((first, rest)) = offsets.split_first_mut() {
        rest.iter_mut().for_each(|o| o.share_stream(first));
    }
    offsets
}

impl<'a> Issuer<'a> {
    /// The issuer of job copy `copy` (its region moved by `offset_increment`).
    /// `thread`: fio's number of this copy over the run, which seeds fio's offset stream.
    pub fn new(
        job: &'a PreparedJob,
        copy: u32,
        thread: u32,
        fds: &'a [RawFd],
        seed: u64,
    ) -> Issuer<'a> {
        let spec = &job.spec;
        let Limits {
            bytes: byte_limit,
            region_ends,
            loop_bytes,
            loops,
        } = Limits::of(job, copy);
        let prios: [PrioTable; 2] =
            std::array::from_fn(|d| PrioTable::new(&spec.cmdprio, d, &spec.priority));
        let prios_on = prios.iter().any(PrioTable::is_on);
        // fio fits every varying size to where it lands (it draws again until the block
        // fits the file), not only where a file is smaller than the largest block.
        let fitted = spec.directions().any(|d| spec.size_varies(d))
            || job.files().any(|(_, r)| r.smaller_than_blocks(spec));
        Issuer {
            job,
            fds,
            offsets: offset_gens(job, copy, thread, seed),
            files: FilePicker::new(
                spec.file_service,
                job.files().map(|(_, r)| r.len).collect(),
                spec.file_window,
                seed,
            ),
            sizers: std::array::from_fn(|d| {
                BlockSizer::new(&spec.block_dist[d], spec.block_size[d])
            }),
            size_rand: size_streams(spec, thread),
            prios,
            prios_on,
            prio_rng: Rng::new(seed ^ 0x9210),
            read_percent: spec.read_percent,
            mix: (spec.trim == TrimMix::None && (1..100).contains(&spec.read_percent))
                .then(|| FioMix::new(spec.read_percent, spec.seed_rule, thread)),
            trim: spec.trim,
            trimmed: None,
            byte_limit,
            exact_end: (spec.pattern != iolab_job::Pattern::Random || spec.random_map)
                && region_ends,
            issued: 0,
            // fio's loop ignores the count of a time-based job, as it ignores the bytes.
            io_limit: match spec.number_ios {
                Some(n) if !spec.time_based => n.saturating_mul(loops),
                _ => u64::MAX,
            },
            ios: 0,
            invalidate_per_pass: spec.invalidate
                && !spec.direct
                && (spec.time_based || spec.loops > 1),
            writes: WriteContent::new(spec, seed),
            trace: None,
            replay: spec.replay.clone().map(|r| (r, 0)),
            zbd: job.zbd.as_ref().zip(fds.first()).map(|(m, &fd)| {
                let region = job.region.of_copy(spec, copy, job.facts.size_bytes);
                Box::new(crate::zbd::ZbdCursor::new(m.clone(), fd, spec, region))
            }),
            fitted,
            special: spec.replay.is_some() || job.zbd.is_some() || fitted,
            new_pass: false,
            loop_bytes,
            next_loop_at: loop_bytes,
        }
    }

    /// What the lean loop needs to issue this job's I/Os from here on, when the job is
    /// simple enough for it: one file, one direction (no trims), one block size, plain
    /// writes, no per-I/O priorities, no cache drop per pass, and offsets its generator can
    /// hand out lean. The I/Os are the ones [`Self::next_io`] would give, in the same order.
    pub fn lean(&self) -> Option<LeanIssue> {
        if self.replay.is_some() || self.zbd.is_some() {
            return None;
        }
        let dir = match (self.trim, self.read_percent) {
            (TrimMix::None, 100) => Direction::Read,
            (TrimMix::None, 0) => Direction::Write,
            _ => return None,
        };
        let BlockSizer::Fixed(bs) = self.sizers[dir.index()] else {
            return None;
        };
        let simple = self.offsets.len() == 1 && !self.prios_on && !self.invalidate_per_pass;
        if !simple || (dir == Direction::Write && !self.writes.plain()) {
            return None;
        }
        Some(LeanIssue {
            offsets: self.offsets[0].lean(dir, bs)?,
            dir,
            bs: u32::try_from(bs).ok()?,
            issued: self.issued,
            ios: self.ios,
            byte_limit: self.byte_limit,
            io_limit: self.io_limit,
        })
    }

    /// Whether the I/O just issued ended a loop of an `unlink_each_loop` job with more
    /// loops to go: its files are to be emptied once what is in flight has finished.
    #[inline(always)]
    pub fn loop_ended(&mut self) -> bool {
        if self.loop_bytes == 0 || self.issued < self.next_loop_at || self.bytes_done() {
            return false;
        }
        self.next_loop_at = self.next_loop_at.saturating_add(self.loop_bytes);
        true
    }

    pub fn bytes_done(&self) -> bool {
        self.issued >= self.byte_limit || self.ios >= self.io_limit
    }

    /// The direction of the next I/O (drawn first, so the rate limit can wait for it).
    #[inline(always)]
    pub fn next_direction(&mut self) -> Direction {
        if self.special {
            if let Some((r, at)) = &self.replay {
                return r.ios.get(*at).map_or(Direction::Read, |io| io.dir);
            }
        }
        match (self.trim, self.trimmed) {
            (TrimMix::None, _) => match (&mut self.mix, self.read_percent) {
                (Some(mix), _) => mix.next_direction(),
                (None, 0) => Direction::Write,
                (None, _) => Direction::Read,
            },
            (TrimMix::Only, _) | (TrimMix::ThenWrite, None) => Direction::Trim,
            (TrimMix::ThenWrite, Some(_)) => Direction::Write,
        }
    }

    /// The next I/O in direction `dir`, into `slot`'s buffer; `now_ns` stamps scrambled
    /// writes.
    #[inline(always)]
    pub fn next_io(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        if self.special {
            return self.next_io_special(dir, slot, pool, now_ns);
        }
        self.next_io_plain(dir, slot, pool, now_ns)
    }

    /// [`Self::next_io`] with a replay or a trace on.
    #[cold]
    fn next_io_special(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        let io = match (self.replay.is_some(), self.zbd.is_some()) {
            (true, _) => self.replayed(slot, pool, &now_ns),
            (false, true) => self.zoned_io(dir, slot, pool, &now_ns),
            (false, false) if self.fitted => self.fitted_io(dir, slot, pool, &now_ns),
            (false, false) => self.next_io_plain(dir, slot, pool, &now_ns),
        }?;
        if let Some(t) = self.trace.as_mut() {
            t.issued(now_ns(), &io);
        }
        Some(io)
    }

    #[inline(always)]
    fn next_io_plain(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        self.next_io_with::<false>(dir, slot, pool, now_ns)
    }

    /// The next I/O; `FIT`: its size is fitted to where it lands (see [`Self::fitted_io`]).
    #[inline(always)]
    fn next_io_with<const FIT: bool>(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        if let (Direction::Write, Some((file, offset, len))) = (dir, self.trimmed.take()) {
            return Some(self.write_after_trim(slot, pool, file, offset, len, now_ns));
        }
        let sizer = &self.sizers[dir.index()];
        let mut len = sizer.next(&mut self.size_rand[dir.index()]);
        let room = self.byte_limit - self.issued;
        if len > room && self.exact_end {
            // The last I/Os of a size-based job shrink to end exactly at its size, as fio's;
            // where no size the job has fits, it ends, as fio's does at a block that would
            // reach past the region (`fill_io_u()`: a 10000-byte file in 4 KiB blocks is two
            // I/Os, not three).
            // Where sizes are fitted, one that fits is drawn instead (see `fitted_io`).
            let fits = match FIT {
                false => sizer.largest_fitting(room),
                true => refit(sizer, &mut self.size_rand[dir.index()], room),
            };
            match fits {
                Some(fits) => len = fits,
                None => return self.file_done(),
            }
        }
        let file = self.files.next(len);
        let (sizer, rng) = (&self.sizers[dir.index()], &mut self.size_rand[dir.index()]);
        let refit = |room| refit(sizer, rng, room);
        let placed = match FIT {
            false => self.offsets[file].place_with(dir, len, refit),
            true => self.offsets[file].place_fitted(dir, len, refit),
        };
        let Some((offset, len)) = placed else {
            return self.file_done();
        };
        self.new_pass = self.offsets[file].take_wrapped();
        if self.new_pass && self.invalidate_per_pass {
            self.invalidate_again(file);
        }
        Some(self.unit_at(slot, pool, file, dir, offset, len, now_ns))
    }

    /// The I/O of `len` bytes at `offset` of file `file`, counted as issued, its buffer
    /// filled for a write.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn unit_at(
        &mut self,
        slot: u32,
        pool: &BufferPool,
        file: usize,
        dir: Direction,
        offset: u64,
        len: u64,
        now_ns: impl Fn() -> u64,
    ) -> IoUnit {
        self.issued += len;
        self.ios += 1;
        if let Some(mix) = &mut self.mix {
            mix.issued(dir);
        }
        if dir == Direction::Trim && self.trim == TrimMix::ThenWrite {
            self.trimmed = Some((file, offset, len));
        }
        let buf = pool.slot_ptr(slot as usize);
        if dir == Direction::Write {
            self.writes.prepare(buf, len as usize, offset, &now_ns);
        }
        let (ioprio, prio_index) = self.prio(dir, len);
        IoUnit {
            slot,
            file: file as u32,
            dir,
            offset,
            len: len as u32,
            buf,
            ioprio,
            prio_index,
        }
    }

    /// The next I/O where the target's zones allow it (`zonemode=zbd`): a write at its
    /// zone's write pointer (the zone held until [`Self::zoned_done`]), a read below it.
    #[cold]
    fn zoned_io(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        let dir = self.zbd.as_ref()?.direction(dir);
        if self.job.spec.pattern == iolab_job::Pattern::Sequential && !self.zoned_seq_go_on(dir) {
            return self.file_done();
        }
        // A write that had to wait for this copy's writes in flight is placed again, as fio
        // waits for them within `zbd_adjust_block()` and goes on with the same offset.
        let mut io = match self.zbd.as_mut()?.retry.take() {
            Some((dir, file, offset, len)) => {
                // Its new pass, if it began one, is already in the cursor's resume.
                self.new_pass = false;
                self.unit_at(slot, pool, file as usize, dir, offset, len, &now_ns)
            }
            None => self.next_io_plain(dir, slot, pool, &now_ns)?,
        };
        let drawn = io.len as u64;
        if self.new_pass && io.dir == Direction::Write && !self.job.spec.time_based {
            self.zbd.as_mut()?.new_pass();
        }
        let placed = self.zbd.as_mut()?.adjust(io.dir, io.offset, drawn);
        self.issued -= drawn;
        match placed {
            crate::zbd::Adjusted::At { offset, len } if len > 0 => {
                self.issued += len;
                io.offset = offset;
                io.len = len as u32;
                self.offsets[io.file as usize].follow(io.dir, offset + len);
                Some(io)
            }
            crate::zbd::Adjusted::Busy => {
                // Not issued: the loop reaps this copy's writes in flight, then places it.
                self.ios -= 1;
                self.zbd.as_mut()?.retry = Some((io.dir, io.file, io.offset, drawn));
                None
            }
            _ => {
                self.ios -= 1;
                self.file_done()
            }
        }
    }

    /// A sequential job on zones: a write past its zone's capacity goes on at the next
    /// zone (fio's `setup_zbd_zone_mode()`), and a size-based job ends at its region's end
    /// rather than wrapping (fio's `get_next_offset()`: the zones' skips moved it there
    /// before its bytes were done). False: the job is done.
    fn zoned_seq_go_on(&mut self, dir: Direction) -> bool {
        let gen = &mut self.offsets[0];
        let Some(pos) = gen.seq_position(dir) else {
            return self.job.spec.time_based;
        };
        if dir != Direction::Write {
            return true;
        }
        if let Some(next) = self.zbd.as_ref().and_then(|z| z.capacity_skip(pos)) {
            gen.follow(dir, next);
            return gen.seq_position(dir).is_some() || self.job.spec.time_based;
        }
        true
    }

    /// The next I/O where a file is smaller than the largest block: a size that does not fit
    /// from its offset is drawn again until one does (fio's `get_next_buflen()` and
    /// `io_u_fits()`), or else is the largest that fits.
    #[cold]
    fn fitted_io(
        &mut self,
        dir: Direction,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        self.next_io_with::<true>(dir, slot, pool, now_ns)
    }

    /// The I/O from [`Self::zoned_io`] is over (`ok`: all of it done): its zone moves on
    /// and is let go.
    #[cold]
    pub fn zoned_done(&mut self, io: &IoUnit, ok: bool) {
        if let Some(z) = self.zbd.as_mut() {
            z.done(io.dir, io.offset, io.len as u64, ok);
        }
    }

    /// The recorded stream's next I/O (`read_iolog`), as logged.
    #[cold]
    fn replayed(
        &mut self,
        slot: u32,
        pool: &BufferPool,
        now_ns: impl Fn() -> u64,
    ) -> Option<IoUnit> {
        let (r, at) = self.replay.as_mut()?;
        let Some(rec) = r.ios.get(*at).copied() else {
            return self.file_done();
        };
        *at += 1;
        let len = rec.len as u64;
        self.issued += len;
        self.ios += 1;
        let buf = pool.slot_ptr(slot as usize);
        if rec.dir == Direction::Write {
            self.writes
                .prepare(buf, rec.len as usize, rec.offset, &now_ns);
        }
        let (ioprio, prio_index) = self.prio(rec.dir, len);
        Some(IoUnit {
            slot,
            file: rec.file,
            dir: rec.dir,
            offset: rec.offset,
            len: rec.len,
            buf,
            ioprio,
            prio_index,
        })
    }

    /// When the stream's next I/O is due, in ns after the replay began; None when it is
    /// not paced (`replay_no_stall`) or there is none.
    #[cold]
    pub fn replay_due_ns(&self) -> Option<u64> {
        let (r, at) = self.replay.as_ref()?;
        (!r.no_stall && *at < r.ios.len()).then(|| r.due_ns(*at))
    }

    /// `trimwrite`'s write: the block just trimmed, as fio's (same offset and length).
    fn write_after_trim(
        &mut self,
        slot: u32,
        pool: &BufferPool,
        file: usize,
        offset: u64,
        len: u64,
        now_ns: impl Fn() -> u64,
    ) -> IoUnit {
        self.issued += len;
        self.ios += 1;
        let buf = pool.slot_ptr(slot as usize);
        self.writes.prepare(buf, len as usize, offset, now_ns);
        let (ioprio, prio_index) = self.prio(Direction::Write, len);
        IoUnit {
            slot,
            file: file as u32,
            dir: Direction::Write,
            offset,
            len: len as u32,
            buf,
            ioprio,
            prio_index,
        }
    }

    /// fio's file is done (the random map sent the I/O past its end): with one file, so is
    /// the job. No flag of its own: the limits are checked on every I/O's path, this is
    /// not, and out of line it leaves that path as it was.
    #[cold]
    #[inline(never)]
    fn file_done(&mut self) -> Option<IoUnit> {
        self.io_limit = self.ios;
        None
    }

    /// The priority of an I/O of `len` bytes in direction `dir` (0: the thread's) and its
    /// index among the job's, as fio's `fio_cmdprio_set_ioprio()`: a draw decides whether
    /// it takes one of its own.
    #[inline(always)]
    fn prio(&mut self, dir: Direction, len: u64) -> (u16, u8) {
        match self.prios_on {
            false => (0, 0),
            true => self.draw_prio(dir, len),
        }
    }

    #[inline(never)]
    fn draw_prio(&mut self, dir: Direction, len: u64) -> (u16, u8) {
        let Some(t) = self.prios.get(dir.index()).filter(|t| t.is_on()) else {
            return (0, 0);
        };
        match t.pick(len, self.prio_rng.below(100) as u32) {
            Some(i) => (t.values[i as usize], i),
            None => (0, 0),
        }
    }

    /// An I/O held back before it went (`serialize_overlap`): its bytes are not issued
    /// until [`Self::reissue`], so the job is not done while it waits.
    #[cold]
    pub fn hold(&mut self, io: &IoUnit) {
        self.issued -= io.len as u64;
        self.ios -= 1;
    }

    /// The held-back I/O goes after all.
    #[cold]
    pub fn reissue(&mut self, io: &IoUnit) {
        self.issued += io.len as u64;
        self.ios += 1;
    }

    /// Nothing more to issue: the job ends with the I/Os issued so far (a saved verify
    /// state reached).
    #[cold]
    pub fn end_here(&mut self) {
        self.io_limit = self.ios;
    }

    /// An I/O the engine could not take (busy): not issued after all. A `trimwrite` write
    /// stays due.
    pub fn unissue(&mut self, io: &IoUnit) {
        self.issued -= io.len as u64;
        self.ios -= 1;
        if let (Some(z), Direction::Write) = (self.zbd.as_mut(), io.dir) {
            z.cancel(io.offset, io.len as u64);
        }
        if io.dir == Direction::Write && self.trim == TrimMix::ThenWrite {
            self.trimmed = Some((io.file as usize, io.offset, io.len as u64));
        }
    }

    /// Forgets the ramp's bytes.
    pub fn reset(&mut self) {
        self.issued = 0;
        self.ios = 0;
    }

    /// A new pass over `file` began: drop its region's page cache, as fio does, so every
    /// pass of a buffered job reads the device. Failures were noted at setup already.
    #[cold]
    fn invalidate_again(&mut self, file: usize) {
        if let (Some(&fd), Some((facts, region))) = (self.fds.get(file), self.job.files().nth(file))
        {
            let _ = super::setup::invalidate_cache(fd, facts, region);
        }
    }
}
