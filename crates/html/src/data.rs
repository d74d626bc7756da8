//! What a report needs from the store, read once: each run's record, whole (histograms and
//! series included), plus the percentile curves recomputed from the histograms of the QD1
//! engines and polling vs IRQ jobs.

use iolab_results::review::InfoStep;
use std::collections::BTreeMap;

use iolab_results::{JobRecord, RunRecord};
use iolab_store::{Store, StoreError};

/// Percentiles of the distribution charts: dense toward the tail, as the "nines" axis shows.
pub const CURVE_PERCENTILES: [f64; 15] = [
    50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 99.9995,
    99.9999,
];

/// One run and the curves drawn from its histograms.
#[derive(Debug, Clone)]
pub struct RunData {
    pub detail: RunRecord,
    /// Job id → (percentile, ns) of its total latency (QD1 engines, polling vs IRQ).
    pub curves: BTreeMap<i64, Vec<(f64, f64)>>,
}

impl RunData {
    pub fn id(&self) -> i64 {
        self.detail.id
    }

    pub fn jobs(&self) -> &[JobRecord] {
        &self.detail.jobs
    }

    /// A job's series (`lat_p99_ns` of `read`, `ops_per_sec` of `app`), empty when none.
    pub fn series(&self, job: i64, dir: &str, name: &str) -> &[(i64, f64)] {
        let j = self.detail.jobs.iter().find(|j| j.id == job);
        j.map_or(&[], |j| j.series(dir, name))
    }

    /// `vda`, the disk model, or the target: what the run measured.
    pub fn device(&self) -> String {
        self.disk_model()
            .or_else(|| self.disk_name())
            .unwrap_or_else(|| self.detail.facts().target.unwrap_or("?").to_string())
    }

    /// The disk's model: the review's info step, the run's meta, or a job's.
    fn disk_model(&self) -> Option<String> {
        let d = &self.detail;
        let info: Option<InfoStep> = d.step("info").map(|s| s.typed());
        info.and_then(|i| i.disk?.model)
            .or_else(|| d.facts().disk_model.map(str::to_string))
            .or_else(|| d.jobs.iter().find_map(|j| j.disk_model.clone()))
    }

    /// The disk's kernel name (`nvme0n1`), from the same places.
    fn disk_name(&self) -> Option<String> {
        let d = &self.detail;
        let info: Option<InfoStep> = d.step("info").map(|s| s.typed());
        info.and_then(|i| i.disk?.name)
            .or_else(|| d.facts().disk.map(str::to_string))
            .or_else(|| d.jobs.iter().find_map(|j| j.disk.clone()))
    }

    /// The device's model where known and its kernel name, `INTEL SSDPE21D375GA (nvme0n1)`;
    /// either alone where the other is unknown; the target where neither is.
    pub fn device_named(&self) -> String {
        let known = |v: Option<String>| v.filter(|m| !m.trim().is_empty());
        match (known(self.disk_model()), known(self.disk_name())) {
            (Some(m), Some(n)) if m.trim() != n => format!("{} ({n})", m.trim()),
            (Some(m), _) => m.trim().to_string(),
            (None, Some(n)) => n,
            (None, None) => self.device(),
        }
    }

    /// The day the run began, `2026-11-28` (UTC).
    pub fn day(&self) -> String {
        crate::utc::when(self.detail.started_ms)[..10].to_string()
    }

    /// `run 12 (vda)`: how the run is named in legends when several are overlaid.
    pub fn label(&self) -> String {
        format!("run {} ({})", self.id(), self.device())
    }
}

fn first_direction(j: &JobRecord) -> Option<&str> {
    j.io_directions().into_iter().next()
}

/// The total-latency curve of a job (its completion latency when total is not recorded).
fn curve(j: &JobRecord) -> Option<Vec<(f64, f64)>> {
    let dir = first_direction(j)?;
    let h = j
        .histogram(dir, "lat")
        .or_else(|| j.histogram(dir, "clat"))?;
    Some(h.percentiles_ns(&CURVE_PERCENTILES))
}

impl RunData {
    /// A run record with the curves the report draws from its histograms.
    pub fn from_record(detail: RunRecord) -> RunData {
        let curves = detail
            .jobs
            .iter()
            .filter(|j| matches!(j.step.as_str(), "qd1-engines" | "poll-vs-irq"))
            .filter_map(|j| Some((j.id, curve(j)?)))
            .collect();
        RunData { detail, curves }
    }
}

/// Reads the runs `ids` (in that order) with their curves.
pub fn load(store: &Store, ids: &[i64]) -> Result<Vec<RunData>, StoreError> {
    ids.iter()
        .map(|&id| Ok(RunData::from_record(store.run(id)?)))
        .collect()
}
