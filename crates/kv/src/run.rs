//! Runs db_bench for one workload: its stdout kept for the parser, its stderr read line by
//! line for progress and stall lines (and kept, so a failure can show its last lines), the
//! disk under the database sampled every second alongside.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::parse::{
    assertions_enabled, parse_cumulative_stall, parse_progress, parse_stdout, BenchResult,
};
use crate::sampler::{sample_until, DiskSample};
use crate::KvError;

/// What one db_bench run gave.
#[derive(Debug, Clone, Default)]
pub struct WorkloadRun {
    pub result: BenchResult,
    /// The last `Cumulative stall` share db_bench printed, in percent.
    pub stall_percent: Option<f64>,
    pub disk: Vec<DiskSample>,
    /// (seconds since start, total ops of all threads, ops/s since the previous point) from
    /// db_bench's per-thread progress lines, summed over threads about once a second.
    pub progress: Vec<(f64, u64, f64)>,
    pub wall_seconds: f64,
    /// db_bench said it was built with assertions enabled (slower than a release build).
    pub assertions: bool,
}

/// Sums db_bench's per-thread progress into one series. Each thread prints its own line
/// every interval; a round ends when a thread reports a second time, and its point is the
/// sum of every thread's total at the round's last line.
#[derive(Debug, Default)]
pub struct ProgressSum {
    per_thread: Vec<u64>,
    seen: Vec<bool>,
    round_t: f64,
    last: (f64, u64),
}

impl ProgressSum {
    /// Takes one thread's total at `t` seconds; returns the finished round's point
    /// (t, total of all threads, ops/s since the previous point) when this line starts a new one.
    pub fn add(&mut self, t: f64, thread: u32, total: u64) -> Option<(f64, u64, f64)> {
        let i = thread as usize;
        if self.per_thread.len() <= i {
            self.per_thread.resize(i + 1, 0);
            self.seen.resize(i + 1, false);
        }
        let out = if self.seen[i] { self.finish() } else { None };
        self.per_thread[i] = total;
        self.seen[i] = true;
        self.round_t = t;
        out
    }

    /// The point of the round in progress, if any thread reported in it.
    pub fn finish(&mut self) -> Option<(f64, u64, f64)> {
        if !self.seen.iter().any(|s| *s) {
            return None;
        }
        let sum: u64 = self.per_thread.iter().sum();
        let dt = self.round_t - self.last.0;
        let rate = if dt > 0.0 {
            sum.saturating_sub(self.last.1) as f64 / dt
        } else {
            0.0
        };
        self.last = (self.round_t, sum);
        self.seen.iter_mut().for_each(|s| *s = false);
        Some((self.round_t, sum, rate))
    }
}

