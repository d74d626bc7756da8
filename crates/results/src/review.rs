//! What a review's steps keep, typed: the QD1 table's cells, the queue-depth sweep's points
//! and saturation, the transfer-size and profile points. A step builds its data once as
//! these types and stores them (serde); the page, `show`, `history`, `compare` and `export`
//! read them back as these types, so a renamed field is a compiler error in every reader.
//!
//! Every struct takes `#[serde(default)]` and figures are `Option<f64>`: a step stored by
//! an older build, or a figure that was not a number (stored as `null`), still opens.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::conclusions::{Marks, Note};
use crate::repeats::Interval;

/// A step's stored data as `T`; `T::default()` (nothing) for data that is not `T`'s shape.
pub fn read<T: DeserializeOwned + Default>(data: &serde_json::Value) -> T {
    // Read in place: a stored step can be large, and is never copied to be read.
    T::deserialize(data).unwrap_or_default()
}

/// One point's figures (its first direction), as every step keeps them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Figures {
    pub iops: Option<f64>,
    pub bw_bytes: Option<f64>,
    pub mean_ns: Option<f64>,
    pub p50_ns: Option<f64>,
    pub p99_ns: Option<f64>,
    #[serde(rename = "p99.99_ns")]
    pub p9999_ns: Option<f64>,
    #[serde(rename = "p99.999_ns")]
    pub p99999_ns: Option<f64>,
    /// I/Os measured: how many lie beyond a tail percentile.
    pub ios: Option<f64>,
    /// A column measured elsewhere (`--with`) carries its own CPU figures; a cell measured
    /// here has them in its job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iops_per_cpu_sec: Option<f64>,
}

/// A cell measured in rounds: how many, and each figure's 95 % interval by the rounds'
/// names (`iops`, `lat_mean_ns`, `lat_p99_ns`, `lat_p99.999_ns`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Rounds {
    pub count: usize,
    pub intervals: BTreeMap<String, Interval>,
}

impl Rounds {
    /// A figure's 95 % interval (low, high), where the rounds keep one.
    pub fn interval(&self, name: &str) -> Option<(f64, f64)> {
        let i = self.intervals.get(name)?;
        (i.ci95_low.is_finite() && i.ci95_high.is_finite()).then_some((i.ci95_low, i.ci95_high))
    }
}

/// One cell of the QD1 table: a path on a workload, measured, not available (and why), or
/// imported from another run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Qd1Cell {
    /// The column's label (`pvsync2+hipri`, `io_uring`, `null`).
    pub engine: String,
    /// `randread` or `randwrite`.
    pub rw: String,
    /// The workload's title (`4KiB Random Read`); absent in runs stored before cells kept it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<Figures>,
    /// The path served the I/O otherwise than asked (hipri by interrupts), in the kernel's
    /// words: shown, never marked best.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<Rounds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// The run a column measured elsewhere came from (`iolab qd1 --with RUN`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_from: Option<i64>,
}

impl Qd1Cell {
    /// The null engine does no I/O: shown for reference, never marked.
    pub fn is_reference(&self) -> bool {
        self.engine == "null"
    }
}

/// The QD1 step's data: its cells, what it noticed, and what its rows marked.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Qd1Step {
    pub cells: Vec<Qd1Cell>,
    /// The best asynchronous path the later steps ran on.
    pub best_async: Option<String>,
    /// `None` in runs stored before the step kept its notes.
    pub notes: Option<Vec<Note>>,
    pub marks: Option<Marks>,
}

/// One point of the queue-depth sweep.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepPoint {
    pub rw: String,
    pub qd: u32,
    pub figures: Option<Figures>,
    pub unavailable: Option<String>,
}

/// Where a workload saturates, or why that is undetermined.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Saturation {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_qd: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd_range: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<String>,
}

/// The queue-depth sweep's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepStep {
    pub engine: String,
    pub tolerance_pct: f64,
    pub points: Vec<SweepPoint>,
    /// By workload (`randread`, `randwrite`).
    pub saturation: BTreeMap<String, Saturation>,
    /// What the terminal said of the sweep: an undetermined saturation, a disagreement with
    /// the QD1 table.
    pub caveats: Vec<String>,
}

/// One point of the transfer-size step.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TransferPoint {
    pub bs: u32,
    /// The series (`rand read`, `rand read 512B-al`, `seq write`, ...).
    pub variant: String,
    pub rw: String,
    pub offset_align: u32,
    pub figures: Option<Figures>,
    /// Why the point has no figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The transfer-size step's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TransferStep {
    pub engine: String,
    pub points: Vec<TransferPoint>,
}

/// One point of the hosting review's profiles.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProfilePoint {
    pub profile: String,
    pub bs: u32,
    pub qd: u32,
    pub rw: String,
    pub figures: Option<Figures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The profiles step's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProfilesStep {
    pub engine: String,
    pub points: Vec<ProfilePoint>,
}

