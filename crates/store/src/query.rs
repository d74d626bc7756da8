//! Reading runs back: the history list, one run whole, and percentiles recomputed from a
//! stored histogram.

use rusqlite::{params, OptionalExtension};
use serde_json::{json, Value};

use iolab_stats::{Clock, LatencyHistogram};

use crate::{StepRecord, Store, StoreError};

/// One job of a run, with its metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub id: i64,
    pub idx: i64,
    pub name: String,
    pub group_id: i64,
    pub description: String,
    pub engine: String,
    pub iodepth: i64,
    pub rw: String,
    pub block_size: i64,
    pub target: String,
    pub disk: Option<String>,
    pub disk_model: Option<String>,
    pub runtime_ns: i64,
    pub notes: Vec<String>,
    /// The review step that measured it ('' outside reviews).
    pub step: String,
    /// CPU it used: user/sys/io-wq/sqpoll ns, context switches, IOPS per CPU-second (JSON).
    pub cpu: Value,
    /// (direction, name, value), in insertion order.
    pub metrics: Vec<(String, String, f64)>,
}

impl JobRow {
    /// CPU time of every kind as a percentage of one core over the job's runtime.
    pub fn cpu_percent(&self) -> Option<f64> {
        let ns: f64 = ["user_ns", "sys_ns", "io_wq_ns", "sqpoll_ns"]
            .iter()
            .filter_map(|k| self.cpu[*k].as_f64())
            .sum();
        (self.runtime_ns > 0 && self.cpu.is_object()).then(|| ns * 100.0 / self.runtime_ns as f64)
    }

    pub fn metric(&self, dir: &str, name: &str) -> Option<f64> {
        self.metrics
            .iter()
            .find(|(d, n, _)| d == dir && n == name)
            .map(|m| m.2)
    }

    /// The directions with results (read, write, sync), in order.
    pub fn directions(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for (d, _, _) in &self.metrics {
            if !v.contains(&d.as_str()) {
                v.push(d);
            }
        }
        v
    }

    pub fn to_json(&self) -> Value {
        let mut dirs = serde_json::Map::new();
        for d in self.directions() {
            let m: serde_json::Map<String, Value> = self
                .metrics
                .iter()
                .filter(|(dd, _, _)| dd == d)
                .map(|(_, n, v)| (n.clone(), json!(v)))
                .collect();
            dirs.insert(d.to_string(), Value::Object(m));
        }
        json!({
            "id": self.id,
            "name": self.name,
            "groupid": self.group_id,
            "description": self.description,
            "engine": self.engine,
            "iodepth": self.iodepth,
            "rw": self.rw,
            "block_size": self.block_size,
            "target": self.target,
            "disk": self.disk,
            "disk_model": self.disk_model,
            "runtime_ns": self.runtime_ns,
            "notes": self.notes,
            "step": self.step,
            "cpu": self.cpu,
            "metrics": dirs,
        })
    }
}

/// A run as `iolab history` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub id: i64,
    pub kind: String,
    pub status: String,
    pub started_ms: i64,
    pub finished_ms: Option<i64>,
    pub command: String,
    pub jobs: Vec<JobRow>,
}

impl RunSummary {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "started_ms": self.started_ms,
            "finished_ms": self.finished_ms,
            "command": self.command,
            "jobs": self.jobs.iter().map(JobRow::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A run with its host and clock (`iolab show`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunDetail {
    pub summary: RunSummary,
    pub iolab_version: String,
    pub host: Value,
    pub clock_source: Option<String>,
    /// Run-level facts (a review's profile, target and device facts); `{}` for plain runs.
    pub meta: Value,
    pub steps: Vec<StepRecord>,
}

impl RunDetail {
    pub fn to_json(&self) -> Value {
        let mut v = self.summary.to_json();
        v["iolab_version"] = json!(self.iolab_version);
        v["host"] = self.host.clone();
        v["clock_source"] = json!(self.clock_source);
        v["meta"] = self.meta.clone();
        v["steps"] = self
            .steps
            .iter()
            .map(|s| {
                json!({
                    "name": s.name,
                    "status": s.status,
                    "reason": s.reason,
                    "started_ms": s.started_ms,
                    "finished_ms": s.finished_ms,
                    "data": s.data,
                })
            })
            .collect();
        v
    }

    /// The step named `name`, if the run has it.
    pub fn step(&self, name: &str) -> Option<&StepRecord> {
        self.steps.iter().find(|s| s.name == name)
    }
}

/// A run's summary (without its jobs) from a row whose first six columns are id, kind,
/// status, started_ms, finished_ms, command.
fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: r.get(0)?,
        kind: r.get(1)?,
        status: r.get(2)?,
        started_ms: r.get(3)?,
        finished_ms: r.get(4)?,
        command: r.get(5)?,
        jobs: Vec::new(),
    })
}

