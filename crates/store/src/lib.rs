//! iolab's results store: every run is kept in a SQLite database (bundled SQLite) with its
//! host, its jobs, every metric, the latency histograms in a mergeable form (so percentiles
//! can be recomputed later) and the per-interval time series.
//!
//! A run is inserted as `running` when it starts and updated when it ends, so an interrupted
//! or failed run is still on record. The database is opened in WAL mode with a busy timeout,
//! so several iolab processes can write to it at once.

pub mod app;
mod owner;
pub mod query;
pub mod schema;
mod write;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OpenFlags};
#[cfg(test)]
use serde_json::json;

use iolab_results::{HostRecord, RunOutcome};
use iolab_sysinfo::host::{disk_firmware, disk_model, host_facts};

pub use app::{AppJob, AppSeries, APP_DIRECTION, DISK_DIRECTION};
pub use iolab_results::{JobRecord, RunRecord, StepRecord};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("results database {path}: {source}")]
    Open {
        path: PathBuf,
        source: Box<StoreError>,
    },
    #[error("{0}")]
    Sql(#[from] rusqlite::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("the database is at schema version {found}, newer than this iolab knows ({known}); use a newer iolab or another --db")]
    TooNew { found: u32, known: u32 },
    #[error("no run {0} in the database")]
    NoRun(i64),
    #[error("no results database at {} (iolab run, review and kv record there; --db or $IOLAB_DB name another)", .0.display())]
    Missing(PathBuf),
}

impl StoreError {
    /// Whether the user's input is at fault (a database that is not there, or of a newer
    /// iolab), as opposed to a failure on the way: every command maps it to exit 2 alike.
    pub fn is_bad_input(&self) -> bool {
        match self {
            StoreError::Missing(_) | StoreError::TooNew { .. } => true,
            StoreError::Open { source, .. } => source.is_bad_input(),
            _ => false,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    Ok,
    Failed,
    Interrupted,
    /// Left `running` by a process that is gone (killed, crashed, or the machine rebooted);
    /// set when the database is next opened for writing.
    Crashed,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Ok => "ok",
            RunStatus::Failed => "failed",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Crashed => "crashed",
        }
    }
}

/// Milliseconds since the Unix epoch, as the store keeps times.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as i64
}

/// `path` for a `file:` URI: `%`, `?` and `#` escaped.
/// The drives `job`'s files were on, of those a run read: by disk, or by target for a
/// file on no disk.
fn health_of(
    job: &iolab_results::JobReport,
    health: &[iolab_results::DriveHealth],
) -> Vec<iolab_results::DriveHealth> {
    let t = &job.target;
    let key = t
        .disk_name
        .clone()
        .unwrap_or_else(|| t.path.to_string_lossy().into_owned());
    health
        .iter()
        .filter(|h| h.disks.contains(&key))
        .cloned()
        .collect()
}

fn uri_path(path: &Path) -> String {
    path.to_string_lossy()
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23")
}

/// True when the filesystem holding `path` is mounted read-only.
fn on_read_only_fs(path: &Path) -> bool {
    iolab_sysinfo::fsspace::fs_space(path).is_ok_and(|s| s.read_only)
}

/// An open results database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// `$HOME`, or when it is unset or empty the user's home from the password database, or `/`
/// for a user without one: never a world-writable directory such as `/tmp`, where another
/// user could have made the database directory first.
fn home_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    // SAFETY: getpwuid returns a pointer into static storage or null; read at once.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if !pw.is_null() && !(*pw).pw_dir.is_null() {
            let dir = std::ffi::CStr::from_ptr((*pw).pw_dir);
            return PathBuf::from(
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(dir.to_bytes()),
            );
        }
    }
    PathBuf::from("/")
}

/// Whether this process may write `path` (access(2) with W_OK).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

