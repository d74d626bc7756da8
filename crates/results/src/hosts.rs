//! A run on many hosts at once (MPI ranks): what each host sends to the first, and how the
//! first makes one result of them.
//!
//! The merge is exact: histograms are added bucket by bucket (every host records in the same
//! timebase, nanoseconds, for this reason), I/O counts and bytes are summed, and a job's
//! measured window is the longest host's, as fio's `sum_thread_stats` does for "All clients".
//! No percentile is ever averaged.

use serde::{Deserialize, Serialize};

use crate::{JobReport, RunOutcome};

/// One host's part of a multi-host run, as it travels to the first rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostOutcome {
    /// Its MPI rank (0 is the one that gathers).
    pub rank: u32,
    pub hostname: String,
    /// When each phase was released on this host: ns since the Unix epoch (CLOCK_REALTIME,
    /// so comparable across hosts as far as their clocks agree).
    pub phase_starts_ns: Vec<i64>,
    pub outcome: RunOutcome,
}

/// Why hosts' results cannot be merged.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MergeError {
    #[error("no host sent results")]
    NoHosts,
    #[error(
        "host {host} recorded latencies in another timebase ({theirs}) than {first} ({ours}): \
         histograms would not add up exactly"
    )]
    Timebase {
        host: String,
        theirs: String,
        first: String,
        ours: String,
    },
}

/// Every host's results, the merged run and how far apart the hosts started.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHostOutcome {
    /// In rank order.
    pub hosts: Vec<HostOutcome>,
    /// Each job merged over every host ("All clients").
    pub all: RunOutcome,
    /// Latest minus earliest host start, the largest over the run's phases, in ns.
    pub start_skew_ns: u64,
    /// Whether the run asked for a stonewall across hosts (`--stonewall-hosts`); set by the
    /// caller, which knows the options.
    pub stonewall: bool,
}

impl MultiHostOutcome {
    /// Merges `hosts` (any order; kept in rank order).
    pub fn merge(mut hosts: Vec<HostOutcome>) -> Result<MultiHostOutcome, MergeError> {
        hosts.sort_by_key(|h| h.rank);
        let first = hosts.first().ok_or(MergeError::NoHosts)?;
        for h in &hosts[1..] {
            if h.outcome.clock != first.outcome.clock {
                return Err(MergeError::Timebase {
                    host: h.hostname.clone(),
                    theirs: format!("{:?}", h.outcome.clock),
                    first: first.hostname.clone(),
                    ours: format!("{:?}", first.outcome.clock),
                });
            }
        }
        let mut all = RunOutcome {
            jobs: Vec::new(),
            disks: Vec::new(),
            clock: first.outcome.clock,
            started: first.outcome.started,
            interrupted: false,
            health: Vec::new(),
        };
        for h in &hosts {
            merge_jobs(&mut all.jobs, &h.outcome.jobs);
            // Each host's drives, named by their host.
            all.health
                .extend(h.outcome.health.iter().map(|d| crate::DriveHealth {
                    drive: format!("{}:{}", h.hostname, d.drive),
                    ..d.clone()
                }));
            all.started = all.started.min(h.outcome.started);
            all.interrupted |= h.outcome.interrupted;
        }
        let start_skew_ns = start_skew_ns(&hosts);
        Ok(MultiHostOutcome {
            hosts,
            all,
            start_skew_ns,
            stonewall: false,
        })
    }

    /// Whether any host's job was stopped early by a stonewall.
    pub fn stonewalled(&self) -> bool {
        self.hosts
            .iter()
            .flat_map(|h| &h.outcome.jobs)
            .any(|j| j.stonewalled)
    }
}

/// One host's figures for one job and direction, as the store keeps them (in the run's
/// `meta.per_host`) and as the per-host tables and charts show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostRow {
    pub rank: u32,
    pub hostname: String,
    pub job: String,
    /// `read` or `write`.
    pub direction: String,
    pub ios: u64,
    pub iops: f64,
    pub bw_bytes_per_sec: f64,
    pub clat_mean_ns: f64,
    pub clat_p99_ns: f64,
    /// The host's CPU for the job (user + system + kernel helpers), in ns.
    pub cpu_ns: u64,
}

impl MultiHostOutcome {
    /// One row per host, job and direction that did I/O, in rank order.
    pub fn host_rows(&self) -> Vec<HostRow> {
        let mut rows = Vec::new();
        for h in &self.hosts {
            let tb = &h.outcome.clock;
            for j in &h.outcome.jobs {
                for d in [crate::Direction::Read, crate::Direction::Write] {
                    let Some(r) = j.dir(d).filter(|r| r.ios > 0) else {
                        continue;
                    };
                    let s = r.clat.summarize(tb, &[99.0]);
                    rows.push(HostRow {
                        rank: h.rank,
                        hostname: h.hostname.clone(),
                        job: j.setup.name.clone(),
                        direction: d.name().to_string(),
                        ios: r.ios,
                        iops: j.iops(d),
                        bw_bytes_per_sec: j.bw_bytes_per_sec(d),
                        clat_mean_ns: s.mean_ns,
                        clat_p99_ns: s.percentiles_ns.first().map_or(0.0, |p| p.1),
                        cpu_ns: j.cpu.total_ns(),
                    });
                }
            }
        }
        rows
    }
}

