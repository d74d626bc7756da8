//! CPU time a job costs: its worker thread's own user and system time (getrusage
//! RUSAGE_THREAD), plus the kernel helper threads that work on its behalf — io_uring's io-wq
//! workers (`iou-wrk-<tid>`) and SQPOLL thread (`iou-sqp-<tid>`), named after the submitting
//! thread and read from /proc/self/task/*/schedstat. fio counts only its own thread, which
//! hides most of io_uring's cost on a device that punts every request to io-wq.

use std::fs;

/// A snapshot of CPU counters; subtract two to get the cost of what happened between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuSnapshot {
    pub user_ns: u64,
    pub sys_ns: u64,
    pub ctx: u64,
    /// Major and minor page faults of the job's own thread.
    pub majflt: u64,
    pub minflt: u64,
    /// io-wq worker threads' on-CPU time.
    pub iowq_ns: u64,
    /// SQPOLL thread's on-CPU time.
    pub sqpoll_ns: u64,
    /// How long the thread was runnable but waited for a CPU (the scheduler's `run_delay`,
    /// the second figure of its `schedstat`); `None` where the kernel does not say.
    pub wait_ns: Option<u64>,
}

impl CpuSnapshot {
    /// The calling thread's counters and those of its io_uring helper threads.
    pub fn of_current_thread() -> CpuSnapshot {
        // SAFETY: zeroed rusage is a valid out-buffer.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: RUSAGE_THREAD fills ru for the calling thread.
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
        let tv_ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        let (iowq_ns, sqpoll_ns) = helper_threads_ns(tid);
        CpuSnapshot {
            user_ns: tv_ns(ru.ru_utime),
            sys_ns: tv_ns(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            majflt: ru.ru_majflt as u64,
            minflt: ru.ru_minflt as u64,
            iowq_ns,
            sqpoll_ns,
            wait_ns: run_delay_ns(),
        }
    }

    /// What was spent from `earlier` to `self`. Helper threads can exit in between (io-wq
    /// workers retire when idle), so their deltas saturate at zero.
    pub fn since(&self, earlier: &CpuSnapshot) -> CpuSnapshot {
        CpuSnapshot {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majflt: self.majflt.saturating_sub(earlier.majflt),
            minflt: self.minflt.saturating_sub(earlier.minflt),
            iowq_ns: self.iowq_ns.saturating_sub(earlier.iowq_ns),
            sqpoll_ns: self.sqpoll_ns.saturating_sub(earlier.sqpoll_ns),
            wait_ns: match (self.wait_ns, earlier.wait_ns) {
                (Some(now), Some(then)) => Some(now.saturating_sub(then)),
                _ => None,
            },
        }
    }
}

/// The calling thread's wait for a CPU so far, in ns (`/proc/thread-self/schedstat`).
fn run_delay_ns() -> Option<u64> {
    let s = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().nth(1)?.parse().ok()
}

/// On-CPU ns of io-wq workers and SQPOLL threads created for thread `tid`.
fn helper_threads_ns(tid: i32) -> (u64, u64) {
    let wrk = format!("iou-wrk-{tid}");
    let sqp = format!("iou-sqp-{tid}");
    let (mut iowq, mut sqpoll) = (0, 0);
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return (0, 0);
    };
    for t in tasks.flatten() {
        let Ok(comm) = fs::read_to_string(t.path().join("comm")) else {
            continue;
        };
        let comm = comm.trim();
        let slot = if comm == wrk {
            &mut iowq
        } else if comm == sqp {
            &mut sqpoll
        } else {
            continue;
        };
        if let Some(ns) = fs::read_to_string(t.path().join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        {
            *slot += ns;
        }
    }
    (iowq, sqpoll)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_thread_accumulates_cpu() {
        // Spin until 30 ms of CPU are accounted, or 5 s of wall time pass (a loaded machine
        // may give the thread only part of each millisecond): accounting that never grows
        // fails, and what is accounted cannot exceed the wall time spent.
        let a = CpuSnapshot::of_current_thread();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut d = CpuSnapshot::of_current_thread().since(&a);
        while d.user_ns + d.sys_ns < 30_000_000 && t.elapsed().as_secs() < 5 {
            for _ in 0..100_000 {
                x = x.wrapping_mul(31).wrapping_add(7);
            }
            std::hint::black_box(x);
            d = CpuSnapshot::of_current_thread().since(&a);
        }
        let wall = t.elapsed().as_nanos() as u64;
        assert!(d.user_ns + d.sys_ns >= 30_000_000, "{d:?}");
        assert!(
            d.user_ns + d.sys_ns <= wall + 10_000_000,
            "{d:?} in {wall} ns"
        );
        assert_eq!(d.iowq_ns, 0);
        // This kernel says how long the thread waited, and never more than the wall time.
        let wait = d.wait_ns.expect("schedstat's run_delay");
        assert!(wait <= wall, "waited {wait} ns in {wall} ns");
    }
}
