//! Where each I/O goes: the region a job covers and the offset generator that walks it.
//!
//! Sequential offsets step by the block size and wrap. Random offsets are multiples of the
//! alignment (block size by default, or `blockalign`, e.g. 512 B for the AnandTech-style
//! misaligned sweeps). Independent draws (`norandommap`) are fio's own (`fio_rand`):
//! fio's generator, seeded as fio seeds the job, scaled onto the blocks as fio scales it.
//! With the random map on (fio's default) every block is done once a pass. By default
//! iolab walks a pseudo-random *permutation* of the blocks (a Feistel network with
//! cycle-walking, no memory), in an order of its own; where fio's order is asked for
//! (`JobSpec::fio_order`) the draws move to the next free block of fio's map, so the
//! offsets are fio's, in fio's order, for about 3 ns more an I/O. `random_generator=lfsr`,
//! strided zones and `rw=randread:N` holes always walk the permutation.

use iolab_engine::Direction;

use crate::{
    FioRand, FioWalk, Generator, JobError, JobSpec, OffsetStream, Pattern, RandomDistribution,
    RankGen, Rng, RunMap, SizeSpec, StridedZones,
};

mod lean;
pub use lean::LeanOffsets;

/// The byte range a job addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub len: u64,
}

/// The smallest block of the directions `spec` does.
fn smallest_block(spec: &JobSpec) -> u64 {
    spec.directions()
        .map(|d| spec.min_block_size(d))
        .min()
        .unwrap_or(spec.max_block_size()) as u64
}

impl Region {
    /// The region of `spec` on a target of `target_bytes`. A regular file may be grown to
    /// fit (`growable`); a block device may not.
    pub fn resolve(spec: &JobSpec, target_bytes: u64, growable: bool) -> Result<Region, JobError> {
        let start = copy_start(spec, 0, target_bytes);
        let len = match spec.size {
            Some(s) => s.resolve(target_bytes),
            None if start < target_bytes => target_bytes - start,
            None if target_bytes == 0 => {
                return Err(JobError::Region(format!(
                    "{} is empty: give size= to say how much of it to use",
                    spec.filename.display()
                )))
            }
            None => {
                return Err(JobError::Region(format!(
                    "offset={start} is at or past the end of {} ({target_bytes} bytes)",
                    spec.filename.display()
                )))
            }
        };
        if !growable && start.saturating_add(len) > target_bytes {
            return Err(JobError::Region(format!(
                "offset={start} + size={len} runs past the end of {} ({target_bytes} bytes)",
                spec.filename.display()
            )));
        }
        let region = Region { start, len };
        let last = region.of_copy(spec, spec.numjobs.saturating_sub(1), target_bytes);
        if !growable && last.end() > target_bytes {
            return Err(JobError::Region(format!(
                "job copy {} (offset_increment) would start at {} and run past the end of {} \
                 ({target_bytes} bytes)",
                spec.numjobs,
                last.start,
                spec.filename.display()
            )));
        }
        if let RandomDistribution::Zoned(z) = &spec.distribution {
            if z.absolute_bytes() > len {
                return Err(JobError::Region(format!(
                    "the zoned_abs zones ({} bytes) run past the job's size ({len} bytes)",
                    z.absolute_bytes()
                )));
            }
        }
        // As fio's `get_next_buflen()`: the region must take the smallest block; where it is
        // smaller than the largest, each I/O's size is drawn to fit from its offset.
        let bs = smallest_block(spec);
        if len < bs {
            return Err(JobError::Region(format!(
                "size={len} is smaller than one block (bs={bs})"
            )));
        }
        Ok(Region { start, len })
    }

    pub fn end(&self) -> u64 {
        self.start + self.len
    }

    /// Whether some block size of `spec` does not fit in the region at all: each I/O's size
    /// must then be drawn to fit from its offset.
    pub fn smaller_than_blocks(&self, spec: &JobSpec) -> bool {
        self.len < spec.max_block_size() as u64
    }

    /// The region of job copy `copy` (0-based): moved on by `offset_increment` per copy, as
    /// fio's `get_start_offset()`.
    pub fn of_copy(&self, spec: &JobSpec, copy: u32, target_bytes: u64) -> Region {
        let start = match percent_start(spec) {
            true => copy_start(spec, copy, target_bytes),
            false => {
                let step = spec.offset_increment.resolve(target_bytes);
                self.start.saturating_add(step.saturating_mul(copy as u64))
            }
        };
        Region {
            start,
            len: self.len,
        }
    }

