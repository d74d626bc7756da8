//! A small, fast, seedable PRNG (xorshift64*, seeded through SplitMix64). Offsets and the
//! read/write mix draw from it on the hot path; it is a few instructions and never allocates.

#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // SplitMix64 spreads nearby seeds (job 0, job 1, ...) into unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng {
            state: if z == 0 { 0x1234_5678 } else { z },
        }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; bias below 2^-64 · n).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `0..100`.
    #[inline(always)]
    pub fn percent(&mut self) -> u32 {
        self.below(100) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [0u32; 10];
        for _ in 0..100_000 {
            seen[r.below(10) as usize] += 1;
        }
        for c in seen {
            assert!((9_000..11_000).contains(&c), "{seen:?}");
        }
    }

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let (mut a, mut b, mut c) = (Rng::new(5), Rng::new(5), Rng::new(6));
        let va: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }
}
