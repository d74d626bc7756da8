//! Write saturation: continuous 4 KiB random writes from the purged drive, one-element rounds
//! (a minute each at full duration), for 24 hours or until four times the active range is
//! written, whichever comes first (`--quick`: 40 rounds or four times its region), plotted
//! against time and against bytes written (decimal GB, as the specification counts
//! capacities). The specification sets no steady-state criterion for it: none is claimed.

use super::{figure_of, random_writes_4k, PtsTest, Rounds};
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
        "Write saturation: continuous 4 KiB random writes"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        vec![random_writes_4k(c.threads, c.depth)]
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        vec!["4 KiB random write IOPS".into()]
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
}
