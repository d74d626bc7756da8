//! Block sizes that vary per I/O: fio's `bsrange` (between two sizes, in steps of the
//! smaller) and `bssplit` (chosen sizes with given shares), drawn as fio draws them. A fixed
//! size (`bs`) needs neither.

use crate::FioRand;

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

/// Draws block sizes for one worker as fio's `get_next_buflen()` does, from the draws of
/// fio's own per-direction stream (`bsrange_state`), so a job with varying sizes moves fio's
/// sizes in fio's order; allocation only at construction.
#[derive(Debug, Clone)]
pub enum BlockSizer {
    Fixed(u64),
    /// fio's `bsrange`: `min + ⌊max · u⌋` for a uniform `u` in [0, 1), down to a multiple of
    /// `min` (unless `bs_unaligned`), at most `max`. With `max` a multiple of `min` that is
    /// uniform over the multiples; otherwise `max` itself takes the top share.
    Range {
        min: u64,
        max: u64,
        aligned: bool,
    },
    /// fio's `bssplit`: (size, cumulative percent) in fio's order (by share, smallest
    /// first); sizes are then aligned down to a multiple of the smallest, as fio's are.
    Split {
        sizes: Vec<(u64, u64)>,
        min: u64,
    },
}

impl BlockSizer {
    pub fn new(dist: &BlockDist, max: u32) -> BlockSizer {
        match dist {
            BlockDist::Fixed => BlockSizer::Fixed(max as u64),
            BlockDist::Range { min } | BlockDist::Unaligned { min } => BlockSizer::Range {
                min: (*min).max(1) as u64,
                max: max.max(*min) as u64,
                aligned: matches!(dist, BlockDist::Range { .. }),
            },
            BlockDist::Split(v) => {
                // fio's bssplit_ddir(): sorted by share for the lookup (glibc's qsort
                // keeps equal shares in their order).
                let mut by_share = v.clone();
                by_share.sort_by_key(|&(_, p)| p);
                let mut acc = 0;
                let sizes = by_share
                    .iter()
                    .filter(|&&(_, p)| p > 0)
                    .map(|&(bs, p)| {
                        acc += p as u64;
                        (bs as u64, acc)
                    })
                    .collect();
                let min = v.iter().map(|p| p.0).min().unwrap_or(1).max(1) as u64;
                BlockSizer::Split { sizes, min }
            }
        }
    }

    /// The next size, drawn from `rand` as fio draws from its `bsrange_state`.
    #[inline(always)]
    pub fn next(&self, rand: &mut FioRand) -> u64 {
        match self {
            BlockSizer::Fixed(bs) => *bs,
            BlockSizer::Range { min, max, aligned } => {
                let len = min + rand.below(*max);
                match aligned {
                    true => align_down(len, *min).min(*max),
                    false => len.min(*max),
                }
            }
            BlockSizer::Split { sizes, min } => {
                let r = rand.draw();
                let top = rand.max() / 100;
                let mut len = 0;
                for &(bs, cum) in sizes {
                    len = bs;
                    if r / cum <= top {
                        break;
                    }
                }
                align_down(len, *min)
            }
        }
    }

    /// The largest size this sizer can produce that is at most `room` bytes (None if even
    /// the smallest is larger): fio ends a size-based job exactly at its size this way.
    pub fn largest_fitting(&self, room: u64) -> Option<u64> {
        match self {
            BlockSizer::Fixed(bs) => (*bs <= room).then_some(*bs),
            BlockSizer::Range { min, max, .. } if *max <= room => Some(*max),
            BlockSizer::Range { min, aligned, .. } => match aligned {
                true => Some(align_down(room, *min)).filter(|&l| l >= *min),
                false => (*min <= room).then_some(room),
            },
            BlockSizer::Split { sizes, min } => sizes
                .iter()
                .map(|&(bs, _)| align_down(bs, *min))
                .filter(|&bs| bs <= room)
                .max(),
        }
    }
}

/// fio's alignment of a drawn size: a power-of-two minimum masks, another rounds down.
#[inline(always)]
fn align_down(len: u64, min: u64) -> u64 {
    match min.is_power_of_two() {
        true => len & !(min - 1),
        false => len - len % min,
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
        let mut rng = FioRand::new(3, false);
        let big = (0..100_000).filter(|_| s.next(&mut rng) == 65536).count();
        assert!((88_000..92_000).contains(&big), "{big}");
    }

    #[test]
    fn range_stays_in_range_on_multiples_of_the_minimum() {
        let s = BlockSizer::new(&BlockDist::Range { min: 4096 }, 16384);
        let mut rng = FioRand::new(3, false);
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

    #[test]
    fn a_range_whose_top_is_no_multiple_gives_the_top_its_share_as_fio() {
        // 4k + ⌊10k · u⌋ down to 4k: 4k below u = 0.4, 8k below 0.8, then 12k, capped at 10k.
        let s = BlockSizer::new(&BlockDist::Range { min: 4096 }, 10240);
        let mut rng = FioRand::new(3, false);
        let mut n = std::collections::BTreeMap::new();
        for _ in 0..100_000 {
            *n.entry(s.next(&mut rng)).or_insert(0) += 1;
        }
        assert_eq!(n.keys().copied().collect::<Vec<u64>>(), [4096, 8192, 10240]);
        assert!((19_000..21_000).contains(&n[&10240]), "{n:?}");
        assert_eq!(s.largest_fitting(10000), Some(8192));
        assert_eq!(s.largest_fitting(20000), Some(10240));
    }

    #[test]
    fn split_sizes_are_aligned_to_the_smallest_as_fio_aligns_them() {
        // fio's get_next_buflen() masks a bssplit size too: 6k under a 4k minimum is 4k.
        let s = BlockSizer::new(&BlockDist::Split(vec![(4096, 50), (6144, 50)]), 6144);
        let mut rng = FioRand::new(3, false);
        assert!((0..1000).all(|_| s.next(&mut rng) == 4096));
    }
}
