//! The IOPS test: random I/O over 7 read/write mixes × 8 block sizes, one element each (a
//! minute at full duration), a round the whole matrix; the rule tracks three variables, as
//! PTS 2.0 does, all of which must be steady in the same window: 4 KiB 100 % write, 64 KiB
//! 65/35 and 1024 KiB 100 % read IOPS (PTS-E 1.1 tracked the first alone).

use super::{figure_of, random_matrix, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

/// The specification's mixes (read percent) and block sizes, in its loop order.
pub const MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];
pub const BLOCK_SIZES: [u32; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// PTS 2.0's tracked variables: (block size, read percent, in words).
pub const TRACKED: [(u32, u8, &str); 3] = [
    (4096, 0, "4 KiB random 100 % write IOPS"),
    (64 << 10, 65, "64 KiB random 65/35 IOPS"),
    (1 << 20, 100, "1024 KiB random 100 % read IOPS"),
];

pub struct Iops;

impl PtsTest for Iops {
    fn name(&self) -> &'static str {
        "iops"
    }
    fn stage(&self) -> &'static str {
        "pts-iops"
    }
    fn title(&self) -> &'static str {
        "IOPS: random I/O, 7 read/write mixes × 8 block sizes"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        random_matrix(&MIXES, &BLOCK_SIZES, c.threads, c.depth)
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        TRACKED.iter().map(|t| t.2.to_string()).collect()
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        TRACKED
            .iter()
            .map(|&(bs, read, _)| {
                figure_of(round, |e| e.bs == bs && e.read_pct == read, |m| m.iops)
            })
            .collect()
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_is_the_whole_matrix_in_the_specs_order() {
        let c = crate::config::test_config(false);
        let r = Iops.round(&c);
        assert_eq!(r.len(), 56);
        assert_eq!((r[0].read_pct, r[0].bs), (100, 1 << 20));
        assert_eq!((r[55].read_pct, r[55].bs), (0, 512));
        assert!(r
            .iter()
            .all(|e| e.random && e.threads == 4 && e.depth == 32));
        assert_eq!(Iops.tracked_labels(&c).len(), 3);
    }
}
