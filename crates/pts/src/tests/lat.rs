//! The latency test: random I/O at one thread and queue depth 1 over 3 read/write mixes × 3
//! block sizes (0.5, 4 and 8 KiB), reporting average, maximum and five-nines response times;
//! the rule tracks the 4 KiB 100 % write average response time. After steady state, PTS 2.0's
//! response-time histogram: 4 KiB random writes at T1Q1 for 20 minutes (`--quick`: 20
//! element times), their histogram kept.

use super::{figure_of, histogram_phase, random_matrix, Phase, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

pub const MIXES: [u8; 3] = [100, 65, 0];
pub const BLOCK_SIZES: [u32; 3] = [8 << 10, 4 << 10, 512];

pub struct Latency;

impl PtsTest for Latency {
    fn name(&self) -> &'static str {
        "lat"
    }
    fn stage(&self) -> &'static str {
        "pts-lat"
    }
    fn title(&self) -> &'static str {
        "Latency: random I/O at T1Q1, 3 mixes × 3 block sizes"
    }
    fn round(&self, _: &Config) -> Vec<Element> {
        random_matrix(&MIXES, &BLOCK_SIZES, 1, 1)
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        vec!["4 KiB random 100 % write average response time".into()]
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        vec![figure_of(
            round,
            |e| e.bs == 4096 && e.read_pct == 0,
            |m| m.mean_ns,
        )]
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
    fn after(&self, c: &Config, _: &[Vec<Measured>], _: Option<[usize; 2]>) -> Vec<Phase> {
        vec![histogram_phase(c)]
    }
}
