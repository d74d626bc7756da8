//! What a run measured: per job (or per job copy), per direction, histograms in clock ticks
//! plus counters, CPU and notes. Exporters turn these into text or fio JSON.

use std::time::SystemTime;

use iolab_engine::Direction;
use iolab_job::{JobSpec, Region};
use iolab_stats::{Clock, LatencyHistogram};
use iolab_sysinfo::TargetFacts;

/// One direction's counters and latencies.
#[derive(Debug, Clone)]
pub struct DirResult {
    pub ios: u64,
    pub bytes: u64,
    /// Submission latency; `None` for synchronous engines, where submitting is completing.
    pub slat: Option<LatencyHistogram>,
    pub clat: LatencyHistogram,
    pub lat: LatencyHistogram,
}

impl DirResult {
    pub fn merge(&mut self, other: &DirResult) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        match (&mut self.slat, &other.slat) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.slat = Some(b.clone()),
            _ => {}
        }
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
    }
}

/// CPU spent while measuring, in ns: the job's own threads (user, system) and the kernel
/// helper threads working for them (io-wq workers, SQPOLL threads; all system time).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuUsage {
    pub user_ns: u64,
    pub sys_ns: u64,
    pub iowq_ns: u64,
    pub sqpoll_ns: u64,
    /// Context switches of the job's own threads.
    pub ctx: u64,
}

impl CpuUsage {
    pub fn helper_ns(&self) -> u64 {
        self.iowq_ns + self.sqpoll_ns
    }

    /// Everything: own user + own system + helpers.
    pub fn total_ns(&self) -> u64 {
        self.user_ns + self.sys_ns + self.helper_ns()
    }

    pub fn add(&mut self, o: &CpuUsage) {
        self.user_ns += o.user_ns;
        self.sys_ns += o.sys_ns;
        self.iowq_ns += o.iowq_ns;
        self.sqpoll_ns += o.sqpoll_ns;
        self.ctx += o.ctx;
    }
}

/// One reported job: a single job copy, or all copies merged (`group_reporting`).
#[derive(Debug, Clone)]
pub struct JobReport {
    /// Which of the run's jobs this reports on (its position in the list given to run_jobs).
    pub job_index: usize,
    pub spec: JobSpec,
    /// How many job copies this report covers.
    pub clones: u32,
    /// Indexed by [`Direction::index`]; `None` for directions the job does not issue.
    pub dirs: [Option<DirResult>; 2],
    /// Length of the measured window (after the ramp), in ns; the longest copy's.
    pub runtime_ns: u64,
    pub cpu: CpuUsage,
    pub target: TargetFacts,
    pub region: Region,
    /// Ways the kernel served the job differently from what was asked.
    pub notes: Vec<String>,
    pub interrupted: bool,
}

impl JobReport {
    pub fn dir(&self, d: Direction) -> Option<&DirResult> {
        self.dirs[d.index()].as_ref()
    }

    pub fn total_ios(&self) -> u64 {
        self.dirs.iter().flatten().map(|d| d.ios).sum()
    }

    /// I/Os per second over the measured window, for one direction.
    pub fn iops(&self, d: Direction) -> f64 {
        self.dir(d)
            .map_or(0.0, |r| per_second(r.ios, self.runtime_ns))
    }

    pub fn bw_bytes_per_sec(&self, d: Direction) -> f64 {
        self.dir(d)
            .map_or(0.0, |r| per_second(r.bytes, self.runtime_ns))
    }

    /// I/Os completed per second of CPU (own threads plus kernel helpers): what a path costs.
    pub fn iops_per_cpu_sec(&self) -> f64 {
        let cpu = self.cpu.total_ns();
        if cpu == 0 {
            return 0.0;
        }
        self.total_ios() as f64 / (cpu as f64 / 1e9)
    }

    /// Merges another copy of the same job into this report.
    pub fn merge(&mut self, other: &JobReport) {
        for (a, b) in self.dirs.iter_mut().zip(&other.dirs) {
            match (a.as_mut(), b) {
                (Some(a), Some(b)) => a.merge(b),
                (None, Some(b)) => *a = Some(b.clone()),
                _ => {}
            }
        }
        self.clones += other.clones;
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
        self.cpu.add(&other.cpu);
        for n in &other.notes {
            if !self.notes.contains(n) {
                self.notes.push(n.clone());
            }
        }
        self.interrupted |= other.interrupted;
    }
}

fn per_second(n: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        n as f64 * 1e9 / ns as f64
    }
}

/// Everything one call of `run_jobs` measured.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub jobs: Vec<JobReport>,
    pub clock: Clock,
    pub started: SystemTime,
    /// Stopped early by SIGINT/SIGTERM.
    pub interrupted: bool,
}
