//! Runs prepared jobs concurrently: one thread per job copy, all released together from a
//! barrier once every engine has opened, so no job measures while another is still setting up.

use std::cell::Cell;
use std::sync::atomic::AtomicBool;
use std::sync::Barrier;
use std::time::SystemTime;

use iolab_stats::Clock;

use crate::result::{CpuUsage, JobReport, RunOutcome};
use crate::worker::{Worker, WorkerResult};
use crate::{signal, PreparedJob, RunError};

#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    pub clock: Clock,
    /// Print elapsed time on stderr once a second while the jobs run (for terminals). The
    /// main thread does it while it waits, so the workers pay nothing.
    pub progress: bool,
}

/// Waits for the workers, printing elapsed against planned time on stderr.
fn show_progress<T>(handles: &[std::thread::ScopedJoinHandle<'_, T>], jobs: &[PreparedJob]) {
    let planned = jobs
        .iter()
        .map(|j| {
            j.spec
                .time_based
                .then(|| (j.spec.ramp_time + j.spec.runtime.unwrap_or_default()).as_secs())
        })
        .collect::<Option<Vec<u64>>>()
        .and_then(|v| v.into_iter().max());
    let start = std::time::Instant::now();
    let mut shown = false;
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let secs = start.elapsed().as_secs();
        if secs == 0 {
            continue;
        }
        match planned {
            Some(p) => eprint!(
                "\riolab: {secs} s of {p} s, {} job(s) running ",
                handles.len()
            ),
            None => eprint!("\riolab: {secs} s, {} job(s) running ", handles.len()),
        }
        shown = true;
    }
    if shown {
        eprint!("\r{:60}\r", "");
    }
}

/// Runs all `jobs` side by side and returns one report per job (copies merged when the job
/// asks for group reporting, else one report per copy).
pub fn run_jobs(jobs: &[PreparedJob], opts: &RunOptions) -> Result<RunOutcome, RunError> {
    let started = SystemTime::now();
    let workers: Vec<(usize, u32)> = jobs
        .iter()
        .enumerate()
        .flat_map(|(i, j)| (0..j.spec.numjobs).map(move |c| (i, c)))
        .collect();
    let barrier = Barrier::new(workers.len());
    let abort = AtomicBool::new(false);
    let stop = signal::stop_flag();
    let results: Vec<Result<Option<WorkerResult>, RunError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .map(|&(i, clone_index)| {
                let w = Worker {
                    job: &jobs[i],
                    clone_index,
                    clock: opts.clock,
                    barrier: &barrier,
                    abort: &abort,
                    stop,
                    started: Cell::new(false),
                };
                std::thread::Builder::new()
                    .name(format!("iolab-{}-{clone_index}", i))
                    .spawn_scoped(scope, move || w.run())
                    .expect("spawning a worker thread")
            })
            .collect();
        if opts.progress {
            show_progress(&handles, jobs);
        }
        handles
            .into_iter()
            .zip(&workers)
            .map(|(h, &(i, _))| {
                h.join().unwrap_or_else(|_| {
                    Err(RunError::Worker {
                        job: jobs[i].spec.name.clone(),
                        reason: "panicked".into(),
                    })
                })
            })
            .collect()
    });

    let mut reports: Vec<JobReport> = Vec::new();
    let mut first_err = None;
    for (res, &(i, _)) in results.into_iter().zip(&workers) {
        match res {
            Err(e) => {
                first_err.get_or_insert(e);
            }
            Ok(None) => {}
            Ok(Some(w)) => {
                let job = &jobs[i];
                let report = JobReport {
                    job_index: i,
                    spec: job.spec.clone(),
                    clones: 1,
                    dirs: w.dirs,
                    runtime_ns: opts.clock.ticks_to_ns(w.runtime_ticks) as u64,
                    cpu: CpuUsage {
                        user_ns: w.cpu.user_ns,
                        sys_ns: w.cpu.sys_ns,
                        iowq_ns: w.cpu.iowq_ns,
                        sqpoll_ns: w.cpu.sqpoll_ns,
                        ctx: w.cpu.ctx,
                    },
                    target: job.facts.clone(),
                    region: job.region,
                    notes: w.notes,
                    interrupted: w.interrupted,
                };
                // Merge copies of a job that reports as a group (consecutive by construction).
                match reports.last_mut() {
                    Some(last) if job.spec.group_reporting && last.job_index == i => {
                        last.merge(&report)
                    }
                    _ => reports.push(report),
                }
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    let interrupted = reports.iter().any(|r| r.interrupted);
    Ok(RunOutcome {
        jobs: reports,
        clock: opts.clock,
        started,
        interrupted,
    })
}