impl Store {
    /// The newest `limit` runs, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<RunSummary>, StoreError> {
        let mut stmt = self.conn().prepare(
            "SELECT id, kind, status, started_ms, finished_ms, command FROM runs
             ORDER BY id DESC LIMIT ?1",
        )?;
        let runs = stmt
            .query_map([limit as i64], summary_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        runs.into_iter()
            .map(|mut s| {
                s.jobs = self.jobs(s.id)?;
                Ok(s)
            })
            .collect()
    }

    /// One run, whole.
    pub fn run(&self, id: i64) -> Result<RunDetail, StoreError> {
        let row = self
            .conn()
            .query_row(
                "SELECT id, kind, status, started_ms, finished_ms, command, iolab_version, host,
                        clock_source, meta
                 FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        summary_from_row(r)?,
                        r.get::<_, String>(6)?,
                        r.get::<_, String>(7)?,
                        r.get::<_, Option<String>>(8)?,
                        r.get::<_, String>(9)?,
                    ))
                },
            )
            .optional()?
            .ok_or(StoreError::NoRun(id))?;
        let (mut summary, iolab_version, host, clock_source, meta) = row;
        summary.jobs = self.jobs(id)?;
        Ok(RunDetail {
            summary,
            iolab_version,
            host: serde_json::from_str(&host).unwrap_or(Value::Null),
            clock_source,
            meta: serde_json::from_str(&meta).unwrap_or(Value::Null),
            steps: self.steps(id)?,
        })
    }

    /// A run's review steps, in the order they ran.
    pub fn steps(&self, run: i64) -> Result<Vec<StepRecord>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT name, status, reason, data, started_ms, finished_ms FROM steps
             WHERE run_id = ?1 ORDER BY idx",
        )?;
        let rows = stmt
            .query_map([run], |r| {
                Ok(StepRecord {
                    name: r.get(0)?,
                    status: r.get(1)?,
                    reason: r.get(2)?,
                    data: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or(Value::Null),
                    started_ms: r.get(4)?,
                    finished_ms: r.get(5)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// A series of a job (`iops`, `bw_bytes`, `lat_p99_ns`, ...) as (t_ms, value).
    pub fn series(
        &self,
        job_id: i64,
        direction: &str,
        name: &str,
    ) -> Result<Vec<(i64, f64)>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT t_ms, value FROM series WHERE job_id = ?1 AND direction = ?2 AND name = ?3
             ORDER BY t_ms",
        )?;
        let rows = stmt
            .query_map(params![job_id, direction, name], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    fn jobs(&self, run: i64) -> Result<Vec<JobRow>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, idx, name, group_id, description, engine, iodepth, rw, block_size,
                    target, disk, disk_model, runtime_ns, notes, step, cpu
             FROM jobs WHERE run_id = ?1 ORDER BY idx",
        )?;
        let jobs = stmt
            .query_map([run], |r| {
                Ok(JobRow {
                    id: r.get(0)?,
                    idx: r.get(1)?,
                    name: r.get(2)?,
                    group_id: r.get(3)?,
                    description: r.get(4)?,
                    engine: r.get(5)?,
                    iodepth: r.get(6)?,
                    rw: r.get(7)?,
                    block_size: r.get(8)?,
                    target: r.get(9)?,
                    disk: r.get(10)?,
                    disk_model: r.get(11)?,
                    runtime_ns: r.get(12)?,
                    notes: serde_json::from_str(&r.get::<_, String>(13)?).unwrap_or_default(),
                    step: r.get(14)?,
                    cpu: serde_json::from_str(&r.get::<_, String>(15)?).unwrap_or(Value::Null),
                    metrics: Vec::new(),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut metrics = self.conn().prepare_cached(
            "SELECT direction, name, value FROM metrics WHERE job_id = ?1 ORDER BY rowid",
        )?;
        jobs.into_iter()
            .map(|mut j| {
                j.metrics = metrics
                    .query_map([j.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(j)
            })
            .collect()
    }

    /// Percentiles (in ns) recomputed from a stored histogram: any percentile, not only the
    /// ones stored as metrics.
    pub fn percentiles(
        &self,
        job_id: i64,
        direction: &str,
        latency: &str,
        pcts: &[f64],
    ) -> Result<Option<Vec<(f64, f64)>>, StoreError> {
        let row: Option<(f64, Vec<u8>)> = self
            .conn()
            .query_row(
                "SELECT ticks_per_ns, data FROM histograms
                 WHERE job_id = ?1 AND direction = ?2 AND latency = ?3",
                params![job_id, direction, latency],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(row.and_then(|(tpn, data)| {
            let h = LatencyHistogram::from_bytes(&data)?;
            let clock = Clock::with_ticks_per_ns(tpn);
            Some(h.summarize(&clock, pcts).percentiles_ns)
        }))
    }
}
