//! fio's random offsets, draw for draw: its Tausworthe generators (`lib/rand.[ch]`), seeded
//! as fio seeds a job's offset stream (`setup_random_seeds()`, `td_fill_rand_seeds()`), and
//! its scaling of a draw onto the blocks (`__get_next_rand_offset()`).
//!
//! Why iolab draws as fio does rather than with its own generator: a random job then touches
//! the same blocks in the same order as the same job under fio. Side by side on one device
//! the two tools do the same I/O, a write iolog of either lists the other's offsets, and on
//! a zoned drive a random write job leaves fio's write pointers zone for zone. The draw is a
//! few shifts and xors, as cheap as the generator it replaced.

use std::cell::RefCell;
use std::rc::Rc;

/// fio's `FIO_RANDSEED`: a repeatable job's offset stream is this times its job number.
const FIO_RANDSEED: u64 = 0xb189_9bed;
/// fio's multiplier between the seeds of a job's streams, from `randseed`.
const SEED_STEP: u64 = 0x9e37_0001;
/// The place of the offset stream among fio's per-job streams (`FIO_RAND_BLOCK_OFF`).
const BLOCK_STREAM: u64 = 6;

/// How a job's random streams are seeded: fio's `randrepeat`, `randseed` and
/// `allrandrepeat`, as fio settles them (a given `randseed` turns `randrepeat` off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedRule {
    /// The offsets repeat from run to run, whatever the seed (fio's `rand_repeatable`).
    pub repeatable: bool,
    /// Every stream is fixed by the job number alone (fio's `allrandrepeat`).
    pub all_fixed: bool,
    /// fio's `randseed` as fio holds it (0x89 unless given; from the clock when nothing
    /// fixes it), the same for every copy of a job: fio's copies differ by thread number
    /// alone, where iolab's own streams step the job's seed per copy.
    pub seed: u64,
}

impl Default for SeedRule {
    fn default() -> SeedRule {
        SeedRule {
            repeatable: true,
            all_fixed: false,
            seed: 0x89,
        }
    }
}

impl SeedRule {
    /// The seed of the offset stream of job `thread_number` (fio's 1-based job number over
    /// the run).
    pub fn offset_seed(&self, thread_number: u32) -> u64 {
        if self.repeatable {
            return FIO_RANDSEED.wrapping_mul(thread_number as u64);
        }
        self.stream_seed(thread_number, BLOCK_STREAM)
    }

    /// The seed of fio's stream number `stream` (its `FIO_RAND_*_OFF`) of job
    /// `thread_number`, other than the offsets' own under `randrepeat`.
    pub fn stream_seed(&self, thread_number: u32, stream: u64) -> u64 {
        let n = thread_number as u64;
        if self.all_fixed {
            return FIO_RANDSEED.wrapping_mul(n).wrapping_add(stream);
        }
        // setup_random_seeds(): four steps, then one per stream up to this one.
        let mut s = self.seed;
        for _ in 0..4 + stream {
            s = s.wrapping_mul(SEED_STEP);
        }
        s.wrapping_mul(n).wrapping_add(stream)
    }
}

/// Which of fio's generators draws offsets (`random_generator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Generator {
    /// fio's default, the 32-bit Tausworthe (taus88); widened to the 64-bit one for a file
    /// of more blocks than 32 bits can pick, as fio widens it.
    #[default]
    Tausworthe,
    Tausworthe64,
    /// fio's `lfsr`: every block once per pass and no map. iolab walks its own full-period
    /// permutation here, so the order is not fio's.
    FullPeriod,
}

/// One of fio's Tausworthe generators in its seeded state (fio's `struct frand_state`).
#[derive(Debug, Clone)]
pub enum FioRand {
    Taus88([u32; 3]),
    Taus258([u64; 5]),
}

/// fio's `__seed()`: a state word must reach its generator's minimum.
fn at_least(x: u64, m: u64) -> u64 {
    if x < m {
        x + m
    } else {
        x
    }
}

/// Blocks for which a 32-bit draw scales exactly in integers (see [`FioRand::below`]).
const EXACT_BLOCKS: u64 = 1 << 21;

