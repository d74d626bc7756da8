//! Host idle recovery: 4 KiB random writes from the purged drive until steady state, in rounds
//! of 30 one-minute intervals (the 2.0 public implementation's; the rule tracks each round's
//! last interval; `--quick`: 4 intervals a round), then five wait states. In
//! each, bursts of writes (5 s) alternate with host idle of 1, 2, 3, 5 and 10 times the
//! burst (5 to 50 s), 360 times, and then the writes go on without idle for 360 bursts, a
//! return to the baseline. Whether the drive uses idle time to recover shows as the bursts'
//! IOPS against the baseline. `--quick`: bursts of 250 ms, 8 of each.

use std::time::Duration;

use super::{random_writes_4k, Phase, PtsTest, Rounds, Step};
use crate::config::Config;
use crate::element::{Element, Measured};

pub struct HostIdleRecovery;

/// Idle after each burst, in bursts.
pub const WAIT_STATES: [u32; 5] = [1, 2, 3, 5, 10];

impl HostIdleRecovery {
    /// One-minute intervals a preconditioning round.
    fn intervals(c: &Config) -> usize {
        match c.quick {
            true => 4,
            false => 30,
        }
    }

    fn burst(c: &Config) -> (Duration, usize) {
        match c.quick {
            true => (Duration::from_millis(250), 8),
            false => (Duration::from_secs(5), 360),
        }
    }
}

impl PtsTest for HostIdleRecovery {
    fn name(&self) -> &'static str {
        "hir"
    }
    fn stage(&self) -> &'static str {
        "pts-hir"
    }
    fn title(&self) -> &'static str {
        "Host idle recovery: 4 KiB random write bursts between idle"
    }
    fn round(&self, c: &Config) -> Vec<Element> {
        vec![random_writes_4k(c.threads, c.depth); Self::intervals(c)]
    }
    fn tracked_labels(&self, _: &Config) -> Vec<String> {
        vec!["4 KiB random write IOPS (each round's last interval)".into()]
    }
    fn tracked(&self, _: &Config, round: &[Measured]) -> Vec<f64> {
        vec![round.last().map_or(0.0, |m| m.iops)]
    }
    fn wipc(&self, _: &Config) -> Option<Element> {
        None
    }
    /// An enterprise test.
    fn in_profile(&self, client: bool) -> bool {
        !client
    }
    fn rounds(&self, _: &Config) -> Rounds {
        Rounds::ToSteadyState
    }
    fn after(&self, c: &Config, _: &[Vec<Measured>], _: Option<[usize; 2]>) -> Vec<Phase> {
        let (burst, n) = Self::burst(c);
        let element = self.round(c)[0];
        let step = |idle_after| Step {
            element,
            time: burst,
            idle_after,
            histogram: false,
            role: "",
        };
        WAIT_STATES
            .iter()
            .flat_map(|&w| {
                let idle = burst * w;
                [
                    Phase {
                        name: format!(
                            "wait state {w}: {} s writes, {} s idle",
                            burst.as_secs_f64(),
                            idle.as_secs_f64()
                        ),
                        steps: vec![step(idle); n],
                    },
                    Phase {
                        name: format!("wait state {w}: return to baseline"),
                        steps: vec![step(Duration::ZERO); n],
                    },
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At full duration: 5 wait states, each 360 bursts with idle and 360 without; 15 h
    /// 30 min in all (360 × (10 + 15 + 20 + 30 + 55) s + 5 × 1800 s).
    #[test]
    fn the_wait_states_take_the_specs_time() {
        let c = crate::config::test_config(false);
        let p = HostIdleRecovery.after(&c, &[], None);
        assert_eq!(p.len(), 10);
        assert_eq!(p[0].steps.len(), 360);
        assert_eq!(p[8].steps[0].idle_after, Duration::from_secs(50));
        let total: Duration = p.iter().map(|p| p.duration()).sum();
        assert_eq!(total, Duration::from_secs(55_800));
    }
}
