//! Demand intensity / response-time histogram: random I/O of the operator's block size and
//! read/write mix (by default the 2.0 public implementation's 8 KiB at 65/35), preconditioned
//! as 100 % writes at T32Q32 until steady state, then over the thread count × queue depth
//! matrix with a pre-write before each round (see [`super::demand`]) until steady state at
//! the highest outstanding I/O; then the demand-intensity curves from the window, and each
//! operating point (the most IOPS under the response-time ceiling, the midpoint, T1Q1)
//! pre-written and measured with its response-time histogram.

use super::{demand, Phase, Preconditioning, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct DemandIntensity;

/// The operator's stimulus; the matrix sets threads and depth.
fn base(c: &Config) -> Element {
    Element {
        read_pct: c.dirth.read_pct,
        bs: c.dirth.bs,
        random: true,
        ..Element::default()
    }
}

impl PtsTest for DemandIntensity {
    fn name(&self) -> &'static str {
        "dirth"
    }
    fn stage(&self) -> &'static str {
        "pts-dirth"
    }
    fn title(&self) -> &'static str {
        "Demand intensity and response-time histograms"
    }
    /// An enterprise test.
    fn in_profile(&self, client: bool) -> bool {
        !client
    }
    fn preconditioning(&self, c: &Config) -> Option<Preconditioning> {
        Some(demand::preconditioning(c, base(c)))
    }
    fn pre_write(&self, c: &Config) -> Option<Step> {
        Some(demand::pre_write(c, base(c)))
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        demand::round(c, base(c))
    }
    fn tracked_labels(&self, c: &Config) -> Vec<String> {
        let (t, d) = demand::matrix(c);
        let b = base(c);
        vec![format!(
            "{} random {}/{} IOPS at T{}Q{}",
            crate::element::size_name(b.bs),
            b.read_pct,
            100 - b.read_pct,
            t[0],
            d[0]
        )]
    }
    fn tracked(&self, c: &Config, round: &[Measured]) -> Vec<f64> {
        vec![demand::tracked(c, round)]
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
    fn after(
        &self,
        c: &Config,
        rounds: &[Vec<Measured>],
        window: Option<[usize; 2]>,
    ) -> Vec<Phase> {
        demand::operating_phases(c, base(c), rounds, window, c.dirth.ceiling)
    }
}
