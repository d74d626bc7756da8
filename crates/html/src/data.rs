//! What a report needs from the store, read once: each run whole, plus what `RunDetail`
//! does not carry — the percentile curves recomputed from the stored histograms (QD1 engines
//! and polling vs IRQ) and the per-second series (consistency, db_bench progress, device).

use std::collections::BTreeMap;

use iolab_store::{JobRow, RunDetail, Store, StoreError};

/// Percentiles of the distribution charts: dense toward the tail, as the "nines" axis shows.
pub const CURVE_PERCENTILES: [f64; 15] = [
    50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 99.9995,
    99.9999,
];

/// Series names read for consistency jobs (direction read or write) and kv jobs.
const CONSISTENCY_SERIES: [&str; 4] = ["lat_p50_ns", "lat_p99_ns", "lat_p99.99_ns", "lat_max_ns"];
const KV_SERIES: [(&str, &str); 2] = [("app", "ops_per_sec"), ("disk", "mb_per_sec")];

/// One run and its extra figures.
#[derive(Debug, Clone)]
pub struct RunData {
    pub detail: RunDetail,
    /// Job id → (percentile, ns) of its total latency.
    pub curves: BTreeMap<i64, Vec<(f64, f64)>>,
    /// (job id, direction, name) → (ms, value).
    pub series: BTreeMap<(i64, String, String), Vec<(i64, f64)>>,
}

impl RunData {
    pub fn id(&self) -> i64 {
        self.detail.summary.id
    }

    pub fn jobs(&self) -> &[JobRow] {
        &self.detail.summary.jobs
    }

    pub fn series(&self, job: i64, dir: &str, name: &str) -> &[(i64, f64)] {
        self.series
            .get(&(job, dir.to_string(), name.to_string()))
            .map_or(&[], |v| v.as_slice())
    }

    /// `vda`, the disk model, or the target: what the run measured.
    pub fn device(&self) -> String {
        let d = &self.detail;
        let info = d.step("info").map(|s| &s.data);
        info.and_then(|i| i["disk"]["model"].as_str().map(str::to_string))
            .or_else(|| d.meta["disk_model"].as_str().map(str::to_string))
            .or_else(|| d.summary.jobs.iter().find_map(|j| j.disk_model.clone()))
            .or_else(|| info.and_then(|i| i["disk"]["name"].as_str().map(str::to_string)))
            .or_else(|| d.meta["disk"].as_str().map(str::to_string))
            .or_else(|| d.summary.jobs.iter().find_map(|j| j.disk.clone()))
            .unwrap_or_else(|| d.meta["target"].as_str().unwrap_or("?").to_string())
    }

    /// `run 12 (vda)`: how the run is named in legends when several are overlaid.
    pub fn label(&self) -> String {
        format!("run {} ({})", self.id(), self.device())
    }
}

fn first_direction(j: &JobRow) -> Option<&str> {
    j.directions()
        .into_iter()
        .find(|d| *d == "read" || *d == "write")
}

/// Reads the runs `ids` (in that order) with their curves and series.
pub fn load(store: &Store, ids: &[i64]) -> Result<Vec<RunData>, StoreError> {
    ids.iter()
        .map(|&id| {
            let detail = store.run(id)?;
            let mut curves = BTreeMap::new();
            let mut series = BTreeMap::new();
            for j in &detail.summary.jobs {
                match j.step.as_str() {
                    "qd1-engines" | "poll-vs-irq" => {
                        let Some(dir) = first_direction(j) else {
                            continue;
                        };
                        let c = match store.percentiles(j.id, dir, "lat", &CURVE_PERCENTILES)? {
                            Some(c) => Some(c),
                            None => store.percentiles(j.id, dir, "clat", &CURVE_PERCENTILES)?,
                        };
                        if let Some(c) = c {
                            curves.insert(j.id, c);
                        }
                    }
                    "consistency" => {
                        let Some(dir) = first_direction(j) else {
                            continue;
                        };
                        for name in CONSISTENCY_SERIES {
                            let s = store.series(j.id, dir, name)?;
                            series.insert((j.id, dir.to_string(), name.to_string()), s);
                        }
                    }
                    "kv" => {
                        for (dir, name) in KV_SERIES {
                            let s = store.series(j.id, dir, name)?;
                            series.insert((j.id, dir.to_string(), name.to_string()), s);
                        }
                    }
                    _ => {}
                }
            }
            Ok(RunData {
                detail,
                curves,
                series,
            })
        })
        .collect()
}
