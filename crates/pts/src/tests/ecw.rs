//! The enterprise composite workload: random I/O, 40 % reads, twelve transfer sizes from
//! 0.5 KiB to 64 KiB in the specification's shares (4 KiB is 67 %), half the I/Os to the
//! first 5 % of the region, 30 % to the next 15 % and 20 % to the rest; over the thread count
//! × queue depth matrix (see [`super::demand`]) until steady state at the highest
//! outstanding I/O. The report draws its demand-intensity curves.

use super::{demand, PtsTest, Rounds};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct EnterpriseComposite;

fn base() -> Element {
    Element {
        read_pct: 40,
        bs: 65536,
        random: true,
        composite: true,
        ..Element::default()
    }
}

impl PtsTest for EnterpriseComposite {
    fn name(&self) -> &'static str {
        "ecw"
    }
    fn stage(&self) -> &'static str {
        "pts-ecw"
    }
    fn title(&self) -> &'static str {
        "Enterprise composite workload: mixed sizes, 40/60, skewed access"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        demand::round(c, base())
    }
    fn tracked_label(&self, c: &Config) -> String {
        let (t, d) = demand::matrix(c);
        format!("composite IOPS at T{}Q{}", t[0], d[0])
    }
    fn tracked(&self, c: &Config, round: &[Measured]) -> f64 {
        demand::tracked(c, round)
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
}
