//! What a job does around its I/O and when it gives up: commands run before and after it,
//! the user it runs as, the latency it may not exceed, whether its error ends the run, and
//! whether it is reported at all.

use std::time::Duration;

/// A job's control options, with fio's defaults from [`Default`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobControl {
    /// A shell command run before the job's I/O (`exec_prerun`), its output in
    /// `JOBNAME.prerun.txt`.
    pub exec_prerun: Option<String>,
    /// A shell command run after the job (`exec_postrun`), its output in
    /// `JOBNAME.postrun.txt`.
    pub exec_postrun: Option<String>,
    /// The user and group the job's thread takes before it opens its files (`uid`, `gid`).
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// The job stops with ETIMEDOUT when an I/O of a direction takes longer (`max_latency`,
    /// read/write/trim; None: no limit).
    pub max_latency: [Option<Duration>; 3],
    /// A job that ends in error stops every other job of the run (`exitall_on_error`).
    pub exitall_on_error: bool,
    /// The job is reported (`stats`, default true); false leaves it out of every output.
    pub stats: bool,
    /// The disks under the job's files are reported (`disk_util`, default true).
    pub disk_util: bool,
    /// Bytes of memory the job locks while it runs (`lockmem`), as if the machine had less.
    pub lockmem: u64,
    /// The errors the job goes on after (`continue_on_error`, `ignore_error`).
    pub errors: crate::ErrorPolicy,
}

impl Default for JobControl {
    fn default() -> JobControl {
        JobControl {
            exec_prerun: None,
            exec_postrun: None,
            uid: None,
            gid: None,
            max_latency: [None; 3],
            exitall_on_error: false,
            stats: true,
            disk_util: true,
            lockmem: 0,
            errors: crate::ErrorPolicy::default(),
        }
    }
}

impl JobControl {
    /// The latency limits in nanoseconds, `u64::MAX` where there is none: one compare per
    /// completion on the hot path.
    pub fn max_latency_ns(&self) -> [u64; 3] {
        self.max_latency
            .map(|d| d.map_or(u64::MAX, |d| d.as_nanos().min(u64::MAX as u128) as u64))
    }
}
