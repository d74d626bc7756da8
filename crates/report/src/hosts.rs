//! The per-host table of a run on many hosts: one row per host, job and direction, so a slow
//! host stands out beside the aggregate. `iolab run` prints it under the merged report and
//! `iolab show` prints it from the stored run; it is Markdown, so it pastes as it is.

use std::io::Write;

use iolab_results::HostRow;

use crate::format::{compact, micros};

/// How the hosts started and ended, said above the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostsHead {
    pub hosts: usize,
    pub start_skew_ns: u64,
    /// `--stonewall-hosts` was given.
    pub stonewall: bool,
    /// ...and it stopped some host's job.
    pub stonewalled: bool,
}

impl HostsHead {
    pub fn line(&self) -> String {
        format!(
            "{} hosts, started within {:.3} ms of each other{}",
            self.hosts,
            self.start_skew_ns as f64 / 1e6,
            match (self.stonewall, self.stonewalled) {
                (_, true) => "; stonewalled: every host stopped when the first finished",
                (true, false) => "; stonewall on (no host was still running to stop)",
                (false, false) => "; no stonewall",
            }
        )
    }
}

/// A stored run's hosts (its `meta`, as a multi-host `iolab run` saves it); `None` for a
/// run on one host.
pub fn from_meta(meta: &serde_json::Value) -> Option<(HostsHead, Vec<HostRow>)> {
    let rows: Vec<HostRow> = serde_json::from_value(meta.get("per_host")?.clone()).ok()?;
    let head = HostsHead {
        hosts: meta["hosts"].as_u64()? as usize,
        start_skew_ns: meta["start_skew_ns"].as_u64().unwrap_or(0),
        stonewall: meta["stonewall"].as_bool().unwrap_or(false),
        stonewalled: meta["stonewalled"].as_bool().unwrap_or(false),
    };
    Some((head, rows))
}

/// The head line, then the table.
pub fn write_hosts(head: &HostsHead, rows: &[HostRow], w: &mut dyn Write) -> std::io::Result<()> {
    writeln!(w, "\nPer host: {}", head.line())?;
    writeln!(w)?;
    writeln!(
        w,
        "| rank | host | job | dir | I/Os | IOPS | MiB/s | clat mean | clat p99 | CPU s |"
    )?;
    writeln!(w, "|---:|---|---|---|---:|---:|---:|---:|---:|---:|")?;
    for r in rows {
        writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} | {} | {:.2} |",
            r.rank,
            r.hostname,
            r.job,
            r.direction,
            r.ios,
            compact(r.iops),
            r.bw_bytes_per_sec / 1048576.0,
            micros(r.clat_mean_ns),
            micros(r.clat_p99_ns),
            r.cpu_ns as f64 / 1e9
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_host_with_the_skew_above() {
        let row = HostRow {
            rank: 2,
            hostname: "node3".into(),
            job: "rr".into(),
            direction: "read".into(),
            ios: 1000,
            iops: 12_345.0,
            bw_bytes_per_sec: 2.0 * 1048576.0,
            clat_mean_ns: 1_500.0,
            clat_p99_ns: 45_000.0,
            cpu_ns: 500_000_000,
        };
        let head = HostsHead {
            hosts: 4,
            start_skew_ns: 42_000,
            stonewall: false,
            stonewalled: false,
        };
        let mut out = Vec::new();
        write_hosts(&head, std::slice::from_ref(&row), &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("4 hosts, started within 0.042 ms"), "{s}");
        assert!(
            s.contains(
                "| 2 | node3 | rr | read | 1000 | 12.3k | 2.0 | 1.50 µs | 45.00 µs | 0.50 |"
            ),
            "{s}"
        );
        let meta = serde_json::json!({"hosts": 4, "start_skew_ns": 42_000, "per_host": [row]});
        let (h, rows) = from_meta(&meta).unwrap();
        assert_eq!((h, rows.len()), (head, 1));
        assert!(from_meta(&serde_json::json!({})).is_none());
    }
}
