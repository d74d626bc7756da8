//! Reading runs back as records: the history list (runs with their jobs' figures), and one
//! run whole (with histograms, series and steps: what the report draws, `export` writes and
//! `import` reads).

use rusqlite::OptionalExtension;
use serde_json::Value;

use iolab_results::{
    options_of, HistogramRecord, JobRecord, LatencyHistogram, RepeatFigures, RunRecord,
    SeriesRecord, StepRecord,
};

use crate::{Store, StoreError};

/// A run's summary (without its jobs) from a row whose first six columns are id, kind,
/// status, started_ms, finished_ms, command.
fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunRecord> {
    Ok(RunRecord {
        id: r.get(0)?,
        kind: r.get(1)?,
        status: r.get(2)?,
        started_ms: r.get(3)?,
        finished_ms: r.get(4)?,
        command: r.get(5)?,
        ..RunRecord::default()
    })
}

impl Store {
    /// The newest `limit` runs, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<RunRecord>, StoreError> {
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
                // A review's one-line summary names a best only where its steps marked one.
                if s.kind == "review" || s.kind == "qd1" {
                    s.steps = self.steps(s.id)?;
                }
                Ok(s)
            })
            .collect()
    }

    /// One run, whole: host, steps, and every job with its histograms and series.
    pub fn run(&self, id: i64) -> Result<RunRecord, StoreError> {
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
        let (mut run, iolab_version, host, clock_source, meta) = row;
        run.jobs = self.jobs(id)?;
        for j in &mut run.jobs {
            j.histograms = self.histograms(j.id)?;
            j.series = self.all_series(j.id)?;
        }
        run.iolab_version = iolab_version;
        run.host = serde_json::from_str(&host).unwrap_or_default();
        run.clock_source = clock_source;
        run.meta = serde_json::from_str(&meta).unwrap_or(Value::Null);
        run.steps = self.steps(id)?;
        Ok(run)
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

    fn jobs(&self, run: i64) -> Result<Vec<JobRecord>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, idx, name, group_id, description, engine, iodepth, rw, block_size,
                    target, disk, disk_model, runtime_ns, notes, step, cpu, clones, target_kind,
                    options, fallback, device_interrupts, engine_setup, disk_firmware, health
             FROM jobs WHERE run_id = ?1 ORDER BY idx",
        )?;
        let jobs = stmt
            .query_map([run], |r| {
                Ok(JobRecord {
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
                    cpu: serde_json::from_str(&r.get::<_, String>(15)?).unwrap_or_default(),
                    clones: r.get(16)?,
                    target_kind: r.get(17)?,
                    options: options_of(
                        serde_json::from_str(&r.get::<_, String>(18)?).unwrap_or(Value::Null),
                    ),
                    fallback: r.get(19)?,
                    device_interrupts: r.get(20)?,
                    engine_setup: r.get(21)?,
                    disk_firmware: r.get(22)?,
                    health: serde_json::from_str(&r.get::<_, String>(23)?).unwrap_or_default(),
                    ..JobRecord::default()
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let mut metrics = self.conn().prepare_cached(
            "SELECT direction, name, value FROM metrics WHERE job_id = ?1 ORDER BY rowid",
        )?;
        jobs.into_iter()
            .map(|mut j| {
                j.metrics.0 = metrics
                    .query_map([j.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                j.repeats = self.repeats(j.id)?;
                Ok(j)
            })
            .collect()
    }

    /// Each repeat's figures of a job run `--repeat N` times, in repeat order.
    fn repeats(&self, job_id: i64) -> Result<Vec<RepeatFigures>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT repeat, started_ms, runtime_ns, metrics FROM repeats WHERE job_id = ?1
             ORDER BY repeat",
        )?;
        let rows = stmt.query_map([job_id], |r| {
            Ok(RepeatFigures {
                repeat: r.get(0)?,
                started_unix_ms: r.get::<_, i64>(1)? as u64,
                runtime_ns: r.get::<_, i64>(2)? as u64,
                metrics: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// A job's stored histograms, whole.
    fn histograms(&self, job_id: i64) -> Result<Vec<HistogramRecord>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT direction, latency, ticks_per_ns, data FROM histograms WHERE job_id = ?1
             ORDER BY rowid",
        )?;
        let rows = stmt.query_map([job_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, Vec<u8>>(3)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (direction, latency, ticks_per_ns, data) = row?;
            // A histogram this iolab cannot read is left out, not an error.
            if let Some(histogram) = LatencyHistogram::from_bytes(&data) {
                out.push(HistogramRecord {
                    direction,
                    latency,
                    ticks_per_ns,
                    histogram,
                });
            }
        }
        Ok(out)
    }

    /// Every series of a job, in the order stored.
    fn all_series(&self, job_id: i64) -> Result<Vec<SeriesRecord>, StoreError> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT direction, name, t_ms, value FROM series WHERE job_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([job_id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get(2)?,
                r.get(3)?,
            ))
        })?;
        let mut out: Vec<SeriesRecord> = Vec::new();
        for row in rows {
            let (direction, name, t, v) = row?;
            match out
                .iter_mut()
                .find(|s| s.direction == direction && s.name == name)
            {
                Some(s) => s.points.push((t, v)),
                None => out.push(SeriesRecord {
                    direction,
                    name,
                    points: vec![(t, v)],
                }),
            }
        }
        Ok(out)
    }
}
