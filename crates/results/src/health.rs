//! The drive's own account of itself around a run: NVMe's SMART / health information log
//! (log page 02h), read before and after and sampled during, and what its changes mean.
//!
//! A result is only as good as the drive's state while it was measured: a drive that
//! throttled (its thermal-management transition counts grew), ran above its warning
//! temperature or raised a critical warning did not measure what a cool one does, and the
//! run says so beside its figures.

use serde::{Deserialize, Serialize};

/// Kelvin to degrees Celsius, as NVMe reports temperatures (0 K means "not reported").
pub fn celsius(kelvin: u16) -> i32 {
    i32::from(kelvin) - 273
}

/// One reading of the health log, with the over-temperature threshold in force then.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HealthSample {
    /// When it was read, in ms from the run's start (the reading before is at 0).
    pub at_ms: u64,
    /// Critical Warning (byte 0): bit 0 spare below threshold, 1 temperature beyond a
    /// threshold, 2 reliability degraded, 3 read-only, 4 volatile backup failed, 5 PMR.
    pub critical_warning: u8,
    /// Composite Temperature, in kelvin.
    pub temperature_k: u16,
    /// Available Spare and its threshold, in percent.
    pub available_spare: u8,
    pub spare_threshold: u8,
    /// Percentage Used (of the drive's rated endurance; may exceed 100).
    pub percent_used: u8,
    pub media_errors: u64,
    /// Data Units Written (thousands of 512-byte units).
    pub data_units_written: u64,
    /// Warning and Critical Composite Temperature Time, in minutes.
    pub warning_temp_minutes: u32,
    pub critical_temp_minutes: u32,
    /// Thermal Management Temperature 1 and 2 Transition Counts.
    pub thermal_transitions: [u32; 2],
    /// Total Time For Thermal Management Temperature 1 and 2, in seconds.
    pub thermal_seconds: [u32; 2],
    /// The composite temperature's over-temperature threshold (Get Features 04h), in
    /// kelvin; 0 when the drive did not say.
    pub threshold_k: u16,
}

/// What a critical-warning bit means, in a reviewer's words.
const WARNING_BITS: [&str; 6] = [
    "available spare below its threshold",
    "temperature beyond its threshold",
    "reliability degraded",
    "media read-only",
    "volatile memory backup failed",
    "persistent memory region unreliable",
];

fn warnings(bits: u8) -> Vec<&'static str> {
    (0..WARNING_BITS.len())
        .filter(|b| bits & (1 << b) != 0)
        .map(|b| WARNING_BITS[b])
        .collect()
}

/// The drive behind a run's targets and what its health log said around the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DriveHealth {
    /// The controller read (`nvme0`), or the disk that has no health log (`vda`).
    pub drive: String,
    /// The disks (or, without one, the targets) of the run's jobs this drive holds: a
    /// job's record carries the health of the drives its files are on.
    pub disks: Vec<String>,
    /// Why there is no health log to read (not an NVMe drive, no permission, ...); the
    /// samples are empty then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub none: Option<String>,
    /// The reading before the run, those during it, and the one after, in time order.
    pub samples: Vec<HealthSample>,
    /// The reading after the run failed (the drive stopped answering): said, not hidden.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_failed: Option<String>,
}

/// What the drive's health says about the run.
#[derive(Debug, Clone, PartialEq)]
pub enum HealthWord {
    /// Nothing changed: no throttling, no warning; the hottest reading.
    Steady {
        peak_c: Option<i32>,
        readings: usize,
    },
    /// The drive changed under the test: each change, in words.
    Changed(Vec<String>),
    /// There is no health log to read, and why.
    None(String),
}

impl HealthWord {
    /// True when the drive changed under the test (its figures are not a cool drive's).
    pub fn changed(&self) -> bool {
        matches!(self, HealthWord::Changed(_))
    }
}

impl std::fmt::Display for HealthWord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HealthWord::Steady { peak_c, readings } => {
                let peak = peak_c.map_or("temperature not reported".into(), |c| {
                    format!("peak {c} °C")
                });
                write!(f, "no throttling, {peak} ({readings} readings)")
            }
            HealthWord::Changed(what) => write!(f, "{}", what.join("; ")),
            HealthWord::None(why) => write!(f, "no health log to read: {why}"),
        }
    }
}

impl DriveHealth {
    /// A drive without a health log to read.
    pub fn none(drive: &str, why: impl Into<String>) -> DriveHealth {
        DriveHealth {
            drive: drive.to_string(),
            disks: vec![drive.to_string()],
            none: Some(why.into()),
            ..DriveHealth::default()
        }
    }

    /// A later pass's readings (a repeat `offset_ms` after this one's start) after these.
    pub fn append(&mut self, later: &DriveHealth, offset_ms: u64) {
        self.samples
            .extend(later.samples.iter().map(|s| HealthSample {
                at_ms: s.at_ms + offset_ms,
                ..*s
            }));
        if later.after_failed.is_some() {
            self.after_failed.clone_from(&later.after_failed);
        }
    }

