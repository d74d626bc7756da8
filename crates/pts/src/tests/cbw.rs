//! The composite block size workload (PTS 2.0's CBW; PTS-E 1.1 called it the enterprise
//! composite workload): random I/O, 40 % reads, twelve transfer sizes from 0.5 KiB to 64 KiB
//! in the specification's shares (4 KiB is 67 %), half the I/Os to the first 5 % of the
//! active range, 30 % to the next 15 % and 20 % to the rest. Preconditioned with the same
//! sizes and ranges as 100 % writes at T32Q32 until steady state, then run over the thread
//! count × queue depth matrix with a pre-write before each round (see [`super::demand`])
//! until steady state at the highest outstanding I/O; the report draws its demand-intensity
//! curves, and its operating points are measured with their histograms.

use super::{demand, Phase, Preconditioning, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct CompositeBlockSize;

fn base() -> Element {
    Element {
        read_pct: 40,
        bs: 65536,
        random: true,
        composite: true,
        ..Element::default()
    }
}

/// The 2.0 public implementation's ceiling for CBW's maximum-IOPS point (5 ms average).
const CEILING: std::time::Duration = std::time::Duration::from_millis(5);

impl PtsTest for CompositeBlockSize {
    fn name(&self) -> &'static str {
        "cbw"
    }
    fn stage(&self) -> &'static str {
        "pts-cbw"
    }
    fn title(&self) -> &'static str {
        "Composite block size workload: mixed sizes, 40/60, skewed access"
    }
    /// An enterprise test.
    fn in_profile(&self, client: bool) -> bool {
        !client
    }
    fn preconditioning(&self, c: &Config) -> Option<Preconditioning> {
        Some(demand::preconditioning(c, base()))
    }
    fn pre_write(&self, c: &Config) -> Option<Step> {
        Some(demand::pre_write(c, base()))
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        demand::round(c, base())
    }
    fn tracked_labels(&self, c: &Config) -> Vec<String> {
        let (t, d) = demand::matrix(c);
        vec![format!("composite IOPS at T{}Q{}", t[0], d[0])]
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
        demand::operating_phases(c, base(), rounds, window, CEILING)
    }
}
