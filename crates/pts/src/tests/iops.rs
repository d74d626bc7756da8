//! The IOPS test: random I/O over 7 read/write mixes × 8 block sizes, one element each (a
//! minute at full duration), a round the whole matrix; the rule tracks 4 KiB 100 % write IOPS.

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
    fn tracked_label(&self, _: &Config) -> String {
        "4 KiB random 100 % write IOPS".into()
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> f64 {
        figure_of(round, |e| e.bs == 4096 && e.read_pct == 0, |m| m.iops)
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
        let c = Config::new("/dev/x".into(), 1 << 30, None, false, false);
        let r = Iops.round(&c);
        assert_eq!(r.len(), 56);
        assert_eq!((r[0].read_pct, r[0].bs), (100, 1 << 20));
        assert_eq!((r[55].read_pct, r[55].bs), (0, 512));
        assert!(r
            .iter()
            .all(|e| e.random && e.threads == 4 && e.depth == 32));
    }
}
