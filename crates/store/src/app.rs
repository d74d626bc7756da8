//! Application loads in the store (`iolab kv`): a workload of a program iolab ran but did
//! not measure itself (db_bench) is kept as a job of engine `db_bench` whose figures are
//! metrics of direction `app`, and whose time series (the program's own progress, and the
//! device under it sampled from /proc/diskstats) are series of directions `app` and `disk`.
//! It reads back through the same `JobRow` as every other job, so `show --json`, `export`
//! and `compare` need nothing new to carry it.

use rusqlite::params;
use serde_json::json;

use crate::{Store, StoreError};

/// One workload of an application load, as stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppJob {
    /// The workload (`fillseq`), also stored as the job's rw.
    pub name: String,
    /// The program (`db_bench`), stored as the job's engine.
    pub engine: String,
    pub description: String,
    /// Threads the program ran the workload with (stored as the job's clones).
    pub threads: u32,
    /// Where it ran (the database directory).
    pub target: String,
    /// The block device under `target`, when there is one.
    pub disk: Option<String>,
    pub disk_model: Option<String>,
    /// The program's arguments, and anything else worth keeping as written.
    pub options: serde_json::Value,
    pub runtime_ns: u64,
    pub notes: Vec<String>,
    /// (direction, name, value): `app` for the program's figures (ops_per_sec, p99_us ...),
    /// `disk` for the device's over the run.
    pub metrics: Vec<(String, String, f64)>,
    pub series: Vec<AppSeries>,
}

/// (direction, name, points as (ms since the workload started, value)).
pub type AppSeries = (String, String, Vec<(i64, f64)>);

/// The direction an application's own figures are stored under.
pub const APP_DIRECTION: &str = "app";
/// The direction of the device samples taken while it ran.
pub const DISK_DIRECTION: &str = "disk";

impl Store {
    /// Stores one workload of an application load under `run` (review step `step`), in one
    /// transaction, after those already stored.
    pub fn add_app_job(&mut self, run: i64, step: &str, job: &AppJob) -> Result<i64, StoreError> {
        let tx = self.conn.transaction()?;
        let idx: i64 = tx.query_row(
            "SELECT COALESCE(MAX(idx) + 1, 0) FROM jobs WHERE run_id = ?1",
            [run],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO jobs (run_id, idx, name, group_id, description, engine, iodepth, rw,
                 block_size, clones, target, target_kind, disk, disk_model, options, runtime_ns,
                 cpu, notes, step)
             VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?3, 0, ?6, ?7, 'Directory', ?8, ?9, ?10, ?11,
                     '{}', ?12, ?13)",
            params![
                run,
                idx,
                job.name,
                job.description,
                job.engine,
                job.threads.max(1),
                job.target,
                job.disk,
                job.disk_model,
                job.options.to_string(),
                job.runtime_ns as i64,
                json!(job.notes).to_string(),
                step,
            ],
        )?;
        let job_id = tx.last_insert_rowid();
        {
            let mut metric = tx.prepare_cached(
                "INSERT INTO metrics (job_id, direction, name, value) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (dir, name, value) in &job.metrics {
                metric.execute(params![job_id, dir, name, value])?;
            }
            let mut series = tx.prepare_cached(
                "INSERT INTO series (job_id, direction, name, t_ms, value)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (dir, name, points) in &job.series {
                for (t, v) in points {
                    series.execute(params![job_id, dir, name, t, v])?;
                }
            }
        }
        tx.commit()?;
        Ok(job_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunStatus;

    #[test]
    fn an_app_workload_reads_back_as_a_job_with_series() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let run = s.begin_run("kv", "iolab kv --num 1000").unwrap();
        let mut job = AppJob {
            name: "fillseq".into(),
            engine: "db_bench".into(),
            threads: 1,
            target: "/tmp/x/db".into(),
            disk: Some("vda".into()),
            options: json!({"args": ["--num=1000"]}),
            runtime_ns: 2_000_000_000,
            metrics: vec![
                (APP_DIRECTION.into(), "ops_per_sec".into(), 335_373.0),
                (APP_DIRECTION.into(), "p99_us".into(), 3.72),
            ],
            series: vec![(
                DISK_DIRECTION.into(),
                "iops".into(),
                vec![(1000, 120.0), (2000, 80.0)],
            )],
            ..AppJob::default()
        };
        s.add_app_job(run, "kv", &job).unwrap();
        job.name = "readrandom".into();
        job.threads = 32;
        let second = s.add_app_job(run, "kv", &job).unwrap();
        s.finish_run(run, RunStatus::Ok).unwrap();
        let d = s.run(run).unwrap();
        assert_eq!(d.summary.kind, "kv");
        let j = &d.summary.jobs[0];
        assert_eq!(
            (j.name.as_str(), j.engine.as_str(), j.rw.as_str()),
            ("fillseq", "db_bench", "fillseq")
        );
        assert_eq!(j.step, "kv");
        assert_eq!(j.metric(APP_DIRECTION, "ops_per_sec"), Some(335_373.0));
        assert_eq!(j.directions(), vec![APP_DIRECTION]);
        assert_eq!(d.summary.jobs[1].iodepth, 32);
        assert_eq!(d.summary.jobs[1].idx, 1);
        assert_eq!(
            s.series(second, DISK_DIRECTION, "iops").unwrap(),
            vec![(1000, 120.0), (2000, 80.0)]
        );
    }
}