    /// Where the last job copy's region ends: how far the target must reach.
    pub fn span_end(&self, spec: &JobSpec, target_bytes: u64) -> u64 {
        let last = spec.numjobs.saturating_sub(1);
        self.of_copy(spec, last, target_bytes).end()
    }
}

/// Whether a copy's start comes from a percentage (`offset` or `offset_increment`), which
/// fio rounds up to a block.
fn percent_start(spec: &JobSpec) -> bool {
    matches!(spec.offset, SizeSpec::Percent(_))
        || matches!(spec.offset_increment, SizeSpec::Percent(_))
}

/// Where job copy `copy` starts, as fio's `get_start_offset()`: `offset` plus `copy`
/// increments, rounded up to `offset_align` (or the smallest block) when a percentage
/// gave either.
fn copy_start(spec: &JobSpec, copy: u32, target_bytes: u64) -> u64 {
    let step = spec.offset_increment.resolve(target_bytes);
    let raw = spec
        .offset
        .resolve(target_bytes)
        .saturating_add(step.saturating_mul(copy as u64));
    if !percent_start(spec) {
        return raw;
    }
    let min_bs = spec
        .directions()
        .map(|d| spec.min_block_size(d))
        .min()
        .unwrap_or(1);
    let align = spec.offset_align.unwrap_or(min_bs as u64).max(1);
    raw.div_ceil(align).saturating_mul(align)
}

/// fio's offset stream for job `thread_number`, drawing over `blocks`.
fn fio_stream(spec: &JobSpec, thread_number: u32, blocks: u64) -> Option<OffsetStream> {
    let seed = spec.seed_rule.offset_seed(thread_number);
    let wide = FioRand::wide(spec.generator, blocks)?;
    Some(OffsetStream::new(seed, wide, spec.seed_rule.repeatable))
}

/// A permutation of `0..n` from a 4-round Feistel network over the next power of four,
/// cycle-walking values that land outside `0..n` (on average fewer than four steps).
#[derive(Debug, Clone)]
struct Permutation {
    n: u64,
    half_bits: u32,
    half_mask: u64,
    keys: [u64; 4],
}

impl Permutation {
    fn new(n: u64, rng: &mut Rng) -> Permutation {
        let bits = 64 - (n.max(2) - 1).leading_zeros();
        let half_bits = bits.div_ceil(2);
        Permutation {
            n,
            half_bits,
            half_mask: (1u64 << half_bits) - 1,
            keys: [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
            ],
        }
    }

    #[inline(always)]
    fn round(&self, x: u64, key: u64) -> u64 {
        let mut h = (x ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
        h & self.half_mask
    }

    #[inline]
    fn apply(&self, mut x: u64) -> u64 {
        loop {
            let (mut l, mut r) = (x >> self.half_bits, x & self.half_mask);
            for k in self.keys {
                let nl = r;
                r = l ^ self.round(r, k);
                l = nl;
            }
            x = (l << self.half_bits) | r;
            if x < self.n {
                return x;
            }
        }
    }
}

/// Hands out offsets for one worker. Allocates nothing after construction.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    region: Region,
    pattern: Pattern,
    align: u64,
    /// Number of aligned positions where the largest block still fits.
    units: u64,
    /// Per direction: where the last I/O ended, relative to the region.
    seq_pos: [u64; Direction::COUNT],
    /// `JobSpec::seq_add` and `random_every`, and the I/Os left before the next random one.
    seq_add: i64,
    random_every: u32,
    countdown: u32,
    /// `percentage_random` and `rw_sequencer=identical` (see [`JobSpec`]); `sequenced`:
    /// either is in use, or `random_every` is not 1.
    random_pct: [u8; Direction::COUNT],
    identical: bool,
    sequenced: bool,
    /// Per direction: where the last I/O began, relative to the region (fio's
    /// `last_start`), and the draws deciding random or sequential.
    last: [u64; Direction::COUNT],
    seq_rng: Rng,
    rng: Rng,
    /// fio's offset stream (`td->random_state`): uniform random offsets are drawn from it as
    /// fio draws them, so they are fio's; `None` for `random_generator=lfsr`.
    fio: Option<OffsetStream>,
    map: Option<(Permutation, u64)>,
    /// fio's random map where block sizes vary: I/Os start at free units and are cut short
    /// at done ones.
    runs: Option<RunMap>,
    /// fio's random map of one block size, with fio's draws (the usual random job).
    walk: Option<FioWalk>,
    /// Per direction, for the run map: fio's unit of marking (`min_bs[ddir]`), alignment
    /// (`ba[ddir]`) and number of blocks to draw from (`last_block()`). fio indexes its one
    /// map by each direction's own unit, so where reads and writes have different smallest
    /// sizes a write's block number lands on a read's bit; kept so, for fio's I/O counts.
    run_units: [(u64, u64, u64); Direction::COUNT],
    /// Where the run map sends an I/O past the end, start the map over instead of ending
    /// (fio's `get_next_rand_block()` resets a time-based job's file).
    restart_at_end: bool,
    ranks: RankGen,
    /// The last offset began a new pass over the region (fio then drops the region's page
    /// cache again, for buffered I/O).
    wrapped: bool,
    /// fio's strided zones: `region` is then the current zone.
    zones: Option<ZoneWalk>,
}

