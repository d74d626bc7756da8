//! Write saturation: one workload from the purged drive, one-element rounds (a minute each
//! at full duration), for 24 hours or until four times the active range is written, whichever
//! comes first (`--quick`: 40 rounds or four times its region), plotted against time, against
//! bytes written (decimal GB, as the specification counts capacities) and against drive
//! fills. The workload is the required 4 KiB random writes or one of PTS 2.0's optional ones
//! (`--wsat-workload`). The specification sets no steady-state criterion for it: none is
//! claimed. After the rounds, PTS 2.0's response-time histogram: 4 KiB random writes at T1Q1
//! for 20 minutes (`--quick`: 20 element times), as the latency test's.

use super::{figure_of, histogram_phase, Phase, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct WriteSaturation;

impl PtsTest for WriteSaturation {
    fn name(&self) -> &'static str {
        "wsat"
    }
    fn stage(&self) -> &'static str {
        "pts-wsat"
    }
    fn title(&self) -> &'static str {
        "Write saturation: one workload, continuously, from the purged drive"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        vec![c.wsat.element(c.threads, c.depth)]
    }
    fn tracked_labels(&self, c: &Config) -> Vec<String> {
        vec![c.wsat.tracked().into()]
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        vec![figure_of(round, |_| true, |m| m.iops)]
    }
    fn wipc(&self, _: &Config) -> Option<Element> {
        None
    }
    fn rounds(&self, c: &Config) -> Rounds {
        let rounds = match c.quick {
            true => 40,
            false => (24 * 3600 / c.element_time.as_secs().max(1)) as usize,
        };
        Rounds::Series {
            rounds,
            bytes: c.region.saturating_mul(4),
        }
    }
    fn after(&self, c: &Config, _: &[Vec<Measured>], _: Option<[usize; 2]>) -> Vec<Phase> {
        vec![histogram_phase(c)]
    }
}