/// fio's `__rand32()` (taus88).
#[inline(always)]
fn taus88(s: &mut [u32; 3]) -> u64 {
    let t = |s: u32, a: u32, b: u32, c: u32, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
    s[0] = t(s[0], 13, 19, 4_294_967_294, 12);
    s[1] = t(s[1], 2, 25, 4_294_967_288, 4);
    s[2] = t(s[2], 3, 11, 4_294_967_280, 17);
    (s[0] ^ s[1] ^ s[2]) as u64
}

/// fio's `__rand64()` (taus258).
#[inline(always)]
fn taus258(s: &mut [u64; 5]) -> u64 {
    let t = |s: u64, a: u32, b: u32, c: u64, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
    s[0] = t(s[0], 1, 53, 18_446_744_073_709_551_614, 10);
    s[1] = t(s[1], 24, 50, 18_446_744_073_709_551_104, 5);
    s[2] = t(s[2], 3, 23, 18_446_744_073_709_547_520, 29);
    s[3] = t(s[3], 5, 24, 18_446_744_073_709_420_544, 23);
    s[4] = t(s[4], 3, 33, 18_446_744_073_701_163_008, 8);
    s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
}

/// fio's scaling in floating point: `blocks * (r / span)`, truncated.
#[inline(never)]
fn scale(blocks: u64, r: u64, span: f64) -> u64 {
    (blocks as f64 * (r as f64 / span)) as u64
}

/// fio's seeding starts from `(2^31) + (2^17) + (2^7)`, which C reads as xors: 53.
const SEED_START: u64 = (2 ^ 31) + (2 ^ 17) + (2 ^ 7);

impl FioRand {
    /// fio's `init_rand_seed()`: the state from `seed`, then six draws thrown away. The
    /// 32-bit generator takes the seed's low 32 bits, as fio's cast does.
    pub fn new(seed: u64, wide: bool) -> FioRand {
        let mut r = match wide {
            false => {
                let seed = seed as u32;
                let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
                let s1 = at_least(lcg(SEED_START as u32) as u64, 1) as u32;
                let s2 = at_least(lcg(s1) as u64, 7) as u32;
                let s3 = at_least(lcg(s2) as u64, 15) as u32;
                FioRand::Taus88([s1, s2, s3])
            }
            true => {
                let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
                let mut s = [0u64; 5];
                let mins = [1, 7, 15, 33, 49];
                let mut prev = SEED_START;
                for (k, m) in mins.into_iter().enumerate() {
                    s[k] = at_least(lcg(prev), m);
                    prev = s[k];
                }
                FioRand::Taus258(s)
            }
        };
        for _ in 0..6 {
            r.draw();
        }
        r
    }

    /// fio's `rand_max()`: the largest draw.
    #[inline(always)]
    pub fn max(&self) -> u64 {
        match self {
            FioRand::Taus88(_) => u32::MAX as u64,
            FioRand::Taus258(_) => u64::MAX,
        }
    }

    /// fio's `__rand()`.
    #[inline(always)]
    pub fn draw(&mut self) -> u64 {
        match self {
            FioRand::Taus88(s) => taus88(s),
            FioRand::Taus258(s) => taus258(s),
        }
    }

    /// A block in `0..blocks`, as fio's `__get_next_rand_offset()` scales a draw: in
    /// floating point, `blocks * (r / (max + 1))`, truncated.
    ///
    /// For the 32-bit generator over at most 2^21 blocks the product is exact in a double
    /// (under 2^53), so one integer multiply gives the same block without the conversions.
    #[inline(always)]
    pub fn below(&mut self, blocks: u64) -> u64 {
        match self {
            FioRand::Taus88(s) => {
                let r = taus88(s);
                match blocks <= EXACT_BLOCKS {
                    true => (blocks * r) >> 32,
                    false => scale(blocks, r, u32::MAX as f64 + 1.0),
                }
            }
            FioRand::Taus258(s) => scale(blocks, taus258(s), u64::MAX as f64 + 1.0),
        }
    }

    /// Whether a job drawing over `blocks` blocks with `generator` draws 64-bit numbers;
    /// `None` for the full-period walk, which is not fio's generator.
    pub fn wide(generator: Generator, blocks: u64) -> Option<bool> {
        match generator {
            Generator::FullPeriod => None,
            // fio's check_rand_gen_limits(): too many blocks for 32 bits widens it.
            Generator::Tausworthe => Some(blocks > u32::MAX as u64),
            Generator::Tausworthe64 => Some(true),
        }
    }
}