/// Where a strided job is in its walk over the zones (fio's `setup_strided_zone_mode()`).
#[derive(Debug, Clone)]
struct ZoneWalk {
    zones: StridedZones,
    /// The first zone's start, and the end of the file (past it, the walk starts over).
    first: u64,
    end: u64,
    max_bs: u64,
    /// Bytes done in the current zone.
    bytes: u64,
}

impl OffsetGen {
    pub fn new(spec: &JobSpec, region: Region, seed: u64) -> OffsetGen {
        let max_bs = spec.max_block_size() as u64;
        // With varying block sizes fio aligns random offsets to the smallest, not the largest.
        let min_bs = spec
            .directions()
            .map(|d| spec.min_block_size(d))
            .min()
            .unwrap_or(max_bs as u32) as u64;
        let align = spec.block_align.unwrap_or(min_bs).max(1);
        // Offsets leave room for the largest block, or for the smallest where the region is
        // smaller than the largest or every size varies (fio's `last_block()`, over blocks of
        // the smallest size; the size is then fitted where it lands, as fio draws it again
        // until it fits).
        let varies = spec.directions().all(|d| spec.size_varies(d));
        let room = match region.len >= max_bs && !varies {
            true => max_bs,
            false => min_bs.min(region.len),
        };
        let units = (region.len - room) / align + 1;
        let mut rng = Rng::new(seed);
        let uniform = spec.distribution == RandomDistribution::Uniform;
        let mapped = spec.pattern == Pattern::Random && spec.random_map && uniform;
        let mixed = min_bs < max_bs && spec.zones.is_none() && spec.random_every == 1;
        let sequenced = spec.random_every != 1 || spec.percentage_random.iter().any(|p| *p < 100);
        // fio's own map and draws, for fio's offsets, where its order is asked for (see
        // `JobSpec::fio_order`); else the permutation, as for `lfsr`, strided zones and
        // `rw=randread:N` holes, where iolab's order is its own.
        let fio_order = spec.fio_order || spec.zbd.is_some();
        let fio_map = fio_order
            && spec.generator != Generator::FullPeriod
            && spec.zones.is_none()
            && !sequenced;
        // fio's map is of blocks: with `blockalign` off the block size, its quirks (draws in
        // alignments, marks in blocks) are the run map's, as with mixed sizes.
        let whole_blocks = align == min_bs;
        let runs = (mapped && (mixed || (fio_map && !whole_blocks)))
            .then(|| RunMap::new(region.len / align));
        let fio = fio_stream(spec, 1, units);
        let walk = match (mapped && runs.is_none() && fio_map, &fio) {
            (true, Some(stream)) => Some(FioWalk::new(units, stream.clone(), spec.time_based)),
            _ => None,
        };
        let run_units = std::array::from_fn(|d| {
            let unit = spec.min_block_size(Direction::ALL[d]).max(1) as u64;
            let ba = spec.block_align.unwrap_or(unit).max(1);
            let room = region.len.saturating_sub(unit.saturating_sub(ba));
            (unit, ba, room / ba)
        });
        let map = (mapped && runs.is_none() && walk.is_none())
            .then(|| (Permutation::new(units, &mut rng), 0));
        let ranks = RankGen::new(&spec.distribution, units, align, &mut rng);
        OffsetGen {
            region,
            pattern: spec.pattern,
            align,
            units,
            seq_pos: [0; Direction::COUNT],
            seq_add: spec.seq_add,
            random_every: spec.random_every,
            // fio starts its countdown at 1 (init.c): the first I/O is a random one.
            countdown: 1,
            random_pct: spec.percentage_random,
            identical: spec.rw_identical,
            sequenced,
            last: [0; Direction::COUNT],
            seq_rng: Rng::new(seed ^ 0x5e9_4a17),
            wrapped: false,
            rng,
            fio,
            map,
            runs,
            walk,
            run_units,
            restart_at_end: spec.time_based,
            ranks,
            zones: None,
        }
    }

