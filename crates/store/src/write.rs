//! Writing records: a job with its figures, histograms and series; a whole run (an import).
//! Every job, measured here or imported, goes through [`insert_job`], so a run reads back the
//! same whichever way it came in.

use rusqlite::{params, Transaction};
use serde_json::json;

use iolab_results::{JobRecord, RunRecord};

use crate::{Store, StoreError};

/// The next free place for a job in `run`.
pub(crate) fn next_job_idx(tx: &Transaction<'_>, run: i64) -> Result<i64, StoreError> {
    Ok(tx.query_row(
        "SELECT COALESCE(MAX(idx) + 1, 0) FROM jobs WHERE run_id = ?1",
        [run],
        |r| r.get(0),
    )?)
}

/// Inserts `job` as job `idx` of `run`; returns its id.
pub(crate) fn insert_job(
    tx: &Transaction<'_>,
    run: i64,
    idx: i64,
    job: &JobRecord,
) -> Result<i64, StoreError> {
    let options: serde_json::Map<String, serde_json::Value> = job
        .options
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    tx.execute(
        "INSERT INTO jobs (run_id, idx, name, group_id, description, engine, iodepth, rw,
             block_size, clones, target, target_kind, disk, disk_model, options, runtime_ns,
             cpu, notes, step, fallback, device_interrupts, engine_setup, disk_firmware, health)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19, ?20, ?21, ?22, ?23, ?24)",
        params![
            run,
            idx,
            job.name,
            job.group_id,
            job.description,
            job.engine,
            job.iodepth,
            job.rw,
            job.block_size,
            job.clones,
            job.target,
            job.target_kind,
            job.disk,
            job.disk_model,
            serde_json::Value::Object(options).to_string(),
            job.runtime_ns,
            serde_json::to_string(&job.cpu).unwrap_or_default(),
            json!(job.notes).to_string(),
            job.step,
            job.fallback,
            job.device_interrupts,
            job.engine_setup,
            job.disk_firmware,
            serde_json::to_string(&job.health).unwrap_or_else(|_| "[]".into()),
        ],
    )?;
    let job_id = tx.last_insert_rowid();
    insert_figures(tx, job_id, job)?;
    Ok(job_id)
}

/// A job's metrics, histograms and series.
fn insert_figures(tx: &Transaction<'_>, job_id: i64, job: &JobRecord) -> Result<(), StoreError> {
    let mut metric = tx.prepare_cached(
        "INSERT INTO metrics (job_id, direction, name, value) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (dir, name, value) in job.metrics.iter() {
        metric.execute(params![job_id, dir, name, value])?;
    }
    let mut hist = tx.prepare_cached(
        "INSERT INTO histograms (job_id, direction, latency, ticks_per_ns, data)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for h in &job.histograms {
        let data = h.histogram.to_bytes();
        hist.execute(params![
            job_id,
            h.direction,
            h.latency,
            h.ticks_per_ns,
            data
        ])?;
    }
    let mut series = tx.prepare_cached(
        "INSERT INTO series (job_id, direction, name, t_ms, value) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for s in &job.series {
        for (t, v) in &s.points {
            series.execute(params![job_id, s.direction, s.name, t, v])?;
        }
    }
    let mut repeat = tx.prepare_cached(
        "INSERT INTO repeats (job_id, repeat, started_ms, runtime_ns, metrics)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for r in &job.repeats {
        repeat.execute(params![
            job_id,
            r.repeat,
            r.started_unix_ms as i64,
            r.runtime_ns as i64,
            serde_json::to_string(&r.metrics).unwrap_or_default()
        ])?;
    }
    Ok(())
}

impl Store {
    /// Stores `job` under `run` after the jobs already there, in one transaction; returns
    /// its id.
    pub fn add_job(&mut self, run: i64, job: &JobRecord) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        let idx = next_job_idx(&tx, run)?;
        let id = insert_job(&tx, run, idx, job)?;
        tx.commit()?;
        Ok(id)
    }

    /// Stores a whole run (an import: iolab's export or fio's JSON made into a record) as a
    /// new run, in one transaction; returns its id. The record's own id is not kept.
    pub fn insert_run(&mut self, run: &RunRecord) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO runs (kind, status, started_ms, finished_ms, command, iolab_version,
                 host, clock_source, meta)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.kind,
                run.status,
                run.started_ms,
                run.finished_ms,
                run.command,
                run.iolab_version,
                serde_json::to_string(&run.host).unwrap_or_default(),
                run.clock_source,
                run.meta.to_string(),
            ],
        )?;
        let id = tx.last_insert_rowid();
        for (idx, job) in run.jobs.iter().enumerate() {
            insert_job(&tx, id, idx as i64, job)?;
        }
        for (idx, s) in run.steps.iter().enumerate() {
            tx.execute(
                "INSERT INTO steps (run_id, idx, name, status, reason, data, started_ms,
                     finished_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    id,
                    idx as i64,
                    s.name,
                    s.status,
                    s.reason,
                    s.data.to_string(),
                    s.started_ms,
                    s.finished_ms
                ],
            )?;
        }
        tx.commit()?;
        Ok(id)
    }
}
