//! Non-uniform random offsets, as fio defines them (`random_distribution`): zipf with theta,
//! pareto with h, and fio's "normal" (the mean of 12 uniform draws, plus a uniform deviation
//! of `dev` % of the range). As in fio, the drawn rank is scattered over the range with a
//! multiplicative hash plus a random offset, so the hot blocks are spread out rather than all
//! at the start of the file.
//!
//! With these distributions iolab draws offsets independently (as `norandommap`): a random
//! map would send repeat hits elsewhere and flatten the very skew asked for.

use std::sync::Arc;

use iolab_engine::Direction;

use crate::zoned::{ZoneTable, ZonedSplit};
use crate::Rng;

/// fio's `random_distribution`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RandomDistribution {
    #[default]
    Uniform,
    /// Zipf with exponent theta (fio's default 1.1).
    Zipf(f64),
    /// Pareto with h in (0, 1) (fio's default 0.2).
    Pareto(f64),
    /// fio's normal: deviation as a percentage of the range.
    Normal(f64),
    /// fio's `zoned` / `zoned_abs`: shares of the accesses over consecutive zones.
    Zoned(Arc<ZonedSplit>),
}

/// fio's hash for scattering ranks (`__hash_u64`: a golden-ratio multiply).
#[inline(always)]
fn scatter(v: u64) -> u64 {
    v.wrapping_mul(0x61C8_8646_80B5_83EB)
}

/// Zipf's normalising sum is capped as fio caps it (10M terms, about a second's work).
const ZIPF_MAX_TERMS: u64 = 10_000_000;

/// Draws ranks in `0..n` for one worker. Set-up computes zipf's normalising constant once.
#[derive(Debug, Clone)]
pub enum RankGen {
    Uniform,
    Zipf {
        theta: f64,
        zetan: f64,
        eta: f64,
        alpha: f64,
        offset: u64,
    },
    Pareto {
        pow: f64,
        offset: u64,
    },
    Normal {
        stddev: u64,
    },
    Zoned(ZoneTable),
}

impl RankGen {
    /// Ranks over `n` positions of `align` bytes (zoned_abs zones are given in bytes).
    pub fn new(dist: &RandomDistribution, n: u64, align: u64, rng: &mut Rng) -> RankGen {
        let n = n.max(1);
        match *dist {
            RandomDistribution::Uniform => RankGen::Uniform,
            RandomDistribution::Zipf(theta) => {
                let zetan: f64 = (1..=n.min(ZIPF_MAX_TERMS))
                    .map(|i| (1.0 / i as f64).powf(theta))
                    .sum();
                let zeta2 = 1.0 + 0.5f64.powf(theta);
                RankGen::Zipf {
                    theta,
                    zetan,
                    eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
                    alpha: 1.0 / (1.0 - theta),
                    offset: rng.next_u64(),
                }
            }
            RandomDistribution::Pareto(h) => RankGen::Pareto {
                pow: h.ln() / (1.0 - h).ln(),
                offset: rng.next_u64(),
            },
            RandomDistribution::Normal(dev) => RankGen::Normal {
                stddev: ((n as f64 * dev / 100.0).ceil() as u64).min(n / 2),
            },
            RandomDistribution::Zoned(ref split) => RankGen::Zoned(ZoneTable::new(split, n, align)),
        }
    }

    /// The next rank in `0..n` for an I/O in direction `dir`.
    #[inline]
    pub fn next(&self, rng: &mut Rng, dir: Direction, n: u64) -> u64 {
        let n = n.max(1);
        match *self {
            RankGen::Uniform => rng.below(n),
            RankGen::Zipf {
                theta,
                zetan,
                eta,
                alpha,
                offset,
            } => {
                let u = rng_unit(rng);
                let z = u * zetan;
                let val = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                scatter(val - 1).wrapping_add(offset) % n
            }
            RankGen::Pareto { pow, offset } => {
                let v = ((n - 1) as f64 * rng_unit(rng).powf(pow)) as u64;
                scatter(v).wrapping_add(offset) % n
            }
            RankGen::Normal { stddev } => {
                let mut sum: u64 = (0..12).map(|_| rng.below(n + 1)).sum();
                // The average can equal n; fio's loop below would then never end.
                sum = sum.div_ceil(12).min(n - 1);
                if stddev > 0 {
                    let mut dev = rng.below(stddev) as i64 - (stddev / 2) as i64;
                    while dev > 0 && dev + sum as i64 >= n as i64 {
                        dev /= 2;
                    }
                    sum = (sum as i64 + dev).max(0) as u64;
                }
                scatter(sum) % n
            }
            RankGen::Zoned(ref t) => t.next(rng, dir, n),
        }
    }
}

#[inline(always)]
fn rng_unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Share of draws that land on the most popular 1 % of the range.
    fn top_share(dist: RandomDistribution) -> f64 {
        let n = 10_000u64;
        let mut rng = Rng::new(7);
        let g = RankGen::new(&dist, n, 4096, &mut rng);
        let mut hits = vec![0u32; n as usize];
        for _ in 0..200_000 {
            let r = g.next(&mut rng, Direction::Read, n);
            assert!(r < n);
            hits[r as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..100].iter().map(|&h| h as f64).sum::<f64>() / 200_000.0
    }

    #[test]
    fn skewed_distributions_concentrate_and_uniform_does_not() {
        let uniform = top_share(RandomDistribution::Uniform);
        assert!(uniform < 0.03, "uniform {uniform}");
        // zipf 1.2 over 10k ranks: the top 1 % takes well over half of the accesses.
        let zipf = top_share(RandomDistribution::Zipf(1.2));
        assert!(zipf > 0.5, "zipf {zipf}");
        let pareto = top_share(RandomDistribution::Pareto(0.2));
        assert!(pareto > 0.3, "pareto {pareto}");
        let normal = top_share(RandomDistribution::Normal(5.0));
        assert!(
            normal > uniform * 2.0,
            "normal {normal} vs uniform {uniform}"
        );
    }

    #[test]
    fn ranks_stay_in_range_for_tiny_ranges() {
        let mut rng = Rng::new(1);
        for dist in [
            RandomDistribution::Zipf(1.1),
            RandomDistribution::Pareto(0.5),
            RandomDistribution::Normal(10.0),
        ] {
            let g = RankGen::new(&dist, 1, 4096, &mut rng);
            assert_eq!(g.next(&mut rng, Direction::Read, 1), 0);
            let g = RankGen::new(&dist, 3, 4096, &mut rng);
            assert!((0..100).all(|_| g.next(&mut rng, Direction::Read, 3) < 3));
        }
    }
}