    /// The hottest reading, in °C.
    pub fn peak_c(&self) -> Option<i32> {
        self.samples
            .iter()
            .filter(|s| s.temperature_k > 0)
            .map(|s| celsius(s.temperature_k))
            .max()
    }

    /// The judgement: throttling (transition counts or throttled time grew), the warning or
    /// critical temperature crossed (its time grew, or a reading at or past the threshold),
    /// a critical warning raised or standing, media errors; else "no throttling, peak N °C".
    pub fn judge(&self) -> HealthWord {
        if let Some(why) = &self.none {
            return HealthWord::None(why.clone());
        }
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return HealthWord::None("the drive gave no reading".into());
        };
        let mut said = Vec::new();
        let grew: Vec<String> = (0..2)
            .filter(|&i| last.thermal_transitions[i] > first.thermal_transitions[i])
            .map(|i| {
                format!(
                    "TMT{} {} → {} ({} s throttled)",
                    i + 1,
                    first.thermal_transitions[i],
                    last.thermal_transitions[i],
                    last.thermal_seconds[i].saturating_sub(first.thermal_seconds[i])
                )
            })
            .collect();
        if !grew.is_empty() {
            said.push(format!(
                "the drive throttled: thermal-management transitions {}",
                grew.join(", ")
            ));
        }
        if let Some(hot) = self.over_threshold() {
            said.push(hot);
        }
        if last.critical_temp_minutes > first.critical_temp_minutes {
            said.push(format!(
                "above its critical temperature for {} min",
                last.critical_temp_minutes - first.critical_temp_minutes
            ));
        }
        let raised = self
            .samples
            .iter()
            .fold(0u8, |acc, s| acc | s.critical_warning);
        let new = raised & !first.critical_warning;
        if new != 0 {
            said.push(format!(
                "critical warning raised during the run: {}",
                warnings(new).join(", ")
            ));
        }
        if first.critical_warning != 0 {
            said.push(format!(
                "critical warning already standing before the run: {}",
                warnings(first.critical_warning).join(", ")
            ));
        }
        if last.media_errors > first.media_errors {
            said.push(format!(
                "{} new media errors",
                last.media_errors - first.media_errors
            ));
        }
        if let Some(e) = &self.after_failed {
            said.push(format!("the reading after the run failed: {e}"));
        }
        match said.is_empty() {
            true => HealthWord::Steady {
                peak_c: self.peak_c(),
                readings: self.samples.len(),
            },
            false => HealthWord::Changed(said),
        }
    }

    /// The warning temperature crossed: its time grew, or a reading at or past the
    /// threshold in force then.
    fn over_threshold(&self) -> Option<String> {
        let first = self.samples.first()?;
        let last = self.samples.last()?;
        let hot = self
            .samples
            .iter()
            .find(|s| s.threshold_k > 0 && s.temperature_k >= s.threshold_k);
        let minutes = last
            .warning_temp_minutes
            .saturating_sub(first.warning_temp_minutes);
        match (hot, minutes) {
            (None, 0) => None,
            (Some(s), _) => Some(format!(
                "crossed its warning temperature: {} °C at {:.1} s, threshold {} °C",
                celsius(s.temperature_k),
                s.at_ms as f64 / 1000.0,
                celsius(s.threshold_k)
            )),
            (None, m) => Some(format!("above its warning temperature for {m} min")),
        }
    }

    /// The composite temperature over the run, for a chart: (ms from the start, °C).
    pub fn temperature_series(&self) -> Vec<(i64, f64)> {
        self.samples
            .iter()
            .filter(|s| s.temperature_k > 0)
            .map(|s| (s.at_ms as i64, f64::from(celsius(s.temperature_k))))
            .collect()
    }
}

/// The one line a run's output carries for its drives: `drive health (nvme0): ...`.
pub fn health_lines(drives: &[DriveHealth]) -> Vec<String> {
    drives
        .iter()
        .map(|d| format!("drive health ({}): {}", d.drive, d.judge()))
        .collect()
}

/// A kept run's drives in one line each, from its jobs' records: every change with the job
/// it happened in; otherwise the run's hottest reading over all its jobs (a review's points
/// are read one by one); or why there was no log to read. Empty for runs kept before iolab
/// read health logs.
pub fn record_lines(jobs: &[crate::JobRecord]) -> Vec<String> {
    let mut drives: Vec<&str> = jobs
        .iter()
        .flat_map(|j| j.health.iter().map(|h| h.drive.as_str()))
        .collect();
    drives.sort_unstable();
    drives.dedup();
    drives
        .into_iter()
        .flat_map(|drive| drive_lines(drive, jobs))
        .collect()
}

