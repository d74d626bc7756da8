//! Which process a `running` run belongs to, so that a run whose process died (killed,
//! crashed, out of memory, or the machine rebooted) does not stay `running` for ever.
//!
//! A run records its owner as `HOST/BOOT_ID/PID/START/PIDNS`: the kernel's boot id and the
//! process's start time (field 22 of /proc/PID/stat) make a reused pid or a reboot tell
//! apart from the same process. Only owners on this host and in this PID namespace are
//! judged: a database on shared storage may hold live runs of other hosts, and a run in a
//! container has a pid that means another process here.

use std::time::{Duration, Instant};

use rusqlite::{params, Connection};

use crate::{now_ms, RunStatus, StoreError};

/// This process, as a run's owner.
pub fn this_process() -> String {
    let pid = std::process::id();
    format!(
        "{}/{}/{pid}/{}/{}",
        iolab_sysinfo::host::host_facts().hostname,
        boot_id(),
        start_time(pid).unwrap_or_default(),
        pid_namespace()
    )
}

/// This process's PID namespace (`pid:[4026531836]`), as /proc names it.
fn pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The process's start time in clock ticks since boot, `None` when there is no such process.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; fields after it are plain.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

/// Whether the owner is alive: `None` for an owner on another host (not ours to judge).
pub(crate) fn alive(owner: &str) -> Option<bool> {
    let f: Vec<&str> = owner.split('/').collect();
    let (host, boot, pid, start) = match f[..] {
        [host, boot, pid, start] => (host, boot, pid, start),
        [host, boot, pid, start, ns] if ns == pid_namespace() => (host, boot, pid, start),
        // Another PID namespace (a container): its pid is not ours to look up.
        _ => return None,
    };
    if host != iolab_sysinfo::host::host_facts().hostname {
        return None;
    }
    if boot != boot_id() {
        return Some(false);
    }
    let pid: u32 = pid.parse().ok()?;
    Some(start_time(pid).as_deref() == Some(start))
}

/// Marks this host's `running` runs whose process is gone as `crashed`.
pub fn mark_crashed(conn: &Connection) -> Result<(), StoreError> {
    let mut q =
        conn.prepare("SELECT id, owner FROM runs WHERE status = 'running' AND owner IS NOT NULL")?;
    let dead: Vec<i64> = q
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .filter_map(Result::ok)
        .filter(|(_, owner)| alive(owner) == Some(false))
        .map(|(id, _)| id)
        .collect();
    for id in dead {
        conn.execute(
            "UPDATE runs SET status = ?2, finished_ms = ?3 WHERE id = ?1 AND status = 'running'",
            params![id, RunStatus::Crashed.as_str(), now_ms()],
        )?;
    }
    Ok(())
}

/// Retries `f` while SQLite answers "busy" (switching to WAL takes a lock that the busy
/// timeout does not always wait for), for up to 30 s.
pub fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        match f() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && Instant::now() < until =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_dead_or_rebooted_one_is_not() {
        let me = this_process();
        assert_eq!(alive(&me), Some(true), "{me}");
        let host = iolab_sysinfo::host::host_facts().hostname;
        let boot = boot_id();
        assert_eq!(alive(&format!("{host}/{boot}/999999999/1")), Some(false));
        assert_eq!(alive(&format!("{host}/another-boot/1/1")), Some(false));
        assert_eq!(alive("elsewhere/b/1/1"), None);
        assert_eq!(alive("garbage"), None);
    }
}
