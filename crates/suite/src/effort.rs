//! How long each step measures. Three profiles of effort: `quick` (the whole suite in about
//! two minutes on the default scratch file: enough to see every table, not to trust the
//! third digit), `standard` (about half an hour) and `full` (the seeds' durations: 10 s ramp,
//! 240 s a point, an hour of consistency per direction). Any step's runtime and ramp can be
//! overridden, for all steps (`10s`) or per step (`consistency:1h,qd-sweep:20s`).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::Step;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    Quick,
    Standard,
    Full,
}

/// Ramp (not measured) and measured time of each point of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepTiming {
    pub ramp: Duration,
    pub runtime: Duration,
}

impl StepTiming {
    pub fn per_point(&self) -> Duration {
        self.ramp + self.runtime
    }
}

const fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

impl Effort {
    pub fn name(self) -> &'static str {
        match self {
            Effort::Quick => "quick",
            Effort::Standard => "standard",
            Effort::Full => "full",
        }
    }

    /// The profile's timing of one point of `step`.
    pub fn timing(self, step: Step) -> StepTiming {
        let (ramp, runtime) = match (self, step) {
            (Effort::Quick, Step::Consistency) => (ms(500), ms(5_000)),
            (Effort::Quick, _) => (ms(200), ms(500)),
            (Effort::Standard, Step::Consistency) => (ms(2_000), ms(60_000)),
            (Effort::Standard, _) => (ms(1_000), ms(10_000)),
            (Effort::Full, Step::Consistency) => (ms(10_000), ms(3_600_000)),
            (Effort::Full, _) => (ms(10_000), ms(240_000)),
        };
        StepTiming { ramp, runtime }
    }

    /// Size of the scratch file when no target is given.
    pub fn scratch_bytes(self) -> u64 {
        match self {
            Effort::Quick => 256 << 20,
            Effort::Standard => 1 << 30,
            Effort::Full => 4 << 30,
        }
    }

    /// Deepest queue the sweep goes to.
    pub fn max_qd(self) -> u32 {
        match self {
            Effort::Quick => 32,
            _ => 128,
        }
    }

    /// Full sequential writes of the precondition step.
    pub fn precondition_passes(self) -> u32 {
        match self {
            Effort::Quick => 1,
            _ => 2,
        }
    }
}

/// A time for every step, or for some steps only: `10s`, `consistency:1h`, or both in a
/// comma-separated list (`5s,consistency:1m`: 5 s everywhere but consistency).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerStep {
    pub all: Option<Duration>,
    pub steps: BTreeMap<Step, Duration>,
}

impl PerStep {
    /// Parses the list with `parse_time` for each value (fio's units).
    pub fn parse(
        text: &str,
        parse_time: impl Fn(&str) -> Result<Duration, String>,
    ) -> Result<PerStep, String> {
        let mut p = PerStep::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.split_once(':') {
                Some((step, t)) => {
                    let s: Step = step.trim().parse()?;
                    p.steps.insert(s, parse_time(t.trim())?);
                }
                None => p.all = Some(parse_time(item)?),
            }
        }
        Ok(p)
    }

    pub fn get(&self, step: Step) -> Option<Duration> {
        self.steps.get(&step).copied().or(self.all)
    }
}

/// The profile's timing with the user's overrides applied.
pub fn timing(effort: Effort, runtime: &PerStep, ramp: &PerStep, step: Step) -> StepTiming {
    let base = effort.timing(step);
    StepTiming {
        ramp: ramp.get(step).unwrap_or(base.ramp),
        runtime: runtime.get(step).unwrap_or(base.runtime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: &str) -> Result<Duration, String> {
        s.trim_end_matches('s')
            .parse::<u64>()
            .map(Duration::from_secs)
            .map_err(|_| format!("bad time '{s}'"))
    }

    #[test]
    fn per_step_overrides_beat_the_all_steps_value() {
        let p = PerStep::parse("5s, consistency:60s", secs).unwrap();
        assert_eq!(p.get(Step::QdSweep), Some(Duration::from_secs(5)));
        assert_eq!(p.get(Step::Consistency), Some(Duration::from_secs(60)));
        let t = timing(Effort::Quick, &p, &PerStep::default(), Step::Profiles);
        assert_eq!(t.runtime, Duration::from_secs(5));
        assert_eq!(t.ramp, Effort::Quick.timing(Step::Profiles).ramp);
        let e = PerStep::parse("sweep:5s", secs).unwrap_err();
        assert!(e.contains("unknown step 'sweep'"), "{e}");
        assert!(PerStep::parse("consistency:x", secs).is_err());
    }

    #[test]
    fn full_is_the_seeds_durations() {
        let t = Effort::Full.timing(Step::Qd1Engines);
        assert_eq!((t.ramp, t.runtime), (ms(10_000), ms(240_000)));
    }
}