fn drive_lines(drive: &str, jobs: &[crate::JobRecord]) -> Vec<String> {
    let of_drive = || {
        jobs.iter()
            .flat_map(move |j| j.health.iter().map(move |h| (j, h)))
            .filter(move |(_, h)| h.drive == drive)
    };
    let changed: Vec<String> = of_drive()
        .filter_map(|(j, h)| match h.judge() {
            w @ HealthWord::Changed(_) => {
                Some(format!("drive health ({drive}) in {}: {w}", j.name))
            }
            _ => None,
        })
        .collect();
    if !changed.is_empty() {
        return changed;
    }
    if let Some((_, h)) = of_drive().find(|(_, h)| h.none.is_some()) {
        return vec![format!("drive health ({drive}): {}", h.judge())];
    }
    let readings = of_drive().map(|(_, h)| h.samples.len()).sum();
    let peak_c = of_drive().filter_map(|(_, h)| h.peak_c()).max();
    vec![format!(
        "drive health ({drive}): {}",
        HealthWord::Steady { peak_c, readings }
    )]
}

/// True when a kept run's drive changed under the test in any of its jobs.
pub fn record_changed(jobs: &[crate::JobRecord]) -> bool {
    jobs.iter()
        .flat_map(|j| &j.health)
        .any(|h| h.judge().changed())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cool(at_ms: u64) -> HealthSample {
        HealthSample {
            at_ms,
            temperature_k: 323,
            threshold_k: 343,
            available_spare: 100,
            spare_threshold: 10,
            ..HealthSample::default()
        }
    }

    fn drive(samples: Vec<HealthSample>) -> DriveHealth {
        DriveHealth {
            drive: "nvme0".into(),
            samples,
            ..DriveHealth::default()
        }
    }

    #[test]
    fn a_steady_drive_says_no_throttling_and_its_peak() {
        let mut hot = cool(10_000);
        hot.temperature_k = 331;
        let d = drive(vec![cool(0), hot, cool(20_000)]);
        assert_eq!(
            d.judge().to_string(),
            "no throttling, peak 58 °C (3 readings)"
        );
        assert!(!d.judge().changed());
    }

    #[test]
    fn grown_transition_counts_are_throttling() {
        let mut after = cool(30_000);
        after.thermal_transitions = [3, 0];
        after.thermal_seconds = [12, 0];
        let w = drive(vec![cool(0), after]).judge();
        assert!(w.changed());
        assert_eq!(
            w.to_string(),
            "the drive throttled: thermal-management transitions TMT1 0 → 3 (12 s throttled)"
        );
    }

    #[test]
    fn a_lowered_threshold_and_its_warning_bit_are_said() {
        let mut mid = cool(4_000);
        mid.threshold_k = 273; // the host lowered it to 0 °C
        mid.critical_warning = 0x02;
        let mut after = mid;
        after.at_ms = 8_000;
        let text = drive(vec![cool(0), mid, after]).judge().to_string();
        assert!(
            text.contains("crossed its warning temperature: 50 °C at 4.0 s, threshold 0 °C"),
            "{text}"
        );
        assert!(
            text.contains(
                "critical warning raised during the run: temperature beyond its threshold"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_standing_warning_is_not_called_new() {
        let mut before = cool(0);
        before.critical_warning = 0x01;
        let mut after = before;
        after.at_ms = 1000;
        let text = drive(vec![before, after]).judge().to_string();
        assert!(!text.contains("raised during"), "{text}");
        assert!(text.contains("already standing before the run: available spare"));
    }

    #[test]
    fn no_log_says_why() {
        let d = DriveHealth::none("vda", "vda is not an NVMe drive");
        assert_eq!(
            health_lines(&[d]),
            ["drive health (vda): no health log to read: vda is not an NVMe drive"]
        );
    }

    #[test]
    fn a_run_says_its_hottest_reading_or_each_change_with_its_job() {
        let job = |name: &str, h: DriveHealth| crate::JobRecord {
            name: name.into(),
            health: vec![h],
            ..crate::JobRecord::default()
        };
        let mut warm = cool(1000);
        warm.temperature_k = 333;
        let jobs = vec![
            job("a", drive(vec![cool(0), cool(1000)])),
            job("b", drive(vec![cool(0), warm])),
        ];
        assert_eq!(
            record_lines(&jobs),
            ["drive health (nvme0): no throttling, peak 60 °C (4 readings)"]
        );
        assert!(!record_changed(&jobs));
        let mut hot = warm;
        hot.critical_warning = 2;
        let jobs = vec![jobs[0].clone(), job("b", drive(vec![cool(0), hot]))];
        assert_eq!(
            record_lines(&jobs),
            [
                "drive health (nvme0) in b: critical warning raised during the run: temperature \
              beyond its threshold"
            ]
        );
        assert!(record_changed(&jobs));
        assert!(record_lines(&[crate::JobRecord::default()]).is_empty());
    }

    #[test]
    fn records_round_trip_through_json() {
        let d = drive(vec![cool(0), cool(5)]);
        let back: DriveHealth = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
    }
}