/// fio's offset stream across passes over a job's blocks. When a pass has used every block:
/// a time-based job spends the draw that found the map full and goes on (fio's
/// `get_next_rand_block()` resets the file in place); a size-based job starts its next pass
/// afresh, reseeded when its offsets repeat (fio's `clear_io_state()` between loops and
/// `io_size` passes), else after the spent draw.
///
/// fio draws one stream for all of a job's files (`td->random_state`): the files of a job
/// hold handles on one state ([`Self::share`]). A clone is a copy with its own state.
#[derive(Debug)]
pub struct OffsetStream {
    rand: Rc<RefCell<FioRand>>,
    /// What seeded `rand`, to seed it again.
    seed: u64,
    /// Each size-based pass starts from the seed again (fio's `randrepeat`); never for a
    /// handle shared by several files, whose passes end apart.
    reseed: bool,
}

impl Clone for OffsetStream {
    fn clone(&self) -> OffsetStream {
        OffsetStream {
            rand: Rc::new(RefCell::new(self.rand.borrow().clone())),
            seed: self.seed,
            reseed: self.reseed,
        }
    }
}

impl OffsetStream {
    /// fio's stream from `seed` (see [`FioRand::new`]); `repeatable`: each size-based pass
    /// starts from the seed again.
    pub fn new(seed: u64, wide: bool, repeatable: bool) -> OffsetStream {
        OffsetStream {
            rand: Rc::new(RefCell::new(FioRand::new(seed, wide))),
            seed,
            reseed: repeatable,
        }
    }

    /// A handle on this stream's state, for another file of the same job: both draw from
    /// one sequence, in the order their I/Os come. Neither restarts it at its own pass's
    /// end any more.
    pub fn share(&mut self) -> OffsetStream {
        self.reseed = false;
        OffsetStream {
            rand: Rc::clone(&self.rand),
            seed: self.seed,
            reseed: false,
        }
    }

    #[inline(always)]
    pub fn below(&mut self, blocks: u64) -> u64 {
        self.rand.borrow_mut().below(blocks)
    }

    /// A pass has used every block; `time_based`: the job runs on in place.
    pub fn new_pass(&mut self, time_based: bool) {
        if !self.restart(time_based) {
            self.rand.borrow_mut().draw();
        }
    }

    /// After the draw that found the map full: a size-based pass that repeats starts from
    /// the seed again (whether it did).
    fn restart(&mut self, time_based: bool) -> bool {
        let reseed = !time_based && self.reseed;
        if reseed {
            let wide = matches!(*self.rand.borrow(), FioRand::Taus258(_));
            *self.rand.borrow_mut() = FioRand::new(self.seed, wide);
        }
        reseed
    }
}

/// fio's random map over a job's blocks of one size (`io_axmap`) with its offset stream:
/// each I/O takes the drawn block, or the first free one after it, so every block is done
/// once a pass.
#[derive(Debug, Clone)]
pub struct FioWalk {
    map: crate::RunMap,
    stream: OffsetStream,
    /// Time based (see [`OffsetStream::new_pass`]).
    time_based: bool,
}

impl FioWalk {
    pub fn new(blocks: u64, stream: OffsetStream, time_based: bool) -> FioWalk {
        FioWalk {
            map: crate::RunMap::new(blocks.max(1)),
            stream,
            time_based,
        }
    }

    pub fn set_stream(&mut self, stream: OffsetStream) {
        self.stream = stream;
    }

    pub fn stream_mut(&mut self) -> &mut OffsetStream {
        &mut self.stream
    }

    /// The next block, and whether it begins a new pass.
    #[inline(always)]
    pub fn draw(&mut self) -> (u64, bool) {
        let pick = self.stream.below(self.map.units());
        match self.map.take_uncounted(pick) {
            Some(block) => (block, false),
            None => (self.start_pass(), true),
        }
    }