    /// Seeds the offset stream as fio seeds job `thread_number`'s (fio's 1-based job number
    /// over the run, counting every copy); a job's further files then draw from its first
    /// file's ([`Self::share_stream`]).
    pub fn for_job(mut self, spec: &JobSpec, thread_number: u32) -> OffsetGen {
        self.fio = fio_stream(spec, thread_number, self.units);
        if let (Some(walk), Some(stream)) = (&mut self.walk, &self.fio) {
            walk.set_stream(stream.clone());
        }
        self
    }

    /// Draws this file's offsets from `first`'s stream, as fio draws one stream for all of a
    /// job's files (`td->random_state`): a random job over many files places its I/Os where
    /// fio's go, in fio's order.
    pub fn share_stream(&mut self, first: &mut OffsetGen) {
        let shared = match (&mut first.walk, &mut first.fio) {
            (Some(walk), _) => walk.stream_mut().share(),
            (None, Some(fio)) => fio.share(),
            (None, None) => return,
        };
        match &mut self.walk {
            Some(walk) => walk.set_stream(shared),
            None if self.fio.is_some() => self.fio = Some(shared),
            None => {}
        }
    }

    /// An offset generator walking fio's strided zones from `region`'s start over a file of
    /// `file_end` bytes. A zone that would pass the end of the file is cut short (fio ends a
    /// random job there instead).
    pub fn strided(spec: &JobSpec, region: Region, file_end: u64, seed: u64) -> OffsetGen {
        let Some(zones) = spec.zones else {
            return OffsetGen::new(spec, region, seed);
        };
        let walk = ZoneWalk {
            zones,
            first: region.start,
            end: file_end.max(region.end()),
            max_bs: spec.max_block_size() as u64,
            bytes: 0,
        };
        let zone = Region {
            start: region.start,
            len: zones.range.min(walk.end - region.start),
        };
        let mut gen = OffsetGen::new(spec, zone, seed);
        gen.zones = Some(walk);
        gen
    }

    /// Moves to the next zone once `zonesize` bytes are done in this one.
    #[inline(always)]
    fn zone_step(&mut self, bs: u64) {
        let Some(w) = self.zones.as_mut() else {
            return;
        };
        if w.bytes >= w.zones.size {
            w.bytes = 0;
            let mut start = self.region.start + w.zones.range + w.zones.skip;
            if start >= w.end || w.end - start < w.max_bs {
                start = w.first;
            }
            self.region = Region {
                start,
                len: w.zones.range.min(w.end - start),
            };
            self.units = (self.region.len - w.max_bs) / self.align + 1;
            self.seq_pos = [0; Direction::COUNT];
            if let Some((perm, i)) = &mut self.map {
                *perm = Permutation::new(self.units, &mut self.rng);
                *i = 0;
            }
        }
        w.bytes += bs;
    }

    /// True once after an offset that started a new pass over the region (a sequential
    /// wrap, or a random map visited through); never for independent random draws.
    #[inline(always)]
    pub fn take_wrapped(&mut self) -> bool {
        std::mem::take(&mut self.wrapped)
    }

    /// The offset and length of the next I/O of up to `bs` bytes in direction `dir`: `bs`
    /// itself, except where the random map of mixed block sizes cuts it short at a block
    /// already done this pass (fio's `mark_random_map()`). `None`: the map sends the I/O
    /// past the region's end, where fio takes the file as done and the job ends.
    #[inline]
    pub fn place(&mut self, dir: Direction, bs: u64) -> Option<(u64, u64)> {
        self.place_with(dir, bs, |_| None)
    }

    /// [`Self::place`], where a size drawn from the random map that would pass the region's
    /// end is drawn again by `refit(room)`.
    #[inline]
    pub fn place_with(
        &mut self,
        dir: Direction,
        bs: u64,
        refit: impl FnMut(u64) -> Option<u64>,
    ) -> Option<(u64, u64)> {
        match self.runs.is_some() {
            true => self.next_run(dir, bs, refit),
            false => Some((self.next(dir, bs), bs)),
        }
    }

