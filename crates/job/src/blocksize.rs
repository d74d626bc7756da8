//! Block sizes that vary per I/O: fio's `bsrange` (uniform between two sizes, in steps of the
//! smaller) and `bssplit` (chosen sizes with given shares). A fixed size (`bs`) needs neither.

use crate::Rng;

/// How a direction's block size is chosen; the largest is the spec's `block_size`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum BlockDist {
    /// Always `block_size`.
    #[default]
    Fixed,
    /// Uniform from `min` to `block_size`, a multiple of `min` (fio's `bsrange`).
    Range { min: u32 },
    /// Uniform from `min` to `block_size`, any size (fio's `bsrange` with `bs_unaligned`).
    Unaligned { min: u32 },
    /// (size, percent) pairs, percents summing to 100 (fio's `bssplit`).
    Split(Vec<(u32, u32)>),
}

impl BlockDist {
    pub fn min(&self) -> Option<u32> {
        match self {
            BlockDist::Fixed => None,
            BlockDist::Range { min } | BlockDist::Unaligned { min } => Some(*min),
            BlockDist::Split(v) => v.iter().map(|p| p.0).min(),
        }
    }
}

/// Draws block sizes for one worker; allocation only at construction.
#[derive(Debug, Clone)]
pub enum BlockSizer {
    Fixed(u64),
    Range {
        min: u64,
        steps: u64,
    },
    /// Any size from `min` to `max`.
    Unaligned {
        min: u64,
        max: u64,
    },
    /// Sizes with cumulative percents (the last is 100).
    Split(Vec<(u64, u32)>),
}

impl BlockSizer {
    pub fn new(dist: &BlockDist, max: u32) -> BlockSizer {
        match dist {
            BlockDist::Fixed => BlockSizer::Fixed(max as u64),
            BlockDist::Range { min } => BlockSizer::Range {
                min: *min as u64,
                steps: (max / min.max(&1)) as u64,
            },
            BlockDist::Unaligned { min } => BlockSizer::Unaligned {
                min: *min as u64,
                max: max.max(*min) as u64,
            },
            BlockDist::Split(v) => {
                let mut acc = 0;
                BlockSizer::Split(
                    v.iter()
                        .map(|&(bs, p)| {
                            acc += p;
                            (bs as u64, acc)
                        })
                        .collect(),
                )
            }
        }
    }

    #[inline(always)]
    pub fn next(&self, rng: &mut Rng) -> u64 {
        match self {
            BlockSizer::Fixed(bs) => *bs,
            BlockSizer::Range { min, steps } => min * (1 + rng.below(*steps)),
            BlockSizer::Unaligned { min, max } => min + rng.below(max - min + 1),
            BlockSizer::Split(v) => {
                let p = rng.percent();
                v.iter()
                    .find(|(_, cum)| p < *cum)
                    .or(v.last())
                    .map_or(0, |(bs, _)| *bs)
            }
        }
    }
}

impl BlockSizer {
    /// The largest size this sizer can produce that is at most `room` bytes (None if even
    /// the smallest is larger): fio ends a size-based job exactly at its size this way.
    pub fn largest_fitting(&self, room: u64) -> Option<u64> {
        match self {
            BlockSizer::Fixed(bs) => (*bs <= room).then_some(*bs),
            BlockSizer::Range { min, steps } => {
                let n = (room / min).min(*steps);
                (n > 0).then(|| n * min)
            }
            BlockSizer::Unaligned { min, max } => (*min <= room).then(|| room.min(*max)),
            BlockSizer::Split(v) => v.iter().map(|p| p.0).filter(|&bs| bs <= room).max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_fitting_sizes() {
        let s = BlockSizer::new(&BlockDist::Split(vec![(4096, 50), (65536, 50)]), 65536);
        assert_eq!(s.largest_fitting(70000), Some(65536));
        assert_eq!(s.largest_fitting(8192), Some(4096));
        assert_eq!(s.largest_fitting(100), None);
        let r = BlockSizer::new(&BlockDist::Range { min: 4096 }, 16384);
        assert_eq!(r.largest_fitting(13000), Some(12288));
        assert_eq!(r.largest_fitting(1 << 30), Some(16384));
    }

    #[test]
    fn split_follows_its_shares() {
        let s = BlockSizer::new(&BlockDist::Split(vec![(4096, 10), (65536, 90)]), 65536);
        let mut rng = Rng::new(3);
        let big = (0..100_000).filter(|_| s.next(&mut rng) == 65536).count();
        assert!((88_000..92_000).contains(&big), "{big}");
    }

    #[test]
    fn range_stays_in_range_on_multiples_of_the_minimum() {
        let s = BlockSizer::new(&BlockDist::Range { min: 4096 }, 16384);
        let mut rng = Rng::new(3);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..10_000 {
            let bs = s.next(&mut rng);
            assert!(
                bs.is_multiple_of(4096) && (4096..=16384).contains(&bs),
                "{bs}"
            );
            seen.insert(bs);
        }
        assert_eq!(seen.len(), 4);
        assert_eq!(BlockSizer::new(&BlockDist::Fixed, 512).next(&mut rng), 512);
    }
}