/// One load of the open-loop load step: what was offered, what was achieved, and how the
/// I/O fared (fio's latency from submission; the response time from when it was due).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadPoint {
    /// The load as a share of the peak (0.5 = half).
    pub share: f64,
    pub offered_iops: f64,
    pub achieved_iops: f64,
    pub lat_mean_ns: Option<f64>,
    pub lat_p99_ns: Option<f64>,
    #[serde(rename = "lat_p99.9_ns")]
    pub lat_p999_ns: Option<f64>,
    #[serde(rename = "lat_p99.99_ns")]
    pub lat_p9999_ns: Option<f64>,
    pub response_mean_ns: Option<f64>,
    pub response_p99_ns: Option<f64>,
    #[serde(rename = "response_p99.9_ns")]
    pub response_p999_ns: Option<f64>,
    #[serde(rename = "response_p99.99_ns")]
    pub response_p9999_ns: Option<f64>,
    pub response_slo_ns: Option<f64>,
    pub lateness_p99_ns: Option<f64>,
    pub late_for_slot: Option<u64>,
    /// The load was carried (the device kept up with the schedule).
    pub carried: bool,
    /// Who fell behind where it was not carried (`device`, `generator`).
    pub behind: Option<String>,
    /// The generator's threads' time waiting for a CPU during the point.
    pub generator_cpu_wait_ns: Option<u64>,
}

/// A load point named by the step's conclusions (the knee, the objective's point).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadMark {
    pub share: f64,
    pub offered_iops: Option<f64>,
    pub achieved_iops: Option<f64>,
    /// The knee's response p99.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_p99_ns: Option<f64>,
    /// The objective's point's response time at the objective's percentile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_ns: Option<f64>,
}

/// One workload's load curve.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadCurve {
    pub rw: String,
    pub peak_iops: Option<f64>,
    pub peak_from: Option<String>,
    pub unavailable: Option<String>,
    pub points: Vec<LoadPoint>,
    /// How busy the machine was while the curve was measured, in a line.
    pub busy: String,
    pub caveats: Vec<String>,
    pub knee: Option<LoadMark>,
    pub slo: Option<LoadMark>,
}

/// The objective a load step judged against.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadObjective {
    pub label: String,
    pub percentile: f64,
    pub max_ns: f64,
}

/// The load step's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadStep {
    pub engine: String,
    pub iodepth: u32,
    pub knee_factor: f64,
    pub slo: Option<LoadObjective>,
    pub curves: Vec<LoadCurve>,
}

/// One path of the software-floor step: the harness's own cost, and the kernel's and the
/// device's shares of the rest.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FloorRow {
    pub engine: String,
    pub harness_ns: Option<f64>,
    /// `None` where the difference came out below zero (within noise).
    pub kernel_ns: Option<f64>,
    pub device_ns: Option<f64>,
    /// The shares that came out below zero.
    pub within_noise: Vec<String>,
    pub target_ns: Option<f64>,
    pub ram_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// The software-floor step's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FloorStep {
    pub null_ns: Option<f64>,
    pub ram_device: Option<String>,
    pub engines: Vec<FloorRow>,
    pub notes: Vec<String>,
}

/// The disk under the target, as the info step found it in sysfs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InfoDisk {
    pub name: Option<String>,
    pub model: Option<String>,
    pub capacity_bytes: Option<u64>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub nr_requests: Option<u64>,
    pub io_poll: Option<bool>,
    pub nvme_poll_queues: Option<u64>,
    pub write_cache: Option<String>,
    pub discard_max_bytes: Option<u64>,
}

/// The host as the info step measured it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InfoHost {
    pub hostname: Option<String>,
    pub cpu_model: Option<String>,
    pub cpus: Option<u64>,
    pub governor: Option<String>,
    pub kernel: Option<String>,
    pub iolab_version: Option<String>,
    pub clock_source: Option<String>,
    pub kernel_clocksource: Option<String>,
}

/// The info step's data: the target, its disk and the host.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct InfoStep {
    pub target: Option<String>,
    /// `File`, `BlockDevice`, `NvmeGeneric`, `SpdkNvme`.
    pub target_kind: Option<String>,
    pub filesystem: Option<String>,
    pub target_bytes: Option<u64>,
    pub logical_block_size: Option<u64>,
    pub disk: Option<InfoDisk>,
    pub host: Option<InfoHost>,
}

/// One sequential write pass of the precondition step.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Pass {
    pub pass: u32,
    pub bytes: u64,
    pub mb_per_sec: f64,
}

/// The precondition step's data.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PreconditionStep {
    pub deallocated: bool,
    /// What deallocating did, or why it did not.
    pub deallocate_note: Option<String>,
    pub region_bytes: u64,
    pub passes: Vec<Pass>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell as today's main stores it (`p99.999_ns`, a NaN stored as null, repeats) reads
    /// back typed; another step's data reads as nothing.
    #[test]
    fn a_stored_qd1_cell_reads_back() {
        let v = serde_json::json!({
            "cells": [{"engine": "psync", "rw": "randread", "workload": "4KiB Random Read",
                "figures": {"iops": 1000.0, "mean_ns": 900.0, "p99.999_ns": 5000.0, "p99_ns": null, "ios": 3000.0},
                "fallback": null,
                "repeats": {"count": 3, "intervals": {"iops": {"n": 3, "mean": 1000.0, "stddev": 10.0,
                    "ci95_low": 975.0, "ci95_high": 1025.0, "min": 990.0, "max": 1010.0}}}}],
            "best_async": "io_uring",
        });
        let s: Qd1Step = read(&v);
        let c = &s.cells[0];
        let f = c.figures.unwrap();
        assert_eq!(
            (f.iops, f.p99999_ns, f.p99_ns),
            (Some(1000.0), Some(5000.0), None)
        );
        assert_eq!(c.fallback, None);
        assert_eq!(
            c.repeats.as_ref().unwrap().interval("iops"),
            Some((975.0, 1025.0))
        );
        assert!(s.notes.is_none());
        let other: Qd1Step = read(&serde_json::json!({"cells": "not cells"}));
        assert!(other.cells.is_empty());
    }
}
