//! Demand intensity / response-time histogram: random I/O of the operator's block size and
//! read/write mix (by default the 2.0 public implementation's 8 KiB at 65/35), preconditioned
//! as 100 % writes at T32Q32 until steady state, then over the thread count × queue depth
//! matrix with a pre-write before each round (see [`super::demand`]) until steady state at
//! the highest outstanding I/O; then the demand-intensity curves from the window, and each
//! operating point (the most IOPS under the operator's response-time ceiling, the midpoint,
//! T1Q1) pre-written and measured with its response-time histogram.

use std::time::Duration;

use super::demand::DemandTest;
use crate::config::Config;
use crate::element::Element;

pub static DIRTH: DemandTest = DemandTest {
    name: "dirth",
    stage: "pts-dirth",
    title: "Demand intensity and response-time histograms",
    base,
    ceiling,
};

/// The operator's stimulus.
fn base(c: &Config) -> Element {
    Element {
        read_pct: c.dirth.read_pct,
        bs: c.dirth.bs,
        random: true,
        ..Element::default()
    }
}

fn ceiling(c: &Config) -> Duration {
    c.dirth.ceiling
}