/// `db_bench --version` (`7.8.3`): also shows the binary runs at all.
pub fn version(bin: &Path) -> Result<String, KvError> {
    let out = Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| KvError::Spawn {
            bin: bin.display().to_string(),
            source: e,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.trim().rsplit_once(' ') {
        Some((_, v)) if out.status.success() => Ok(v.to_string()),
        _ => Err(KvError::Failed {
            status: out.status.to_string(),
            stderr_tail: tail(&String::from_utf8_lossy(&out.stderr), 4),
        }),
    }
}

/// Last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// How long db_bench has to stop after SIGINT before it is killed.
pub const KILL_AFTER: Duration = Duration::from_secs(5);

/// Sends db_bench's process group (`pid` leads it) SIGINT once `interrupt` is set, and
/// SIGKILL when it ignores that for KILL_AFTER, so an interrupted iolab never waits for ever;
/// returns when `stop` is set. The whole group: a child db_bench started dies with it.
fn forward_interrupt(pid: libc::pid_t, interrupt: &AtomicBool, stop: &AtomicBool) {
    let mut sent: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        if interrupt.load(Ordering::Relaxed) {
            let sig = match sent {
                None => Some(libc::SIGINT),
                Some(t) if t.elapsed() >= KILL_AFTER => Some(libc::SIGKILL),
                Some(_) => None,
            };
            if let Some(sig) = sig {
                // SAFETY: pid is our child and leads its own process group; the group
                // lives while the child is not yet reaped (the waiter flags that first).
                unsafe { libc::kill(-pid, sig) };
                if sig == libc::SIGKILL {
                    return;
                }
                sent = Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How long db_bench's output is read after it exited, for whatever is still in the pipe.
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// One of db_bench's output pipes, read with poll(2) so that a reader stops (as at EOF)
/// once `give_up` is set instead of waiting on a pipe another process keeps open.
struct Pipe<'a> {
    file: std::fs::File,
    give_up: &'a AtomicBool,
}

impl<'a> Pipe<'a> {
    fn new(end: impl Into<std::os::fd::OwnedFd>, give_up: &'a AtomicBool) -> Pipe<'a> {
        Pipe {
            file: std::fs::File::from(end.into()),
            give_up,
        }
    }
}

impl Read for Pipe<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd;
        loop {
            if self.give_up.load(Ordering::Relaxed) {
                return Ok(0);
            }
            let mut p = libc::pollfd {
                fd: self.file.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the call.
            let n = unsafe { libc::poll(&mut p, 1, 100) };
            if n > 0 {
                return self.file.read(buf);
            }
            if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
}

/// What db_bench said on stderr while it ran: its progress, its stall share, the text.
#[derive(Default)]
struct StderrSeen {
    progress: Vec<(f64, u64, f64)>,
    stall_percent: Option<f64>,
    text: String,
}

/// Reads db_bench's stderr to its end, reporting progress as it comes.
fn follow_stderr(
    stderr: impl Read,
    started: Instant,
    on_progress: &mut impl FnMut(Duration, f64, u64),
) -> StderrSeen {
    let mut seen = StderrSeen::default();
    let mut sum = ProgressSum::default();
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        if let Some((thread, ops, _)) = parse_progress(&line) {
            let el = started.elapsed();
            if let Some((t, total, rate)) = sum.add(el.as_secs_f64(), thread, ops) {
                seen.progress.push((t, total, rate));
                on_progress(el, rate, total);
            }
        }
        if let Some(p) = parse_cumulative_stall(&line) {
            seen.stall_percent = Some(p);
        }
        seen.text.push_str(&line);
        seen.text.push('\n');
    }
    seen.progress.extend(sum.finish());
    seen
}

/// Runs `bin` with `args`; `on_progress(elapsed, ops/s of all threads, ops done by all
/// threads)` is called about once a
/// second while db_bench reports progress. `disk` (a /proc/diskstats name) is sampled every
/// second meanwhile. When `interrupt` is set (iolab's own signal flag), db_bench is sent
/// SIGINT, in case the signal reached iolab alone.
pub fn run_db_bench(
    bin: &Path,
    args: &[String],
    disk: Option<&str>,
    interrupt: &AtomicBool,
    mut on_progress: impl FnMut(Duration, f64, u64),
) -> Result<WorkloadRun, KvError> {
    let started = Instant::now();
    let spawn_err = |e| KvError::Spawn {
        bin: bin.display().to_string(),
        source: e,
    };
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so an interrupt reaches every process it started.
        .process_group(0)
        .spawn()
        .map_err(spawn_err)?;
    let stop = AtomicBool::new(false);
    let give_up = AtomicBool::new(false);
    let readers_done = AtomicBool::new(false);
    let stdout = Pipe::new(child.stdout.take().expect("piped stdout"), &give_up);
    let stderr = Pipe::new(child.stderr.take().expect("piped stderr"), &give_up);
    let pid = child.id() as libc::pid_t;
    let mut disk_samples = Vec::new();
    let (seen, out_text, status) = std::thread::scope(|s| {
        let out_reader = s.spawn(move || {
            let mut t = String::new();
            let _ = BufReader::new(stdout).read_to_string(&mut t);
            t
        });
        let stop = &stop;
        s.spawn(move || forward_interrupt(pid, interrupt, stop));
        if let Some(d) = disk {
            let samples = &mut disk_samples;
            s.spawn(move || sample_until(d, Duration::from_secs(1), stop, samples));
        }
        let (give_up, readers_done) = (&give_up, &readers_done);
        let waiter = s.spawn(move || {
            let status = child.wait();
            stop.store(true, Ordering::Relaxed);
            // A process db_bench left behind may hold its output open: the readers get a
            // moment to drain, then stop at what they have.
            let exited = Instant::now();
            while !readers_done.load(Ordering::Relaxed) && exited.elapsed() < OUTPUT_GRACE {
                std::thread::sleep(Duration::from_millis(20));
            }
            give_up.store(true, Ordering::Relaxed);
            status
        });
        let seen = follow_stderr(stderr, started, &mut on_progress);
        let out_text = out_reader.join().unwrap_or_default();
        readers_done.store(true, Ordering::Relaxed);
        let status = waiter.join().expect("the waiter does not panic");
        (seen, out_text, status)
    });
    let status = status.map_err(spawn_err)?;
    let failed = |status: String| KvError::Failed {
        status,
        stderr_tail: tail(&format!("{out_text}{}", seen.text), 8),
    };
    if !status.success() {
        return Err(failed(status.to_string()));
    }
    let result = parse_stdout(&out_text)
        .into_iter()
        .next()
        .ok_or_else(|| failed("no result line in db_bench's output".into()))?;
    Ok(WorkloadRun {
        result,
        stall_percent: seen.stall_percent,
        disk: disk_samples,
        progress: seen.progress,
        wall_seconds: started.elapsed().as_secs_f64(),
        assertions: assertions_enabled(&out_text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_of_four_threads_sums_into_one_point_a_round() {
        let mut s = ProgressSum::default();
        assert_eq!(s.add(1.000, 1, 98_000), None);
        assert_eq!(s.add(1.002, 3, 98_000), None);
        assert_eq!(s.add(1.004, 2, 95_000), None);
        assert_eq!(s.add(1.005, 0, 95_000), None);
        // Thread 1 again: the first round is done, at its last line.
        let (t, total, rate) = s.add(2.004, 1, 210_000).unwrap();
        assert_eq!((t, total), (1.005, 386_000));
        assert!((rate - 386_000.0 / 1.005).abs() < 1.0, "{rate}");
        s.add(2.005, 0, 208_000);
        let (t, total, rate) = s.finish().unwrap();
        assert_eq!((t, total), (2.005, 386_000 + 112_000 + 113_000));
        assert!((rate - 225_000.0).abs() < 1.0, "{rate}");
        assert_eq!(s.finish(), None);
        assert_eq!(tail("a\nb\nc", 2), "b\nc");
    }
}