    /// The map is full: the draw that found it so is spent (fio's failed
    /// `get_next_rand_offset()`), and the next pass's first block drawn, from the seed
    /// again where a size-based pass reseeds.
    #[cold]
    #[inline(never)]
    fn start_pass(&mut self) -> u64 {
        self.map.clear();
        self.stream.restart(self.time_based);
        let pick = self.stream.below(self.map.units());
        self.map.take_uncounted(pick).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The first draws of fio 3.33's own `init_rand_seed()` and `__rand()` (lib/rand.c built
    // beside a small harness) for a repeatable job's offsets, jobs 1 and 2.
    #[test]
    fn draws_as_fio_draws() {
        let first = |seed: u64, wide: bool| {
            let mut r = FioRand::new(seed, wide);
            [r.draw(), r.draw(), r.draw(), r.draw()]
        };
        assert_eq!(
            first(0xb1899bed, false),
            [259043585, 3179521932, 3621444214, 2018697059]
        );
        assert_eq!(
            first(0x1631337da, false),
            [1094293889, 780151754, 2579992399, 168900472]
        );
        assert_eq!(
            first(0xb1899bed, true),
            [
                17311067694306724737,
                485009114434689783,
                1488059811897507987,
                1834679167304946105
            ]
        );
        assert_eq!(
            first(0x1631337da, true),
            [
                12429441715027959055,
                6893871338603897391,
                2452191833881366039,
                13506716705873718265
            ]
        );
    }

    #[test]
    fn scales_a_draw_onto_the_blocks_as_fio() {
        // fio: lastb * (r / (rand_max + 1.0)) over 262,144 blocks (1 GiB of 4 KiB).
        let mut r = FioRand::new(0xb1899bed, false);
        let blocks: Vec<u64> = (0..4).map(|_| r.below(262_144)).collect();
        assert_eq!(blocks, [15810, 194062, 221035, 123211]);
    }

    #[test]
    fn the_integer_scaling_is_fios_floating_point_one() {
        let mut r = FioRand::new(99, false);
        for blocks in [1, 2, 3, 1000, 262_144, 1_234_567, EXACT_BLOCKS] {
            for _ in 0..10_000 {
                let mut f = r.clone();
                let x = f.draw();
                assert_eq!(r.below(blocks), scale(blocks, x, 4294967296.0), "{blocks}");
            }
        }
    }

    #[test]
    fn a_walk_takes_every_block_once_a_pass_and_a_size_based_pass_repeats() {
        for (time_based, repeats) in [(false, true), (true, false)] {
            let stream = OffsetStream::new(0xb1899bed, false, true);
            let mut walk = FioWalk::new(100, stream, time_based);
            let pass =
                |w: &mut FioWalk| -> Vec<(u64, bool)> { (0..100).map(|_| w.draw()).collect() };
            let first = pass(&mut walk);
            let mut blocks: Vec<u64> = first.iter().map(|b| b.0).collect();
            blocks.sort_unstable();
            assert_eq!(blocks, (0..100).collect::<Vec<_>>());
            assert!(first.iter().all(|b| !b.1), "no new pass within the first");
            let second = pass(&mut walk);
            assert!(second[0].1 && second[1..].iter().all(|b| !b.1));
            let same = first.iter().zip(&second).all(|(a, b)| a.0 == b.0);
            assert_eq!(same, repeats, "time based {time_based}");
        }
    }

    #[test]
    fn seeds_follow_randrepeat_randseed_and_allrandrepeat() {
        let repeat = SeedRule::default();
        assert_eq!(repeat.offset_seed(1), 0xb1899bed);
        let other = SeedRule {
            seed: 12345,
            ..repeat
        };
        assert_eq!(other.offset_seed(2), 0x1631337da, "the seed plays no part");
        let given = SeedRule {
            repeatable: false,
            all_fixed: false,
            seed: 7,
        };
        let s10 = (0..10).fold(7u64, |s, _| s.wrapping_mul(0x9e370001));
        assert_eq!(given.offset_seed(3), s10.wrapping_mul(3) + 6);
        let all = SeedRule {
            repeatable: false,
            all_fixed: true,
            seed: 7,
        };
        assert_eq!(all.offset_seed(2), 2 * 0xb1899bed + 6);
    }

    #[test]
    fn more_blocks_than_32_bits_widen_tausworthe_as_fio() {
        let wide = FioRand::wide;
        assert_eq!(wide(Generator::Tausworthe, u32::MAX as u64), Some(false));
        assert_eq!(wide(Generator::Tausworthe, u32::MAX as u64 + 1), Some(true));
        assert_eq!(wide(Generator::Tausworthe64, 8), Some(true));
        assert_eq!(wide(Generator::FullPeriod, 8), None);
    }
}
