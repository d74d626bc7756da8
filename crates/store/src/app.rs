//! Application loads in the store (`iolab kv`): a workload of a program iolab ran but did
//! not measure itself (db_bench) is kept as a job of engine `db_bench` whose figures are
//! metrics of direction `app`, and whose time series (the program's own progress, and the
//! device under it sampled from /proc/diskstats) are series of directions `app` and `disk`.
//! It reads back through the same `JobRecord` as every other job, so `show --json`, `export`
//! and `compare` need nothing new to carry it.

use iolab_results::{JobRecord, Metrics, SeriesRecord};

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
    /// The drive's health logs read around the workload.
    pub health: Vec<iolab_results::DriveHealth>,
}

/// (direction, name, points as (ms since the workload started, value)).
pub type AppSeries = (String, String, Vec<(i64, f64)>);

/// The direction an application's own figures are stored under.
pub const APP_DIRECTION: &str = "app";
/// The direction of the device samples taken while it ran.
pub const DISK_DIRECTION: &str = "disk";

impl AppJob {
    /// The job record it is kept as: the workload is also its rw, its threads its depth and
    /// copies, its directory a target of kind `Directory`.
    pub fn into_record(self, step: &str) -> JobRecord {
        let options = iolab_results::options_of(self.options);
        let threads = self.threads.max(1) as i64;
        JobRecord {
            rw: self.name.clone(),
            name: self.name,
            description: self.description,
            engine: self.engine,
            iodepth: threads,
            clones: threads,
            target: self.target,
            target_kind: "Directory".into(),
            disk: self.disk,
            disk_model: self.disk_model,
            options,
            runtime_ns: self.runtime_ns as i64,
            notes: self.notes,
            step: step.to_string(),
            metrics: Metrics(self.metrics),
            series: self
                .series
                .into_iter()
                .map(|(direction, name, points)| SeriesRecord {
                    direction,
                    name,
                    points,
                })
                .collect(),
            health: self.health,
            ..JobRecord::default()
        }
    }
}

impl Store {
    /// Stores one workload of an application load under `run` (review step `step`), in one
    /// transaction, after those already stored.
    pub fn add_app_job(&mut self, run: i64, step: &str, job: AppJob) -> Result<i64, StoreError> {
        self.add_job(run, &job.into_record(step))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunStatus;
    use serde_json::json;

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
        s.add_app_job(run, "kv", job.clone()).unwrap();
        job.name = "readrandom".into();
        job.threads = 32;
        let second = s.add_app_job(run, "kv", job).unwrap();
        s.finish_run(run, RunStatus::Ok).unwrap();
        let d = s.run(run).unwrap();
        assert_eq!(d.kind, "kv");
        let j = &d.jobs[0];
        assert_eq!(
            (j.name.as_str(), j.engine.as_str(), j.rw.as_str()),
            ("fillseq", "db_bench", "fillseq")
        );
        assert_eq!(j.step, "kv");
        assert_eq!(j.metric(APP_DIRECTION, "ops_per_sec"), Some(335_373.0));
        assert_eq!(j.directions(), vec![APP_DIRECTION]);
        assert_eq!(d.jobs[1].iodepth, 32);
        assert_eq!(d.jobs[1].idx, 1);
        assert_eq!(d.jobs[1].id, second);
        assert_eq!(
            d.jobs[1].series(DISK_DIRECTION, "iops"),
            [(1000, 120.0), (2000, 80.0)]
        );
    }
}
