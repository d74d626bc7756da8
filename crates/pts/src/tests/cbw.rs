//! The composite block size workload (PTS 2.0's CBW; PTS-E 1.1 called it the enterprise
//! composite workload): random I/O, 40 % reads, twelve transfer sizes from 0.5 KiB to 64 KiB
//! in the specification's shares (4 KiB is 67 %), half the I/Os to the first 5 % of the
//! active range, 30 % to the next 15 % and 20 % to the rest. Preconditioned with the same
//! sizes and ranges as 100 % writes at T32Q32 until steady state, then run over the thread
//! count × queue depth matrix with a pre-write before each round (see [`super::demand`])
//! until steady state at the highest outstanding I/O; the report draws its demand-intensity
//! curves, and its operating points are measured with their histograms.

use std::time::Duration;

use super::demand::DemandTest;
use crate::config::Config;
use crate::element::Element;

pub static CBW: DemandTest = DemandTest {
    name: "cbw",
    stage: "pts-cbw",
    title: "Composite block size workload: mixed sizes, 40/60, skewed access",
    base,
    ceiling,
};

fn base(_: &Config) -> Element {
    Element {
        read_pct: 40,
        bs: 65536,
        random: true,
        composite: true,
        ..Element::default()
    }
}

/// The 2.0 public implementation's ceiling for the maximum-IOPS point: a 5 ms average.
fn ceiling(_: &Config) -> Duration {
    Duration::from_millis(5)
}
