//! The offsets of a simple job, drawn in a few instructions from a few dozen bytes.
//!
//! [`OffsetGen`] serves every job: zones, mixed block sizes, `percentage_random`, the
//! random distributions, both directions. A job with one direction and one block size that
//! uses none of that (the peak-IOPS and QD1 jobs of a review) still pays for its branches
//! and its cache lines on every I/O. [`OffsetGen::lean`] hands such a job a [`LeanOffsets`]
//! holding only what its walk needs; the tests below show it gives the very offsets
//! `OffsetGen::next` would.

use iolab_engine::Direction;

use super::{OffsetGen, Permutation};
use crate::{FioWalk, OffsetStream, Pattern, RankGen, Rng};

/// Offsets of one direction and one block size, the same sequence as [`OffsetGen::next`].
#[derive(Debug, Clone)]
pub struct LeanOffsets(Walk);

#[derive(Debug, Clone)]
enum Walk {
    /// Block after block, from the region's start again once the next would not fit.
    Sequential {
        start: u64,
        len: u64,
        bs: u64,
        pos: u64,
    },
    /// Independent uniform draws of an aligned position (`norandommap`), as fio draws them.
    Random {
        start: u64,
        units: u64,
        align: u64,
        fio: OffsetStream,
    },
    /// fio's random map and draws: a random block, or the first free one after it, each
    /// block once per pass.
    FioMapped {
        start: u64,
        align: u64,
        walk: FioWalk,
    },
    /// `random_generator=lfsr`: every aligned position once per pass, in a fresh order each
    /// pass.
    Mapped {
        start: u64,
        align: u64,
        perm: Permutation,
        next: u64,
        rng: Rng,
    },
}

impl LeanOffsets {
    /// The next I/O's offset.
    #[inline(always)]
    pub fn draw(&mut self) -> u64 {
        match &mut self.0 {
            Walk::Sequential {
                start,
                len,
                bs,
                pos,
            } => {
                if *pos + *bs > *len {
                    *pos = 0;
                }
                let off = *start + *pos;
                *pos += *bs;
                off
            }
            Walk::Random {
                start,
                units,
                align,
                fio,
            } => *start + fio.below(*units) * *align,
            Walk::FioMapped { start, align, walk } => *start + walk.draw().0 * *align,
            Walk::Mapped {
                start,
                align,
                perm,
                next,
                rng,
            } => {
                if *next == perm.n {
                    *perm = Permutation::new(perm.n, rng);
                    *next = 0;
                }
                let u = perm.apply(*next);
                *next += 1;
                *start + u * *align
            }
        }
    }
}