impl Store {
    /// Where results go unless told otherwise: `$IOLAB_DB`, else
    /// `$XDG_DATA_HOME/iolab/results.db`, else `~/.local/share/iolab/results.db`.
    pub fn default_path() -> PathBuf {
        if let Some(p) = std::env::var_os("IOLAB_DB").filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home_dir().join(".local/share"));
        data.join("iolab").join("results.db")
    }

    /// Opens (creating it and its directory if needed) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Self::open_inner(path).map_err(|e| {
            // A home directory this user may not write (a service account, a read-only
            // container) makes the default place unusable: say where else to keep runs.
            let e = match e {
                StoreError::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
                    StoreError::Io(std::io::Error::other(format!(
                        "{io}; name a database you may write with --db or $IOLAB_DB"
                    )))
                }
                e => e,
            };
            StoreError::Open {
                path: path.to_path_buf(),
                source: Box::new(e),
            }
        })
    }

    /// Opens an existing database for reading only: creates nothing (no file, no directory),
    /// and works on a read-only file. A database at an older schema is migrated first when
    /// it can be written.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing(path.to_path_buf()));
        }
        let wrap = |e: StoreError| StoreError::Open {
            path: path.to_path_buf(),
            source: Box::new(e),
        };
        let read_only = |immutable: bool| -> Result<(Connection, u32), StoreError> {
            let conn = if immutable {
                // On a read-only filesystem SQLite cannot make the WAL index it needs to read
                // a WAL database; nothing can write there, so reading it as immutable is safe.
                let uri = format!("file:{}?mode=ro&immutable=1", uri_path(path));
                Connection::open_with_flags(
                    uri,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
                )?
            } else {
                Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?
            };
            conn.busy_timeout(Duration::from_secs(30))?;
            let v = schema::version(&conn)?;
            Ok((conn, v))
        };
        // A database this user may not write, with nothing pending in its WAL: read as
        // immutable, so SQLite makes no -wal or -shm file beside it (nobody here can change
        // it meanwhile).
        let mut wal = path.as_os_str().to_os_string();
        wal.push("-wal");
        let pending = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        let immutable = !writable(path) && !pending;
        let (conn, v) = match read_only(immutable) {
            Ok(c) => c,
            Err(StoreError::TooNew { found, known }) => {
                return Err(wrap(StoreError::TooNew { found, known }))
            }
            Err(_) if on_read_only_fs(path) => read_only(true).map_err(wrap)?,
            Err(e) => return Err(wrap(e)),
        };
        if (v as usize) < schema::MIGRATIONS.len() {
            drop(conn);
            return Store::open(path);
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// A database in memory: for a run recorded nowhere (the main job without --db), so
    /// it goes through the same steps as one that is kept.
    pub fn in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        schema::migrate(&mut conn)?;
        Ok(Store {
            conn,
            path: PathBuf::from(":memory:"),
        })
    }

    fn open_inner(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        // Opened where the path resolves now, with no symlink followed (SQLite's NOFOLLOW):
        // a link swapped in after the guard's check is refused, not followed onto a device.
        let pin = iolab_sysinfo::Pin::any(path)
            .map_err(|e| StoreError::Io(std::io::Error::other(e.to_string())))?;
        let flags = OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = Connection::open_with_flags(&pin.resolved, flags)?;
        if !std::fs::symlink_metadata(&pin.resolved).is_ok_and(|m| m.is_file()) {
            return Err(StoreError::Io(std::io::Error::other(
                "not a regular file where it was checked (swapped since?)",
            )));
        }
        // Another writer may hold the lock for a moment: wait rather than fail.
        conn.busy_timeout(Duration::from_secs(30))?;
        owner::retry_busy(|| conn.pragma_update(None, "journal_mode", "WAL"))?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        schema::migrate(&mut conn)?;
        owner::mark_crashed(&conn)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records that a run of `kind` started, as `running`; returns its id.
    pub fn begin_run(&self, kind: &str, command: &str) -> Result<i64, StoreError> {
        let h = host_facts();
        let host = HostRecord {
            hostname: h.hostname,
            kernel: h.kernel,
            cpu_model: h.cpu_model,
            cpus: h.cpus as u64,
            machine: iolab_sysinfo::doctor::machine(),
        };
        self.conn.execute(
            "INSERT INTO runs (kind, status, started_ms, command, iolab_version, host, owner)
             VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6)",
            params![
                kind,
                now_ms(),
                command,
                env!("CARGO_PKG_VERSION"),
                serde_json::to_string(&host).unwrap_or_default(),
                owner::this_process()
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Stores every job of `outcome` under `run`, in one transaction. `options[i]` are the
    /// options job `i` was written with.
    pub fn add_outcome(
        &mut self,
        run: i64,
        outcome: &RunOutcome,
        options: &[Vec<(String, String)>],
    ) -> Result<(), StoreError> {
        self.add_step_outcome(run, "", outcome, options)
    }

    /// As [`Store::add_outcome`], the jobs marked as measured by review step `step`.
    pub fn add_step_outcome(
        &mut self,
        run: i64,
        step: &str,
        outcome: &RunOutcome,
        options: &[Vec<(String, String)>],
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "UPDATE runs SET clock_source = ?2, ticks_per_ns = ?3 WHERE id = ?1",
            params![
                run,
                outcome.clock.source().to_string(),
                outcome.clock.ticks_per_ns()
            ],
        )?;
        let first_idx = write::next_job_idx(&tx, run)?;
        for (n, job) in outcome.jobs.iter().enumerate() {
            let opts = options.get(job.job_index).cloned().unwrap_or_default();
            let mut rec = JobRecord::from_report(job, &outcome.clock, step, opts);
            rec.disk_model = rec.disk.as_deref().and_then(disk_model);
            rec.disk_firmware = rec.disk.as_deref().and_then(disk_firmware);
            rec.health = health_of(job, &outcome.health);
            write::insert_job(&tx, run, first_idx + n as i64, &rec)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Records how `run` ended.
    pub fn finish_run(&self, run: i64, status: RunStatus) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE runs SET status = ?2, finished_ms = ?3 WHERE id = ?1",
            params![run, status.as_str(), now_ms()],
        )?;
        Ok(())
    }

    /// Sets the run's own facts (a review's effort profile, target, device facts).
    pub fn set_run_meta(&self, run: i64, meta: &serde_json::Value) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE runs SET meta = ?2 WHERE id = ?1",
            params![run, meta.to_string()],
        )?;
        Ok(())
    }

    /// Records one finished (or skipped, failed, interrupted) step of a review.
    pub fn save_step(&self, run: i64, step: &StepRecord) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO steps (run_id, idx, name, status, reason, data, started_ms, finished_ms)
             VALUES (?1, (SELECT COALESCE(MAX(idx) + 1, 0) FROM steps WHERE run_id = ?1),
                     ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                run,
                step.name,
                step.status,
                step.reason,
                step.data.to_string(),
                step.started_ms,
                step.finished_ms
            ],
        )?;
        Ok(())
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolab_job::JobSpec;
    use iolab_results::{
        CpuUsage, DepthCounts, DirResult, JobReport, LatencyHistogram, Sample, TargetFacts,
        TargetKind, Timebase,
    };
    use std::time::SystemTime;

    fn outcome() -> RunOutcome {
        let clock = Timebase::with_ticks_per_ns(2.0);
        let mut lat = LatencyHistogram::new();
        for i in 1..=1000u64 {
            lat.record(i * 20); // 10 ns .. 10 µs
        }
        let read = DirResult {
            ios: 1000,
            bytes: 1000 * 4096,
            slat: None,
            clat: lat.clone(),
            lat,
            samples: vec![
                Sample {
                    bytes: 4096 * 500,
                    ios: 500
                };
                2
            ],
            windows: Vec::new(),
            prios: Vec::new(),
            open_loop: None,
            lat_split: None,
            pooled: None,
            sampling: Default::default(),
        };
        let spec = JobSpec::new("qd1", "/dev/zram0");
        let job = JobReport {
            job_index: 0,
            group_id: 0,
            setup: spec.setup(),
            clones: 1,
            dirs: [Some(read), None, None],
            runtime_ns: 1_000_000_000,
            total_runtime_ns: 1_000_000_000,
            elapsed_ns: 1_000_000_000,
            cpu: CpuUsage::default(),
            depth: DepthCounts::default(),
            sync: None,
            logs: Vec::new(),
            traces: Vec::new(),
            errors: None,
            zone_resets: 0,
            target: TargetFacts {
                path: "/dev/zram0".into(),
                kind: TargetKind::BlockDevice,
                size_bytes: 1 << 30,
                logical_block_size: 4096,
                device: (253, 0),
                disk_name: Some("zram0".into()),
                polled: false,
            },
            notes: vec!["a note".into()],
            fallback: None,
            device_interrupts: None,
            engine_setup: Some("submit all".into()),
            interrupted: false,
            stonewalled: false,
            steady: None,
            lat_target: None,
            started_unix_ms: 0,
            job_start_ms: None,
            repeats: Vec::new(),
            error: None,
        };
        RunOutcome {
            jobs: vec![job],
            disks: Vec::new(),
            clock,
            started: SystemTime::now(),
            interrupted: false,
            health: Vec::new(),
        }
    }

    #[test]
    fn an_empty_file_migrates_to_the_current_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/results.db");
        let s = Store::open(&path).unwrap();
        let v: u32 = s
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v as usize, schema::MIGRATIONS.len());
        let mode: String = s
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(s);
        // Reopening applies nothing twice.
        Store::open(&path).unwrap();
        // A database from a newer iolab is refused, not damaged.
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
        drop(c);
        let e = Store::open(&path).err().unwrap().to_string();
        assert!(e.contains("schema version 99"), "{e}");
    }

    #[test]
    fn a_run_reads_back_with_metrics_series_and_recomputable_percentiles() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let run = s.begin_run("run", "iolab run x.fio").unwrap();
        let opts = vec![vec![("rw".to_string(), "randread".to_string())]];
        s.add_outcome(run, &outcome(), &opts).unwrap();
        s.finish_run(run, RunStatus::Ok).unwrap();
        let d = s.run(run).unwrap();
        assert_eq!(d.status, "ok");
        assert_eq!(d.clock_source.as_deref(), Some("tsc"));
        let j = &d.jobs[0];
        assert_eq!((j.name.as_str(), j.rw.as_str()), ("qd1", "read"));
        assert_eq!(j.metric("read", "iops"), Some(1000.0));
        assert_eq!(j.notes, vec!["a note".to_string()]);
        // 20..20000 ticks at 2 ticks/ns: 10 ns .. 10 µs; the median is about 5 µs.
        let p50 = j.metric("read", "lat_p50_ns").unwrap();
        assert!((4900.0..5100.0).contains(&p50), "{p50}");
        let again = j
            .histogram("read", "lat")
            .unwrap()
            .percentiles_ns(&[50.0, 75.0]);
        assert_eq!(again[0].1, p50);
        assert!((7400.0..7600.0).contains(&again[1].1), "{again:?}");
        let n: i64 = s
            .conn()
            .query_row(
                "SELECT COUNT(*) FROM series WHERE job_id = ?1",
                [j.id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 4, "two samples, iops and bandwidth each");
        assert!(matches!(s.run(run + 1), Err(StoreError::NoRun(_))));
        assert_eq!(s.history(10).unwrap()[0].id, run);
    }

    #[test]
    fn review_steps_and_latency_windows_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("r.db")).unwrap();
        let run = s.begin_run("review", "iolab review --quick").unwrap();
        s.set_run_meta(run, &json!({"profile": "quick"})).unwrap();
        let mut o = outcome();
        o.jobs[0].setup.latency_window_ms = Some(1000);
        o.jobs[0].dirs[0].as_mut().unwrap().windows = vec![
            iolab_results::LatencyWindow {
                ios: 500,
                p50: 2000,
                p99: 4000,
                p9999: 6000,
                max: 8000,
            };
            3
        ];
        s.add_step_outcome(run, "consistency", &o, &[]).unwrap();
        let step = StepRecord {
            name: "consistency".into(),
            status: "ok".into(),
            reason: String::new(),
            data: json!({"text": "table"}),
            started_ms: 1,
            finished_ms: 2,
        };
        s.save_step(run, &step).unwrap();
        s.save_step(
            run,
            &StepRecord {
                name: "poll-vs-irq".into(),
                status: "skipped".into(),
                reason: "no poll queues".into(),
                data: json!({}),
                started_ms: 3,
                finished_ms: 3,
            },
        )
        .unwrap();
        let d = s.run(run).unwrap();
        assert_eq!(d.meta["profile"], "quick");
        assert_eq!(d.steps.len(), 2);
        assert_eq!(d.steps[0], step);
        assert_eq!(d.step("poll-vs-irq").unwrap().reason, "no poll queues");
        let j = &d.jobs[0];
        assert_eq!(j.step, "consistency");
        // 4000 ticks at 2 ticks/ns: 2 µs, one value per second.
        let p99 = j.series("read", "lat_p99_ns");
        assert_eq!(p99, [(1000, 2000.0), (2000, 2000.0), (3000, 2000.0)]);
        assert_eq!(j.series("read", "lat_max_ns")[0].1, 4000.0);
    }

    #[test]
    fn two_writers_at_once_both_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        Store::open(&path).unwrap();
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut s = Store::open(&path).unwrap();
                    for _ in 0..20 {
                        let run = s.begin_run("run", "test").unwrap();
                        s.add_outcome(run, &outcome(), &[]).unwrap();
                        s.finish_run(run, RunStatus::Ok).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let s = Store::open(&path).unwrap();
        let runs = s.history(100).unwrap();
        assert_eq!(runs.len(), 40);
        assert!(runs.iter().all(|r| r.status == "ok" && r.jobs.len() == 1));
    }
}

