//! iolab's application load: RocksDB's `db_bench` (Debian's rocksdb-tools) run the way the
//! hosting review ran it — its four workloads with its parameters, scaled by key count — with
//! db_bench's own figures parsed from its output and the block device under the database
//! sampled every second from /proc/diskstats.

pub mod figures;
pub mod params;
pub mod parse;
pub mod plan;
pub mod run;
pub mod sampler;

pub use params::Workload;
pub use parse::BenchResult;
pub use plan::{plan, Planned};
pub use run::{run_db_bench, version, WorkloadRun};
pub use sampler::DiskSample;

#[derive(Debug, thiserror::Error)]
pub enum KvError {
    #[error("cannot run {bin}: {source}")]
    Spawn {
        bin: String,
        #[source]
        source: std::io::Error,
    },
    #[error("db_bench failed ({status}); its last lines:\n{stderr_tail}")]
    Failed { status: String, stderr_tail: String },
}

/// The open-file limit the review set (`ulimit -n 1000000`), rounded to a power of two.
pub const WANTED_OPEN_FILES: u64 = 1 << 20;

/// Raises the open-file limit for db_bench, which keeps every SST file open with the
/// review's open_files=500000 (the review hit "Too many open files" after 15–20 minutes at
/// the default 1024): both limits to [`WANTED_OPEN_FILES`] (capped by fs.nr_open) where
/// allowed (root), else the soft limit to the hard one. Returns (old soft, new soft).
pub fn raise_open_files() -> std::io::Result<(u64, u64)> {
    let nr_open = std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(WANTED_OPEN_FILES);
    let wanted = WANTED_OPEN_FILES.min(nr_open) as libc::rlim_t;
    // SAFETY: getrlimit/setrlimit read and write a plain struct.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let old = r.rlim_cur;
        if r.rlim_cur >= wanted {
            return Ok((old as u64, old as u64));
        }
        let both = libc::rlimit {
            rlim_cur: wanted,
            rlim_max: r.rlim_max.max(wanted),
        };
        if libc::setrlimit(libc::RLIMIT_NOFILE, &both) == 0 {
            return Ok((old as u64, wanted as u64));
        }
        // Not allowed to raise the hard limit: go as far as it.
        if r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            if libc::setrlimit(libc::RLIMIT_NOFILE, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok((old as u64, r.rlim_cur as u64))
    }
}

/// Free bytes for an unprivileged writer on the filesystem holding `dir`.
pub fn free_bytes(dir: &std::path::Path) -> std::io::Result<u64> {
    iolab_sysinfo::fsspace::fs_space(dir).map(|s| s.free_bytes)
}