impl OffsetGen {
    /// This generator's walk from here on for I/Os of `bs` bytes in direction `dir` only,
    /// when it needs nothing a [`LeanOffsets`] leaves out: no zones, no map of mixed block
    /// sizes, no `percentage_random`, no `rw=read:N` holes, uniform draws.
    pub fn lean(&self, dir: Direction, bs: u64) -> Option<LeanOffsets> {
        if self.zones.is_some() || self.runs.is_some() {
            return None;
        }
        let start = self.region.start;
        let walk = match self.pattern {
            Pattern::Sequential if self.seq_add == 0 => Some(Walk::Sequential {
                start,
                len: self.region.len,
                bs,
                pos: self.seq_pos[dir.index()],
            }),
            Pattern::Sequential => None,
            Pattern::Random if self.sequenced => None,
            Pattern::Random => match (&self.walk, &self.map, &self.ranks) {
                (Some(walk), _, _) => Some(Walk::FioMapped {
                    start,
                    align: self.align,
                    walk: walk.clone(),
                }),
                (None, Some((perm, next)), _) => Some(Walk::Mapped {
                    start,
                    align: self.align,
                    perm: perm.clone(),
                    next: *next,
                    rng: self.rng.clone(),
                }),
                (None, None, RankGen::Uniform) => self.fio.as_ref().map(|fio| Walk::Random {
                    start,
                    units: self.units.max(1),
                    align: self.align,
                    fio: fio.clone(),
                }),
                (None, None, _) => None,
            },
        };
        walk.map(LeanOffsets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JobSpec, RandomDistribution, Region, StridedZones};

    fn spec(pattern: Pattern, bs: u32, map: bool) -> JobSpec {
        let mut s = JobSpec::new("t", "/tmp/t");
        s.pattern = pattern;
        s.block_size = [bs; 3];
        s.random_map = map;
        s
    }

    /// Draws `n` offsets both ways from the same generator state, after `warm` draws of the
    /// full generator (so a lean walk taken mid-job is checked too).
    fn same_walk(s: &JobSpec, region: Region, dir: Direction, n: usize, warm: usize) {
        let bs = s.block_size[dir.index()] as u64;
        for seed in [1, 7, 0xDEAD_BEEF] {
            let mut full = OffsetGen::new(s, region, seed);
            for _ in 0..warm {
                full.next(dir, bs);
            }
            let mut lean = full.lean(dir, bs).expect("a simple job walks lean");
            for i in 0..n {
                assert_eq!(lean.draw(), full.next(dir, bs), "draw {i}, seed {seed}");
            }
        }
    }

    #[test]
    fn lean_offsets_are_the_full_generators_own() {
        // Regions whose block counts are and are not powers of two, and one block long;
        // over several passes, so the wrap and the map's new order are both crossed.
        let regions = [
            Region {
                start: 0,
                len: 1 << 20,
            },
            Region {
                start: 4096 * 3,
                len: 4096 * 37,
            },
            Region {
                start: 512,
                len: 4096,
            },
        ];
        for region in regions {
            for (pattern, map, fio_order) in [
                (Pattern::Sequential, false, false),
                (Pattern::Random, false, false),
                (Pattern::Random, true, false),
                (Pattern::Random, true, true),
            ] {
                for dir in [Direction::Read, Direction::Write] {
                    let mut s = spec(pattern, 4096, map);
                    s.fio_order = fio_order;
                    let passes = (region.len / 4096) as usize * 3 + 5;
                    same_walk(&s, region, dir, passes, 0);
                    same_walk(&s, region, dir, passes, 11);
                }
            }
        }
    }

    #[test]
    fn blockalign_and_odd_sizes_walk_the_same() {
        let mut s = spec(Pattern::Random, 4096, false);
        s.block_align = Some(512);
        same_walk(
            &s,
            Region {
                start: 0,
                len: 1 << 20,
            },
            Direction::Read,
            5000,
            3,
        );
        let s = spec(Pattern::Sequential, 3000, false);
        same_walk(
            &s,
            Region {
                start: 100,
                len: 10_000,
            },
            Direction::Write,
            50,
            2,
        );
    }

    #[test]
    fn what_the_lean_walk_leaves_out_stays_on_the_full_generator() {
        let region = Region {
            start: 0,
            len: 1 << 20,
        };
        let lean = |s: &JobSpec| OffsetGen::new(s, region, 1).lean(Direction::Read, 4096);
        let mut s = spec(Pattern::Random, 4096, false);
        s.distribution = RandomDistribution::Zipf(1.2);
        assert!(lean(&s).is_none(), "zipf");
        let mut s = spec(Pattern::Random, 4096, false);
        s.random_every = 4;
        assert!(lean(&s).is_none(), "percentage_random");
        let mut s = spec(Pattern::Sequential, 4096, false);
        s.seq_add = 4096;
        assert!(lean(&s).is_none(), "rw=read:4k");
        let mut s = spec(Pattern::Random, 65536, true);
        s.block_dist[0] = crate::BlockDist::Split(vec![(4096, 60), (65536, 40)]);
        let mixed = OffsetGen::new(&s, region, 1).lean(Direction::Read, 65536);
        assert!(mixed.is_none(), "the random map of mixed block sizes");
        let mut s = spec(Pattern::Sequential, 4096, false);
        s.zones = Some(StridedZones {
            size: 1 << 16,
            range: 1 << 16,
            skip: 1 << 16,
        });
        let zoned = OffsetGen::strided(&s, region, 1 << 20, 1);
        assert!(zoned.lean(Direction::Read, 4096).is_none(), "zones");
    }
}
