//! Demand intensity / response-time histogram: 4 KiB random writes over the thread count ×
//! queue depth matrix (see [`super::demand`]) until steady state at the highest
//! outstanding I/O; then the demand-intensity curves from the window, and each operating
//! point (most IOPS, midpoint, least outstanding I/O) run ten element times with its
//! response-time histogram.

use super::{demand, random_writes_4k, Phase, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct DemandIntensity;

/// The matrix sets threads and depth.
fn base() -> Element {
    random_writes_4k(0, 0)
}

impl PtsTest for DemandIntensity {
    fn name(&self) -> &'static str {
        "dirth"
    }
    fn stage(&self) -> &'static str {
        "pts-dirth"
    }
    fn title(&self) -> &'static str {
        "Demand intensity and response-time histograms: 4 KiB random writes"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        demand::round(c, base())
    }
    fn tracked_label(&self, c: &Config) -> String {
        let (t, d) = demand::matrix(c);
        format!("4 KiB random write IOPS at T{}Q{}", t[0], d[0])
    }
    fn tracked(&self, c: &Config, round: &[Measured]) -> f64 {
        demand::tracked(c, round)
    }
    fn wipc(&self) -> bool {
        false
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
        let avg = demand::averaged(rounds, window);
        let steps = demand::operating_points(c, base(), &avg)
            .into_iter()
            .map(|(role, element)| Step {
                element,
                time: c.element_time * 10,
                idle_after: std::time::Duration::ZERO,
                histogram: true,
                role,
            })
            .collect();
        vec![Phase {
            name: "response-time histograms at the maximum IOPS, midpoint IOPS and minimum outstanding I/O points".into(),
            steps,
        }]
    }
}