/// Adds one host's reports into `into`: the n-th report of a job on one host merges with the
/// n-th report of the same job on the others (every host runs the same jobs).
fn merge_jobs(into: &mut Vec<JobReport>, host: &[JobReport]) {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for r in host {
        let nth = seen.iter().filter(|(j, _)| *j == r.job_index).count();
        seen.push((r.job_index, nth));
        let same = into
            .iter()
            .enumerate()
            .filter(|(_, a)| a.job_index == r.job_index)
            .nth(nth)
            .map(|(k, _)| k);
        match same {
            Some(k) => into[k].merge(r),
            None => into.push(r.clone()),
        }
    }
}

/// The largest over the phases of (latest host start − earliest host start).
fn start_skew_ns(hosts: &[HostOutcome]) -> u64 {
    let phases = hosts
        .iter()
        .map(|h| h.phase_starts_ns.len())
        .max()
        .unwrap_or(0);
    (0..phases)
        .filter_map(|p| {
            let starts: Vec<i64> = hosts
                .iter()
                .filter_map(|h| h.phase_starts_ns.get(p).copied())
                .collect();
            let lo = starts.iter().min()?;
            let hi = starts.iter().max()?;
            Some(hi.abs_diff(*lo))
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::{
        CpuUsage, DepthCounts, DirResult, JobSetup, LatencyHistogram, TargetFacts, TargetKind,
        Timebase,
    };

    /// A host that read `lats_ns` (one I/O each) over `runtime_ns`.
    fn host(rank: u32, lats_ns: &[u64], runtime_ns: u64, start_ns: i64) -> HostOutcome {
        let mut lat = LatencyHistogram::new();
        lats_ns.iter().for_each(|&l| lat.record(l));
        let mut read = DirResult::empty();
        read.ios = lats_ns.len() as u64;
        read.bytes = read.ios * 4096;
        read.clat = lat.clone();
        read.lat = lat;
        let job = JobReport {
            job_index: 0,
            group_id: 0,
            setup: JobSetup::named("j"),
            clones: 1,
            dirs: [Some(read), None, None],
            runtime_ns,
            total_runtime_ns: runtime_ns,
            elapsed_ns: runtime_ns,
            cpu: CpuUsage {
                user_ns: 10,
                ..CpuUsage::default()
            },
            depth: DepthCounts::default(),
            sync: None,
            logs: Vec::new(),
            traces: Vec::new(),
            errors: None,
            zone_resets: 0,
            target: TargetFacts {
                path: format!("/tmp/f.{rank}").into(),
                kind: TargetKind::File,
                size_bytes: 1 << 20,
                logical_block_size: 512,
                device: (0, 0),
                disk_name: None,
                polled: false,
            },
            notes: Vec::new(),
            fallback: None,
            device_interrupts: None,
            engine_setup: None,
            interrupted: false,
            stonewalled: false,
            steady: None,
            lat_target: None,
            started_unix_ms: 0,
            job_start_ms: None,
            repeats: Vec::new(),
            error: None,
        };
        HostOutcome {
            rank,
            hostname: format!("h{rank}"),
            phase_starts_ns: vec![start_ns],
            outcome: RunOutcome {
                jobs: vec![job],
                disks: Vec::new(),
                clock: Timebase::NANOSECONDS,
                started: SystemTime::UNIX_EPOCH,
                interrupted: false,
                health: Vec::new(),
            },
        }
    }

    #[test]
    fn hosts_merge_exactly_counts_summed_window_longest() {
        let a = host(1, &[1_000; 90], 2_000_000_000, 5_000);
        let b = host(0, &[100_000; 10], 1_000_000_000, 5_700);
        let m = MultiHostOutcome::merge(vec![a, b]).unwrap();
        assert_eq!(m.hosts[0].rank, 0, "kept in rank order");
        let all = &m.all.jobs[0];
        assert_eq!(all.total_ios(), 100);
        assert_eq!(all.clones, 2);
        assert_eq!(all.runtime_ns, 2_000_000_000);
        assert_eq!(all.cpu.user_ns, 20);
        // 90 at 1 µs and 10 at 100 µs: p90 is 1 µs and p95 is 100 µs only in the merged
        // histogram; no average of the hosts' percentiles gives that.
        let clat = &all.dirs[0].as_ref().unwrap().clat;
        assert_eq!(clat.percentile_ticks(90.0), 1_000);
        let p95 = clat.percentile_ticks(95.0);
        assert!((99_000..=101_000).contains(&p95), "{p95}");
        assert_eq!(m.start_skew_ns, 700);
    }

    #[test]
    fn another_timebase_is_refused() {
        let a = host(0, &[1_000], 1, 0);
        let mut b = host(1, &[1_000], 1, 0);
        b.outcome.clock = Timebase::with_ticks_per_ns(2.5);
        let e = MultiHostOutcome::merge(vec![a, b]).unwrap_err();
        assert!(e.to_string().contains("host h1"), "{e}");
        assert_eq!(MultiHostOutcome::merge(vec![]), Err(MergeError::NoHosts));
    }

    #[test]
    fn a_host_outcome_survives_the_wire() {
        let h = host(3, &[1_000, 2_000, 3_000], 7, 9);
        let bytes = serde_json::to_vec(&h).unwrap();
        let back: HostOutcome = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, h);
    }
}