    /// [`Self::place`] where the region is smaller than some block size: where an I/O of
    /// `bs` bytes would not fit from its offset, `refit(room)` draws a size that does (fio's
    /// `get_next_buflen()` redraws until `io_u_fits()`); `None` when none fits there either.
    pub fn place_fitted(
        &mut self,
        dir: Direction,
        bs: u64,
        mut refit: impl FnMut(u64) -> Option<u64>,
    ) -> Option<(u64, u64)> {
        let d = dir.index();
        if self.runs.is_some() {
            return self.next_run(dir, bs, refit);
        }
        let mut bs = bs;
        if self.pattern == Pattern::Sequential && self.zones.is_none() {
            let room = self.region.len.saturating_sub(self.seq_pos[d]);
            if bs > room {
                bs = refit(room).unwrap_or(bs);
            }
        }
        let offset = self.next(dir, bs);
        let room = self.region.end().saturating_sub(offset);
        if bs > room {
            bs = refit(room)?;
            self.follow(dir, offset + bs);
        }
        Some((offset, bs))
    }

    /// A random free block (the first free one at or after a random pick, as fio's
    /// `get_next_rand_offset()`), and as many free units after it as `bs` covers, in the
    /// direction's own units (see `run_units`).
    #[inline(never)]
    fn next_run(
        &mut self,
        dir: Direction,
        bs: u64,
        mut refit: impl FnMut(u64) -> Option<u64>,
    ) -> Option<(u64, u64)> {
        let (unit, ba, blocks) = self.run_units[dir.index()];
        let runs = self.runs.as_mut().expect("called with a run map");
        if runs.full() {
            if let Some(fio) = &mut self.fio {
                fio.new_pass(self.restart_at_end);
            }
            runs.clear();
            self.wrapped = true;
        }
        let pick = match &mut self.fio {
            Some(fio) => fio.below(blocks.max(1)),
            None => self.rng.below(blocks.max(1)),
        };
        let block = runs.next_free(pick).unwrap_or(0);
        let offset = block * ba;
        if offset >= self.region.len {
            if !self.restart_at_end {
                return None;
            }
            // A fresh map: the next pick is free, and within the region.
            runs.clear();
            self.wrapped = true;
            return self.next_run(dir, bs, refit);
        }
        // A size that would pass the region's end is drawn again where refit can (fio draws
        // the size after the offset, until it fits); else the I/O is cut there.
        let room = self.region.len - offset;
        let bs = match bs > room {
            true => refit(room).unwrap_or(bs),
            false => bs,
        };
        let runs = self.runs.as_mut().expect("called with a run map");
        let n = runs.claim(offset / unit, bs.div_ceil(unit)).max(1);
        Some((self.region.start + offset, (n * unit).min(bs)))
    }

    /// A sequential job's next I/O in direction `dir` goes on from `end` (absolute): where
    /// something outside moved the last one (a zoned target's write pointer).
    pub fn follow(&mut self, dir: Direction, end: u64) {
        if self.pattern == Pattern::Sequential {
            self.seq_pos[dir.index()] = end.saturating_sub(self.region.start).min(self.region.len);
        }
    }

    /// Where a sequential job's next I/O in direction `dir` would begin (absolute), before
    /// any wrap; `None` once that is the region's end.
    pub fn seq_position(&self, dir: Direction) -> Option<u64> {
        let pos = self.seq_pos[dir.index()];
        (pos < self.region.len).then_some(self.region.start + pos)
    }

    /// The offset of the next I/O of `bs` bytes in direction `dir`.
    #[inline]
    pub fn next(&mut self, dir: Direction, bs: u64) -> u64 {
        self.zone_step(bs);
        match self.pattern {
            Pattern::Sequential => self.next_sequential(dir, bs),
            Pattern::Random if self.walk.is_some() => {
                let walk = self.walk.as_mut().expect("checked");
                let (block, new_pass) = walk.draw();
                self.wrapped |= new_pass;
                self.region.start + block * self.align
            }
            Pattern::Random if self.runs.is_some() => match self.next_run(dir, bs, |_| None) {
                Some((offset, _)) => offset,
                None => self.region.start,
            },
            Pattern::Random if self.sequenced => self.next_sequenced(dir, bs),
            Pattern::Random => self.next_random(dir),
        }
    }

    /// A random job's offset when not every I/O is a fresh random one, as fio's
    /// `get_next_block()`: between `rw=randread:N`'s draws the next sequential offset (or
    /// the last one again, `rw_sequencer=identical`); at a draw, with `percentage_random`,
    /// a random offset that share of the time and the next sequential one otherwise.
    #[inline]
    fn next_sequenced(&mut self, dir: Direction, bs: u64) -> u64 {
        let d = dir.index();
        let due = self.random_every == 1 || self.random_due();
        let random = due
            && (self.random_pct[d] >= 100 || (self.seq_rng.below(100) as u8) < self.random_pct[d]);
        let off = if !due && self.identical {
            self.region.start + self.last[d]
        } else if random {
            self.next_random(dir)
        } else {
            self.next_sequential(dir, bs)
        };
        self.seq_pos[d] = off - self.region.start + bs;
        self.last[d] = off - self.region.start;
        off
    }