/// A setting a command changed on a device, as recorded before the change.
#[derive(Debug, Clone)]
pub struct PendingRestore {
    pub id: i64,
    pub run_id: Option<i64>,
    /// How to put it back (the command's own JSON).
    pub what: serde_json::Value,
}

impl Store {
    /// Records, before changing it, a device setting this process will change and how to
    /// put it back; the row's id, for [`Store::forget_restore`] once it is put back.
    pub fn record_restore(
        &self,
        run_id: Option<i64>,
        what: &serde_json::Value,
    ) -> Result<i64, StoreError> {
        self.conn.execute(
            "INSERT INTO device_restores (owner, run_id, created_ms, what) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![owner::this_process(), run_id, now_ms(), what.to_string()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The setting is back as it was: its record goes.
    pub fn forget_restore(&self, id: i64) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM device_restores WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Settings changed by processes of this host that are gone (killed before they could put
    /// them back).
    pub fn orphaned_restores(&self) -> Result<Vec<PendingRestore>, StoreError> {
        let mut q = self
            .conn
            .prepare("SELECT id, owner, run_id, what FROM device_restores ORDER BY id")?;
        let rows = q.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        Ok(rows
            .filter_map(Result::ok)
            .filter(|(_, owner, _, _)| owner::alive(owner) == Some(false))
            .map(|(id, _, run_id, what)| PendingRestore {
                id,
                run_id,
                what: serde_json::from_str(&what).unwrap_or_default(),
            })
            .collect())
    }
}
