//! The throughput tests: sequential 100 % read, then 100 % write, at one block size, one
//! element each a round; the rule tracks the write throughput. Each block size is a test of
//! its own (`tp-128k`, `tp-1024k`; PTS-C runs 1024 KiB only), purged and preconditioned at
//! its own block size, with its own rounds and steady state, as the specification and every
//! public implementation run them. Several streams (threads) write disjoint shares of the
//! active range, each sequentially.

use super::{figure_of, wipc_element, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct Throughput {
    pub bs: u32,
    name: &'static str,
    stage: &'static str,
    title: &'static str,
}

pub static TP_128K: Throughput = Throughput {
    bs: 128 << 10,
    name: "tp-128k",
    stage: "pts-tp-128k",
    title: "Throughput: sequential 100 % read and 100 % write, 128 KiB",
};

pub static TP_1024K: Throughput = Throughput {
    bs: 1 << 20,
    name: "tp-1024k",
    stage: "pts-tp-1024k",
    title: "Throughput: sequential 100 % read and 100 % write, 1024 KiB",
};

impl PtsTest for Throughput {
    fn name(&self) -> &'static str {
        self.name
    }
    fn stage(&self) -> &'static str {
        self.stage
    }
    fn title(&self) -> &'static str {
        self.title
    }
    /// PTS-C's throughput test is 1024 KiB alone.
    fn in_profile(&self, client: bool) -> bool {
        !client || self.bs == 1 << 20
    }
    /// The active range twice in sequential writes at the test's own block size.
    fn wipc(&self, c: &Config) -> Option<Element> {
        Some(wipc_element(c, self.bs))
    }
    /// Read first, then write, as the public implementations order them.
    fn round(&self, c: &Config) -> Vec<Element> {
        [100u8, 0]
            .map(|read_pct| Element {
                read_pct,
                bs: self.bs,
                random: false,
                threads: c.threads,
                depth: c.depth,
                composite: false,
            })
            .to_vec()
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        vec![format!("{} KiB sequential write throughput", self.bs >> 10)]
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        vec![figure_of(round, |e| e.read_pct == 0, |m| m.bw_bytes)]
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_size_is_a_test_read_before_write() {
        let c = crate::config::test_config(false);
        let r = TP_128K.round(&c);
        assert_eq!(r.iter().map(|e| e.read_pct).collect::<Vec<_>>(), [100, 0]);
        assert!(r.iter().all(|e| e.bs == 128 << 10 && !e.random));
        assert_eq!(TP_1024K.wipc(&c).unwrap().bs, 1 << 20);
        assert!(!TP_128K.in_profile(true) && TP_1024K.in_profile(true));
    }
}
