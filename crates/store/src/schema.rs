//! The database schema, as numbered migrations. `PRAGMA user_version` records how many have
//! been applied; opening a database applies the rest, each in its own transaction, so an
//! empty file and an older database both end up at the current version.

use rusqlite::{Connection, TransactionBehavior};

use crate::StoreError;

/// Each entry moves the schema one version up. Never edit one that has shipped: add another.
pub const MIGRATIONS: &[&str] = &[
    // 1: runs, their jobs, per-direction metrics, latency histograms, time series.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,              -- run | review | kv
        status TEXT NOT NULL,            -- running | ok | failed | interrupted
        started_ms INTEGER NOT NULL,     -- Unix time
        finished_ms INTEGER,
        command TEXT NOT NULL,
        iolab_version TEXT NOT NULL,
        host TEXT NOT NULL,              -- JSON: hostname, kernel, cpu_model, cpus
        clock_source TEXT,
        ticks_per_ns REAL
    );
    CREATE TABLE jobs (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,            -- order within the run
        name TEXT NOT NULL,
        group_id INTEGER NOT NULL,
        description TEXT NOT NULL,
        engine TEXT NOT NULL,
        iodepth INTEGER NOT NULL,
        rw TEXT NOT NULL,
        block_size INTEGER NOT NULL,
        clones INTEGER NOT NULL,
        target TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        disk TEXT,
        disk_model TEXT,
        options TEXT NOT NULL,           -- JSON: the options as the user wrote them
        runtime_ns INTEGER NOT NULL,
        cpu TEXT NOT NULL,               -- JSON: user/sys/io-wq/sqpoll ns, ctx
        notes TEXT NOT NULL              -- JSON array
    );
    CREATE INDEX jobs_run ON jobs(run_id);
    CREATE TABLE metrics (
        job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        direction TEXT NOT NULL,         -- read | write | sync
        name TEXT NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (job_id, direction, name)
    );
    CREATE TABLE histograms (
        job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        direction TEXT NOT NULL,
        latency TEXT NOT NULL,           -- slat | clat | lat
        ticks_per_ns REAL NOT NULL,
        data BLOB NOT NULL,              -- LatencyHistogram::to_bytes
        PRIMARY KEY (job_id, direction, latency)
    );
    CREATE TABLE series (
        job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        direction TEXT NOT NULL,
        name TEXT NOT NULL,              -- iops | bw_bytes (per sample interval)
        t_ms INTEGER NOT NULL,
        value REAL NOT NULL
    );
    CREATE INDEX series_job ON series(job_id, direction, name);",
    // 2: reviews. A run's steps (each saved as it finishes, with why a step or a point could
    // not run and the step's own figures, e.g. the saturation point), the step a job
    // belongs to, and run-level facts (effort profile, target, device facts).
    "CREATE TABLE steps (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        name TEXT NOT NULL,
        status TEXT NOT NULL,            -- ok | skipped | failed | interrupted
        reason TEXT NOT NULL,            -- why skipped or failed ('' when ok)
        data TEXT NOT NULL,              -- JSON: the step's figures and tables
        started_ms INTEGER NOT NULL,
        finished_ms INTEGER NOT NULL,
        PRIMARY KEY (run_id, idx)
    );
    ALTER TABLE jobs ADD COLUMN step TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';",
    // 3: which process is running a run (hostname/boot id/pid/start time), so a run left
    // `running` by a process that died can be recognised and marked `crashed`.
    "ALTER TABLE runs ADD COLUMN owner TEXT;",
    // 4: why a job's I/O did not take the path asked for (hipri served by interrupts).
    "ALTER TABLE jobs ADD COLUMN fallback TEXT;",
    // 5: the interrupts the target's disk raised during the job (polling evidence).
    "ALTER TABLE jobs ADD COLUMN device_interrupts INTEGER;",
    // 6: how the engine was set up where it chose (io_uring setup flags the kernel took).
    "ALTER TABLE jobs ADD COLUMN engine_setup TEXT;",
    // 7: each repeat's figures of a job run `--repeat N` times (the job's own figures pool
    // the repeats); `metrics` is JSON, `{"read": {"iops": ..., ...}}`.
    "CREATE TABLE repeats (
        job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        repeat INTEGER NOT NULL,          -- 1 for the first
        started_ms INTEGER NOT NULL,      -- Unix time the job's phase began
        runtime_ns INTEGER NOT NULL,
        metrics TEXT NOT NULL,
        PRIMARY KEY (job_id, repeat)
    );",
    // 8: the disk's firmware revision, which `compare` warns about when it differs.
    "ALTER TABLE jobs ADD COLUMN disk_firmware TEXT;",
    // 9: the health logs of the drives the job's files were on, read around its run (JSON,
    // a list of `DriveHealth`).
    "ALTER TABLE jobs ADD COLUMN health TEXT NOT NULL DEFAULT '[]';",
    // 10: settings a command changed on a device (a drive's volatile write cache), recorded
    // before the change with how to put them back (JSON), so that a process killed outright
    // has them put back by the next command that opens the database.
    "CREATE TABLE device_restores (
        id INTEGER PRIMARY KEY,
        owner TEXT NOT NULL,
        run_id INTEGER,
        created_ms INTEGER NOT NULL,
        what TEXT NOT NULL
    );",
];

/// The schema version a database is at.
pub fn version(conn: &Connection) -> Result<u32, StoreError> {
    let v: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if v as usize > MIGRATIONS.len() {
        return Err(StoreError::TooNew {
            found: v,
            known: MIGRATIONS.len() as u32,
        });
    }
    Ok(v)
}

/// Brings `conn` to the current schema version. The version is read again inside one
/// write-locked (`BEGIN IMMEDIATE`) transaction, so processes that open a fresh database at
/// the same moment apply each migration once: the others wait on the lock, then find
/// nothing left to do.
pub fn migrate(conn: &mut Connection) -> Result<u32, StoreError> {
    if version(conn)? as usize == MIGRATIONS.len() {
        return Ok(MIGRATIONS.len() as u32);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current = version(&tx)?;
    for sql in MIGRATIONS.iter().skip(current as usize) {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", MIGRATIONS.len() as u32)?;
    tx.commit()?;
    Ok(MIGRATIONS.len() as u32)
}
