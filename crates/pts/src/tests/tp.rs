//! The throughput test: sequential 100 % write and 100 % read at 128 KiB and 1024 KiB (PTS-C:
//! 1024 KiB only), one element each; the rule tracks the first block size's write throughput.
//! (The specification runs each block size as a test of its own, each purged; iolab runs
//! them as one test with one steady state for now.)

use super::{figure_of, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct Throughput;

impl Throughput {
    fn block_sizes(c: &Config) -> &'static [u32] {
        match c.client {
            true => &[1 << 20],
            false => &[128 << 10, 1 << 20],
        }
    }
}

impl PtsTest for Throughput {
    fn name(&self) -> &'static str {
        "tp"
    }
    fn stage(&self) -> &'static str {
        "pts-tp"
    }
    fn title(&self) -> &'static str {
        "Throughput: sequential 100 % write and 100 % read, 128 KiB and 1024 KiB"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        Self::block_sizes(c)
            .iter()
            .flat_map(|&bs| {
                [0u8, 100].map(|read_pct| Element {
                    read_pct,
                    bs,
                    random: false,
                    threads: c.threads,
                    depth: c.depth,
                    composite: false,
                })
            })
            .collect()
    }
    fn tracked_label(&self, c: &Config) -> String {
        format!(
            "{} KiB sequential write throughput (bytes/s)",
            Self::block_sizes(c)[0] >> 10
        )
    }
    fn tracked(&self, c: &Config, round: &[Measured]) -> f64 {
        let bs = Self::block_sizes(c)[0];
        figure_of(round, |e| e.bs == bs && e.read_pct == 0, |m| m.bw_bytes)
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
}