    /// The I/O after the direction's last one (plus `seq_add`, as fio's
    /// `get_next_seq_offset()`: past either end, a hole wraps to the start and a step back to
    /// the end); from the start again when the block no longer fits.
    #[inline(always)]
    fn next_sequential(&mut self, dir: Direction, bs: u64) -> u64 {
        let len = self.region.len;
        let pos = &mut self.seq_pos[dir.index()];
        if *pos != 0 && self.seq_add != 0 {
            let p = *pos as i128 + self.seq_add as i128;
            *pos = if (0..len as i128).contains(&p) {
                p as u64
            } else if self.seq_add > 0 {
                0
            } else {
                (len as i128 + self.seq_add as i128).max(0) as u64
            };
        }
        if *pos + bs > len {
            *pos = 0;
            self.wrapped = true;
        }
        let off = self.region.start + *pos;
        *pos += bs;
        off
    }

    /// Whether this I/O of a `rw=randread:N` job is the every-Nth random one (fio's
    /// `ddir_seq_nr` countdown, shared by both directions).
    #[inline(always)]
    fn random_due(&mut self) -> bool {
        if self.random_every == 0 {
            return false;
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.random_every;
            return true;
        }
        false
    }

    /// A random offset: the next of the random map's pass, or an independent draw.
    #[inline(always)]
    fn next_random(&mut self, dir: Direction) -> u64 {
        let unit = match &mut self.map {
            None => match (&self.ranks, &mut self.fio) {
                (RankGen::Uniform, Some(fio)) => fio.below(self.units.max(1)),
                _ => self.ranks.next(&mut self.rng, dir, self.units),
            },
            Some((perm, i)) => {
                if *i == self.units {
                    *perm = Permutation::new(self.units, &mut self.rng);
                    *i = 0;
                    self.wrapped = true;
                }
                let u = perm.apply(*i);
                *i += 1;
                u
            }
        };
        self.region.start + unit * self.align
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SizeSpec;
    use std::collections::HashSet;

    fn spec(pattern: Pattern, bs: u32) -> JobSpec {
        let mut s = JobSpec::new("t", "/tmp/t");
        s.pattern = pattern;
        s.block_size = [bs; 3];
        s
    }

    #[test]
    fn a_region_smaller_than_the_largest_block_fits_each_size_to_its_offset() {
        let mut s = spec(Pattern::Random, 1 << 20);
        s.block_dist = std::array::from_fn(|_| crate::BlockDist::Range { min: 4096 });
        s.size = Some(crate::SizeSpec::Bytes(256 << 10));
        let region = Region::resolve(&s, 256 << 10, false).unwrap();
        assert!(region.smaller_than_blocks(&s));
        s.size = Some(crate::SizeSpec::Bytes(2048));
        assert!(
            Region::resolve(&s, 2048, false).is_err(),
            "smaller than 4 KiB"
        );
        for pattern in [Pattern::Random, Pattern::Sequential] {
            s.pattern = pattern;
            for mapped in [true, false] {
                s.random_map = mapped;
                let mut g = OffsetGen::new(&s, region, 7);
                let mut refits = 0;
                for _ in 0..200 {
                    let (off, len) = g
                        .place_fitted(Direction::Read, 1 << 20, |room| {
                            refits += 1;
                            Some(room.min(64 << 10) / 4096 * 4096)
                        })
                        .unwrap_or((0, 0));
                    assert!(
                        off + len <= region.end(),
                        "{pattern:?} {mapped}: {off}+{len}"
                    );
                }
                assert!(refits > 0, "{pattern:?}: 1 MiB never fits 256 KiB");
            }
        }
    }

    #[test]
    fn a_new_pass_is_told_once() {
        let mut s = JobSpec::new("j", "/x");
        s.size = Some(crate::SizeSpec::Bytes(16384));
        let region = Region::resolve(&s, 16384, false).unwrap();
        for pattern in [Pattern::Sequential, Pattern::Random] {
            s.pattern = pattern;
            let mut g = OffsetGen::new(&s, region, 1);
            let wraps: Vec<bool> = (0..9)
                .map(|_| {
                    g.next(Direction::Read, 4096);
                    g.take_wrapped()
                })
                .collect();
            // Four blocks a pass: the fifth and ninth offsets begin passes two and three.
            let expect = [false, false, false, false, true, false, false, false, true];
            assert_eq!(wraps, expect, "{pattern:?}");
        }
    }

    #[test]
    fn random_map_covers_every_block_once_per_pass() {
        for blocks in [1u64, 2, 3, 7, 64, 1000, 4099] {
            let s = spec(Pattern::Random, 4096);
            let region = Region {
                start: 8192,
                len: blocks * 4096,
            };
            let mut g = OffsetGen::new(&s, region, 3);
            for _pass in 0..2 {
                let got: HashSet<u64> =
                    (0..blocks).map(|_| g.next(Direction::Read, 4096)).collect();
                assert_eq!(
                    got.len() as u64,
                    blocks,
                    "{blocks} blocks: repeats within a pass"
                );
                assert!(got.iter().all(|o| *o >= 8192 && (o - 8192) % 4096 == 0));
                assert!(got.iter().all(|o| o + 4096 <= region.end()));
            }
        }
    }

    #[test]
    fn mixed_block_sizes_never_cover_a_unit_twice_in_a_pass() {
        // fio's bssplit with its random map: I/Os are cut short at units already done, so a
        // pass covers the region exactly once.
        let mut s = spec(Pattern::Random, 65536);
        s.block_dist = [
            crate::BlockDist::Split(vec![(4096, 60), (65536, 40)]),
            crate::BlockDist::Fixed,
            crate::BlockDist::Fixed,
        ];
        let region = Region {
            start: 4096,
            len: 256 * 4096,
        };
        let mut g = OffsetGen::new(&s, region, 5);
        let mut covered = vec![0u32; 256];
        let mut bytes = 0;
        let mut sizes = crate::Rng::new(9);
        while bytes < region.len {
            let want = if sizes.percent() < 60 { 4096 } else { 65536 };
            let (off, len) = g.place(Direction::Read, want).unwrap();
            assert!(len <= want && len % 4096 == 0 && off + len <= region.end());
            for u in (off - 4096) / 4096..(off - 4096 + len) / 4096 {
                covered[u as usize] += 1;
            }
            bytes += len;
        }
        assert!(covered.iter().all(|&c| c == 1), "{covered:?}");
        assert!(!g.take_wrapped());
        g.place(Direction::Read, 4096);
        assert!(g.take_wrapped(), "the next I/O starts a new pass");
    }

    #[test]
    fn each_direction_marks_the_map_in_its_own_units_as_fio() {
        // Reads of 64k, writes of 1m over 2 MiB: 32 bits of 64k. A write's block number
        // (of 1m) is used as a bit number, as fio's get_next_rand_offset() does, so two
        // writes take bits 0 and 1, and a third finds the next free bit, 2, which is 2 MiB
        // in its units: past the region, where fio's file (and job) is done.
        let mut s = spec(Pattern::Random, 65536);
        s.block_size = [65536, 1 << 20, 65536];
        s.read_percent = 50;
        let region = Region {
            start: 0,
            len: 2 << 20,
        };
        let mut g = OffsetGen::new(&s, region, 7);
        let mut writes: Vec<u64> = (0..2)
            .map(|_| g.place(Direction::Write, 1 << 20).unwrap().0)
            .collect();
        writes.sort();
        assert_eq!(writes, [0, 1 << 20]);
        assert_eq!(g.place(Direction::Write, 1 << 20), None);
        // Reads still find their free 64k units (bits 2 and on).
        let (off, len) = g.place(Direction::Read, 65536).unwrap();
        assert!(off >= 2 * 65536 && len == 65536, "{off}");
        // A time-based job starts the map over instead (fio resets the file).
        s.time_based = true;
        let mut g = OffsetGen::new(&s, region, 7);
        for _ in 0..3 {
            assert!(g.place(Direction::Write, 1 << 20).is_some());
        }
        assert!(g.take_wrapped());
    }

    #[test]
    fn random_map_is_not_sequential() {
        let s = spec(Pattern::Random, 4096);
        let mut g = OffsetGen::new(
            &s,
            Region {
                start: 0,
                len: 4096 * 1024,
            },
            1,
        );
        // Over the first half of a pass; near its end fio's map (and so iolab's) takes the
        // first free block after each pick, which is often the next one.
        let v: Vec<u64> = (0..512).map(|_| g.next(Direction::Read, 4096)).collect();
        let in_order = v.windows(2).filter(|w| w[1] == w[0] + 4096).count();
        assert!(in_order < 10, "{in_order} consecutive pairs");
    }

    #[test]
    fn norandommap_draws_uniformly_within_range_and_alignment() {
        let mut s = spec(Pattern::Random, 4096);
        s.random_map = false;
        s.block_align = Some(512);
        let region = Region {
            start: 0,
            len: 1 << 20,
        };
        let mut g = OffsetGen::new(&s, region, 9);
        let mut odd_sector = 0;
        for _ in 0..10_000 {
            let o = g.next(Direction::Write, 4096);
            assert_eq!(o % 512, 0);
            assert!(o + 4096 <= region.end());
            if !o.is_multiple_of(4096) {
                odd_sector += 1;
            }
        }
        // 512 B alignment really produces offsets that are not 4 KiB aligned.
        assert!(odd_sector > 8000, "{odd_sector}");
    }

    #[test]
    fn sequential_steps_by_block_and_wraps_per_direction() {
        let s = spec(Pattern::Sequential, 4096);
        let mut g = OffsetGen::new(
            &s,
            Region {
                start: 4096,
                len: 3 * 4096,
            },
            0,
        );
        let v: Vec<u64> = (0..4).map(|_| g.next(Direction::Read, 4096)).collect();
        assert_eq!(v, vec![4096, 8192, 12288, 4096]);
        assert_eq!(g.next(Direction::Write, 4096), 4096);
    }

    #[test]
    fn a_sequential_suffix_leaves_holes_or_steps_back_as_fio() {
        let region = Region {
            start: 0,
            len: 8 * 4096,
        };
        // rw=read:8k with bs=4k: a 4 KiB read, then an 8 KiB hole; past the end, from 0.
        let mut s = spec(Pattern::Sequential, 4096);
        s.seq_add = 8192;
        let mut g = OffsetGen::new(&s, region, 0);
        let v: Vec<u64> = (0..4)
            .map(|_| g.next(Direction::Read, 4096) / 4096)
            .collect();
        assert_eq!(v, vec![0, 3, 6, 0]);
        // rw=read:-8k (fio's backwards-read.fio): the first at 0, then from the end down.
        s.seq_add = -8192;
        let mut g = OffsetGen::new(&s, region, 0);
        let v: Vec<u64> = (0..10)
            .map(|_| g.next(Direction::Read, 4096) / 4096)
            .collect();
        assert_eq!(v, vec![0, 6, 5, 4, 3, 2, 1, 0, 6, 5]);
    }

    #[test]
    fn a_random_suffix_draws_every_nth_and_runs_on_between() {
        let mut s = spec(Pattern::Random, 4096);
        s.random_every = 4;
        let region = Region {
            start: 0,
            len: 1024 * 4096,
        };
        let mut g = OffsetGen::new(&s, region, 5);
        let v: Vec<u64> = (0..12)
            .map(|_| g.next(Direction::Read, 4096) / 4096)
            .collect();
        // fio's countdown starts at 1 (init.c sets td->ddir_seq_nr = 1; fio 3.33's own log
        // shows it): a random I/O first and three after it, and so on.
        assert_eq!(&v[1..4], &[v[0] + 1, v[0] + 2, v[0] + 3]);
        assert_eq!(&v[5..8], &[v[4] + 1, v[4] + 2, v[4] + 3]);
        assert_eq!(&v[9..12], &[v[8] + 1, v[8] + 2, v[8] + 3]);
        assert!(v[0] != 0 || v[4] != 4, "the first of each four is drawn");
        s.random_every = 0;
        let mut g = OffsetGen::new(&s, region, 5);
        let v: Vec<u64> = (0..3)
            .map(|_| g.next(Direction::Read, 4096) / 4096)
            .collect();
        assert_eq!(v, vec![0, 1, 2], "randread:0 never draws, as in fio");
    }

    #[test]
    fn region_resolution_checks_bounds() {
        let mut s = spec(Pattern::Random, 4096);
        s.size = Some(SizeSpec::Bytes(1 << 20));
        s.offset = SizeSpec::Bytes(1 << 20);
        assert_eq!(
            Region::resolve(&s, 4 << 20, false).unwrap(),
            Region {
                start: 1 << 20,
                len: 1 << 20
            }
        );
        assert!(Region::resolve(&s, 1 << 20, false)
            .unwrap_err()
            .to_string()
            .contains("past the end"));
        assert!(Region::resolve(&s, 0, true).is_ok(), "a file can grow");
        s.size = Some(SizeSpec::Percent(50.0));
        s.offset = SizeSpec::Percent(25.0);
        assert_eq!(
            Region::resolve(&s, 8 << 20, false).unwrap(),
            Region {
                start: 2 << 20,
                len: 4 << 20
            }
        );
        s.size = Some(SizeSpec::Bytes(1000));
        assert!(Region::resolve(&s, 8 << 20, false)
            .unwrap_err()
            .to_string()
            .contains("smaller than one block"));
    }
}
