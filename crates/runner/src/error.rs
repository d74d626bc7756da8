//! Why a run could not start or did not finish. `is_bad_input` separates what the user asked
//! wrongly (exit 2, nothing written) from what went wrong while running (exit 1).

use std::path::PathBuf;

use iolab_engine::{Direction, EngineError};
use iolab_job::JobError;
use iolab_sysinfo::{SafetyError, TargetError};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("job '{job}': {source}")]
    Job {
        job: String,
        #[source]
        source: JobError,
    },
    #[error("job '{job}': {source}")]
    Target {
        job: String,
        #[source]
        source: TargetError,
    },
    #[error("job '{job}': {source}")]
    Safety {
        job: String,
        #[source]
        source: SafetyError,
    },
    /// A setting that cannot work on this target (alignment, missing file, ...).
    #[error("job '{job}': {reason}")]
    Unusable { job: String, reason: String },
    #[error("job '{job}': {source}")]
    Engine {
        job: String,
        #[source]
        source: EngineError,
    },
    #[error("job '{job}': preparing {}: {source}", path.display())]
    Layout {
        job: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("job '{job}': {dir:?} of {len} bytes at offset {offset} of {} failed: {}", path.display(), io_cause(source))]
    Io {
        job: String,
        path: PathBuf,
        dir: Direction,
        offset: u64,
        len: u32,
        #[source]
        source: std::io::Error,
    },
    /// A block read back is not what was written (fio's verify).
    #[error("job '{job}': verify failed reading {}: {mismatch}{}", path.display(), dumped.as_ref().map(|d| format!("; the block read is in {}", d.display())).unwrap_or_default())]
    Verify {
        job: String,
        path: PathBuf,
        mismatch: Box<iolab_verify::Mismatch>,
        /// Where `verify_dump` wrote the block read.
        dumped: Option<PathBuf>,
    },
    /// The job fell below its `rate_min` / `rate_iops_min` (fio ends it the same way).
    #[error("job '{job}': {reason}")]
    RateFloor { job: String, reason: String },
    /// An I/O missed `latency_target` at queue depth 1 with `latency_percentile=100`.
    #[error("job '{job}': {reason}")]
    LatencyTarget { job: String, reason: String },
    #[error("job '{job}': worker thread failed: {reason}")]
    Worker { job: String, reason: String },
    /// The watchdog stopped the job: it ran far past its planned end.
    #[error(
        "job '{job}': stopped by the watchdog {grace_s} s past its planned end of {planned_s} s \
         (IOLAB_WATCHDOG=0 turns it off); what it measured until then is kept"
    )]
    Watchdog {
        job: String,
        planned_s: u64,
        grace_s: u64,
    },
    /// Stopped by SIGINT/SIGTERM before measuring (while laying out files).
    #[error("interrupted while laying out files (what was laid out is removed)")]
    Interrupted,
    /// The jobs ask more of this machine than it has (threads, memory, free space).
    #[error("{0}")]
    Limit(String),
}

/// An I/O's failure in words: an NVMe passthrough command's status (no errno is 256 or
/// more; fio's io_uring_cmd reports the status as its error number, as iolab does) named as
/// the NVMe specification names it, anything else as the system says it.
fn io_cause(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) if code >= 0x100 => iolab_engine::protection::status_text(code as u32),
        _ => e.to_string(),
    }
}

impl RunError {
    /// The errno fio would report for this error as `err=` (EILSEQ for a verify mismatch,
    /// as fio's; EIO where the cause carries none).
    pub fn errno(&self) -> i32 {
        match self {
            RunError::Io { source, .. } => source.raw_os_error().unwrap_or(libc::EIO),
            RunError::Verify { .. } => libc::EILSEQ,
            RunError::Watchdog { .. } | RunError::LatencyTarget { .. } => libc::ETIMEDOUT,
            _ => libc::EIO,
        }
    }

    /// True for errors found before any I/O that the user can fix by asking differently.
    pub fn is_bad_input(&self) -> bool {
        match self {
            RunError::Job { .. }
            | RunError::Target { .. }
            | RunError::Safety { .. }
            | RunError::Unusable { .. }
            | RunError::Limit(_) => true,
            RunError::Engine { source, .. } => matches!(source, EngineError::Unsupported { .. }),
            _ => false,
        }
    }
}
