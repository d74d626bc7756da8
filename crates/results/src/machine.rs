//! What `iolab doctor` finds about the machine, kept with every stored run: one check per
//! setting that moves storage figures, with what a benchmark wants of it.

use serde::{Deserialize, Serialize};

/// How a setting bears on the figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// As a benchmark wants it.
    #[default]
    Ok,
    /// Known to move figures between runs or to hide the device (the run says so first).
    Distorts,
    /// Worth knowing beside the figures; not wrong for every measurement.
    Note,
    /// Not on this machine (no cpufreq in a VM, no NVMe driver loaded).
    NotApplicable,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Distorts => "distorts",
            Verdict::Note => "note",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// One setting: its value here, what a benchmark wants, the verdict, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct MachineCheck {
    pub name: String,
    pub value: String,
    pub want: String,
    pub verdict: Verdict,
    pub advice: String,
}
