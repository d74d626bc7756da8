//! Runs prepared jobs phase by phase; within a phase, one thread per job copy, all released
//! together from a barrier once every engine has opened, so no job measures while another is
//! still setting up.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::SystemTime;

use iolab_stats::Clock;
use iolab_sysinfo::diskstats::{read_diskstats, DiskCounters};

use crate::exits::ExitScope;
use crate::flow::flows;
use crate::gate::StartGate;
use crate::live::{LiveCounters, LiveRates, RateMeter};
use crate::plan::wait_targets;
use crate::polling::IrqWatch;
use crate::steady::{SteadyMonitor, Tally};
use crate::watchdog::Watchdog;
use crate::worker::{Worker, WorkerResult};
use crate::{plan, signal, Peers, PreparedJob, RunError};
use iolab_results::{CpuUsage, DiskUsage, JobReport, RunOutcome};

#[derive(Debug, Clone, Copy)]
pub struct RunOptions<'a> {
    pub clock: Clock,
    /// The progress line to draw while the jobs run (the phase, its jobs, the time left); the
    /// main thread draws it while it waits, so the workers pay nothing. Each phase adds its
    /// planned time to the line's stages when it ends.
    pub progress: Option<&'a crate::progress::ProgressLine>,
    /// Totals the workers add to at each sample interval (every 500 ms of measured time), for
    /// a caller that shows live IOPS or MB/s from another thread.
    pub live: Option<&'a LiveCounters>,
    /// How the progress line and SIGUSR1's status say the current rates from `live`
    /// (fio's ETA line: `[r=1530MiB/s][r=392k IOPS]`); `None`: time only.
    pub live_text: Option<fn(&LiveRates) -> String>,
    /// Whole interim results every so often (fio's `--status-interval`), printed by the
    /// board's caller.
    pub status: Option<(
        &'a crate::status::StatusBoard,
        crate::status::StatusPrint<'a>,
    )>,
    /// How long a phase with a runtime may run past its planned end before the process gives
    /// up on it (its I/O is stuck in the kernel); `None`: wait for ever, as fio does.
    pub watchdog: Option<std::time::Duration>,
    /// The same jobs running in other processes (MPI ranks on other hosts): each phase starts
    /// when theirs does and may be stopped when one of them finishes first.
    pub peers: Option<&'a dyn Peers>,
    /// Keep glibc's rseq registration on the worker threads (see `rseq`): each worker drops
    /// it otherwise, to spare the kernel's update of it after every sleep.
    pub keep_rseq: bool,
    /// Run simple jobs in the lean loop (one file, one direction, one block size, no
    /// per-I/O latency): the same I/O at less cost. False: every job in the general loop,
    /// to compare the two.
    pub lean_loop: bool,
    /// How often the drives' health logs are read while the jobs run (besides once before
    /// and once after); `None`: before and after only (latency cells, where a log read
    /// beside the I/O could disturb the drive it measures).
    pub health_every: Option<std::time::Duration>,
}

/// How often a long run reads its drives' health logs unless told otherwise.
pub const HEALTH_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

impl<'a> RunOptions<'a> {
    /// A run on this host alone, as `iolab run` makes it: the line drawn while it runs, the
    /// watchdog's grace from the environment, the lean loop where a job allows it.
    pub fn on_this_host(
        clock: Clock,
        progress: &'a crate::progress::ProgressLine,
        keep_rseq: bool,
    ) -> RunOptions<'a> {
        RunOptions {
            clock,
            progress: Some(progress),
            live: None,
            live_text: None,
            status: None,
            watchdog: watchdog_grace(),
            peers: None,
            keep_rseq,
            lean_loop: true,
            health_every: Some(HEALTH_EVERY),
        }
    }
}

/// The clock a run stamps with: `CLOCK_MONOTONIC` when it splits latency (`lat_split`: the
/// kernel's events are stamped with that clock, and the join needs the same nanosecond), else
/// the calibrated TSC. A caller that converts a run's histograms itself takes its clock from
/// here; [`run_jobs`] switches to the monotonic clock for a split run whatever it was given,
/// and `RunOutcome::clock` says which it used.
pub fn run_clock(splits: bool) -> Clock {
    match splits {
        true => Clock::monotonic(),
        false => Clock::calibrate(std::time::Duration::from_millis(20)),
    }
}

/// How long a phase may run past its planned end: `$IOLAB_WATCHDOG` seconds, else 60;
/// `None` (no watchdog) for `0`. A value that is not a whole number of seconds is refused
/// by [`check_watchdog_env`] before anything runs.
pub fn watchdog_grace() -> Option<std::time::Duration> {
    parse_watchdog(std::env::var("IOLAB_WATCHDOG").ok().as_deref())
        .unwrap_or(Some(std::time::Duration::from_secs(DEFAULT_WATCHDOG_SECS)))
}

const DEFAULT_WATCHDOG_SECS: u64 = 60;

/// Refuses an `IOLAB_WATCHDOG` that is not a whole number of seconds.
pub fn check_watchdog_env() -> Result<(), String> {
    parse_watchdog(std::env::var("IOLAB_WATCHDOG").ok().as_deref()).map(|_| ())
}

fn parse_watchdog(v: Option<&str>) -> Result<Option<std::time::Duration>, String> {
    let Some(v) = v else {
        return Ok(Some(std::time::Duration::from_secs(DEFAULT_WATCHDOG_SECS)));
    };
    match v.trim().parse::<u64>() {
        Ok(0) => Ok(None),
        Ok(s) => Ok(Some(std::time::Duration::from_secs(s))),
        Err(_) => Err(format!(
            "IOLAB_WATCHDOG={}: not a whole number of seconds (how long a run may go past its \
             planned end before iolab gives up on it; 0 turns the watchdog off)",
            v.escape_debug()
        )),
    }
}

/// What the runner's own thread does while a phase's workers run.
struct Waiting<'a> {
    progress: Option<&'a crate::progress::ProgressLine>,
    /// What the line says runs: `job a (+1 more)`.
    running: String,
    watchdog: &'a Watchdog,
    /// Peers to poll (every millisecond) for a stonewall, with the phase's number and the
    /// flag that stops this phase's workers.
    peers: Option<(&'a dyn Peers, usize, &'a AtomicBool)>,
    /// The workers' own stop flags (with `exitall` or a steady-state check), which a signal
    /// or a peer's stop must set; empty when they watch the run's flag.
    own_flags: &'a [AtomicBool],
    /// The steady-state check, looked at once a second.
    steady: Option<SteadyMonitor<'a>>,
    /// Which workers burn CPU (cpuio with `exit_on_io_done`) and stop once the others are
    /// done; empty: none do.
    burners: &'a [bool],
    /// The run's live counters, how to say their rates, and the meter that measures them.
    live: Option<LiveLine<'a>>,
    /// Interim results (fio's `--status-interval`): when to ask, and how a worker's answer
    /// becomes a report.
    status: Option<(crate::status::StatusWait<'a>, StatusReports<'a>)>,
}

/// How a worker's interim answer becomes a report, and how reports are put together.
type StatusReports<'a> = (
    &'a dyn Fn(usize, WorkerResult) -> JobReport,
    &'a dyn Fn(&mut Vec<JobReport>, JobReport),
);

/// The run's live counters, how to say their rates, and the meter that measures them.
type LiveLine<'a> = (&'a LiveCounters, fn(&LiveRates) -> String, RateMeter);

impl Waiting<'_> {
    /// The current rates as the line says them (empty before the first is measured).
    fn figures(&mut self) -> String {
        match self.live.as_mut() {
            Some((live, text, meter)) => {
                let r = meter.look(live);
                match r.measured {
                    true => format!(" {}", text(&r)),
                    false => String::new(),
                }
            }
            None => String::new(),
        }
    }
}

/// Waits for the workers; with `progress`, prints elapsed against planned time on stderr.
/// Gives up on the process when the watchdog expires. With peers: passes a signal on to the
/// phase's stop flag, and stops the phase when a peer says so. Runs the steady-state check.
fn wait_for<T>(handles: &[std::thread::ScopedJoinHandle<'_, T>], w: &mut Waiting) {
    let planned = w.watchdog.planned().map(|d| d.as_secs());
    let start = std::time::Instant::now();
    let tick = match w.peers {
        Some(_) => std::time::Duration::from_millis(1),
        None => std::time::Duration::from_millis(50),
    };
    loop {
        let done = handles.iter().all(|h| h.is_finished());
        let mut stop_all = signal::stop_flag().load(Ordering::Relaxed);
        if let Some((peers, phase, stop)) = w.peers {
            if peers.poll(phase, done) || stop_all {
                stop.store(true, Ordering::Relaxed);
                stop_all = true;
            }
        }
        if stop_all {
            w.own_flags
                .iter()
                .for_each(|f| f.store(true, Ordering::Relaxed));
        }
        if done {
            break;
        }
        stop_burners(handles, w);
        if let Some(m) = w.steady.as_mut() {
            m.tick(|n| handles[n].is_finished());
        }
        let nap = w.steady.as_ref().map_or(tick, |m| m.due_in().min(tick));
        std::thread::sleep(nap);
        w.watchdog.check(|| {
            // As a signal would: every worker of the phase stops where it is.
            signal::request_stop();
            w.own_flags
                .iter()
                .for_each(|f| f.store(true, Ordering::Relaxed));
            if let Some((_, _, stop)) = w.peers {
                stop.store(true, Ordering::Relaxed);
            }
        });
        let secs = start.elapsed().as_secs();
        let figures = w.figures();
        if let Some((s, (report, merge))) = w.status.as_mut() {
            s.tick(
                handles.len(),
                |n| handles[n].is_finished(),
                |n, r| (*report)(n, r),
                |reports, r| (*merge)(reports, r),
            );
        }
        if signal::status_asked() {
            status_line(secs, planned, handles.len(), &figures, w.live.as_ref());
        }
        if let Some(line) = w.progress {
            let of = planned.map(|p| format!(" of {p} s")).unwrap_or_default();
            line.draw(
                format!("{}: {secs} s{of}{figures}", w.running),
                start.elapsed(),
            );
        }
    }
    if let Some(line) = w.progress {
        line.stage_over(w.watchdog.planned().unwrap_or(start.elapsed()));
    }
}

/// Once every worker but the CPU burners is done, stops the burners (cpuio's
/// `exit_on_io_done`: no I/O job runs or waits to start).
fn stop_burners<T>(handles: &[std::thread::ScopedJoinHandle<'_, T>], w: &Waiting) {
    let io_done = handles
        .iter()
        .zip(w.burners)
        .all(|(h, &burner)| burner || h.is_finished());
    if !w.burners.is_empty() && io_done {
        for (flag, _) in w.own_flags.iter().zip(w.burners).filter(|(_, &b)| b) {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// `job a`, `job a (+3 more)`: what a phase runs, for the progress line.
fn running_text(running: &[&PreparedJob]) -> String {
    let first = running.first().map_or("", |j| j.spec.name.as_str());
    match running.len() {
        0 | 1 => format!("job {first}"),
        n => format!("job {first} (+{} more)", n - 1),
    }
}

/// fio's answer to SIGUSR1: where the phase stands, on a line of its own, with the current
/// rates and what was done so far per direction.
fn status_line(
    secs: u64,
    planned: Option<u64>,
    jobs: usize,
    figures: &str,
    live: Option<&LiveLine>,
) {
    let of = planned.map(|p| format!(" of {p} s")).unwrap_or_default();
    let done = live.map_or(String::new(), |(l, _, _)| {
        let dirs: Vec<String> = l
            .by_direction()
            .iter()
            .zip(["read", "write", "trim"])
            .filter(|((ios, _), _)| *ios > 0)
            .map(|((ios, bytes), d)| format!("{d} {ios} I/Os, {bytes} bytes"))
            .collect();
        match dirs.is_empty() {
            true => String::new(),
            false => format!("; so far: {}", dirs.join(", ")),
        }
    });
    eprintln!("\niolab: status: {secs} s{of}, {jobs} job(s) running{figures}{done}");
}

/// Runs `jobs` in phases (each `stonewall` waits for everything before it; jobs within a
/// phase run side by side) and returns one report per job copy, or per reporting group for
/// jobs that ask for group reporting. Once SIGINT/SIGTERM arrives no further phase starts.
pub fn run_jobs(jobs: &[PreparedJob], opts: &RunOptions) -> Result<RunOutcome, RunError> {
    // The latency split joins iolab's stamps with the kernel's, which are CLOCK_MONOTONIC:
    // a run that splits stamps with that clock too (a TSC rate is good to 1e-4, a
    // millisecond an hour off; the join needs the same nanosecond).
    let split_clock = RunOptions {
        clock: Clock::monotonic(),
        ..*opts
    };
    let opts = match jobs.iter().any(|j| j.spec.lat_split) {
        true => &split_clock,
        false => opts,
    };
    let started = SystemTime::now();
    let wall = std::time::Instant::now();
    let _cgroups = crate::cgroup::RemoveAtEnd;
    let disks_before = read_diskstats().unwrap_or_default();
    let health = crate::health::HealthWatch::start(jobs, opts.health_every);
    let specs: Vec<_> = jobs.iter().map(|j| j.spec.clone()).collect();
    let groups = plan::group_ids(&specs);
    let mut reports: Vec<JobReport> = Vec::new();
    // fio numbers every job copy in run order from 1 (log files are named by it).
    let mut next_number = 1;
    // fio's `exitall` is one switch for the whole run, whichever job sets it.
    let run_over = AtomicBool::new(false);
    let exitall = specs
        .iter()
        .any(|s| s.exitall || s.control.exitall_on_error)
        .then_some(&run_over);
    let on_any_end = specs.iter().any(|s| s.exitall);
    // The run's last I/O job (not cpuio): cpuio's `exit_on_io_done` stops a burner only in
    // a phase after which no I/O job waits to start (fio's fio_running_or_pending_io_threads()),
    // and never in a run without I/O jobs.
    let phases = plan::phases(&specs);
    let last_io = specs.iter().rposition(|s| !burns_cpu(s));
    for (phase_no, phase) in phases.into_iter().enumerate() {
        let stop_burners = last_io.is_some_and(|l| phase.end > l);
        let stopped = signal::received().is_some() || signal::stop_flag().load(Ordering::Relaxed);
        if stopped && opts.peers.is_none() {
            break;
        }
        if run_over.load(Ordering::Relaxed) {
            break;
        }
        let first_number = next_number;
        next_number += phase.clone().map(|i| jobs[i].spec.numjobs).sum::<u32>();
        let at = PhaseAt {
            number: phase_no,
            first_job_number: first_number,
            exitall,
            on_any_end,
            stop_burners,
        };
        let over = reports.len();
        for report in run_phase(jobs, phase, &groups, at, opts)? {
            push_report(jobs, &mut reports, report);
        }
        if let Some((b, _)) = opts.status {
            b.phase_over(&reports[over.min(reports.len())..]);
        }
    }
    remark_written(jobs);
    let interrupted = signal::received().is_some() || reports.iter().any(|r| r.interrupted);
    // fio's `stats=0`: the job is left out of every output (a failed one still shows).
    reports.retain(|r| jobs[r.job_index].spec.control.stats || r.error.is_some());
    let disks = disk_usage(jobs, &disks_before, wall.elapsed().as_millis() as u64);
    Ok(RunOutcome {
        jobs: reports,
        disks,
        clock: opts.clock.timebase(),
        started,
        interrupted,
        health: health.finish(),
    })
}

/// Puts a report after the others, merged into the previous one when both report as a
/// group and share it (copies of one job are consecutive, and so are a group's jobs).
fn push_report(jobs: &[PreparedJob], reports: &mut Vec<JobReport>, report: JobReport) {
    match reports.last_mut() {
        Some(last)
            if jobs[report.job_index].spec.group_reporting
                && jobs[last.job_index].spec.group_reporting
                && last.group_id == report.group_id =>
        {
            last.merge(&report)
        }
        _ => reports.push(report),
    }
}

/// Files iolab made and the run wrote carry their new length and time in iolab's mark, so
/// the next run may write them again without consent (and a change by anyone else since
/// still shows).
fn remark_written(jobs: &[PreparedJob]) {
    let written = jobs
        .iter()
        .filter(|j| j.spec.writes_data() && !j.spec.engine.kind.def().accepts.nothing());
    // e4defrag's donor is written too (the job file's old blocks swapped in).
    for pin in written.flat_map(|j| j.pins.iter().chain(&j.donor)) {
        if let Ok(f) = pin.open(libc::O_RDONLY | libc::O_NONBLOCK) {
            if f.metadata().is_ok_and(|m| m.is_file()) {
                iolab_sysinfo::guard::remark(&f);
            }
        }
    }
}

/// The run's share of the counters of each disk behind a target.
fn disk_usage(
    jobs: &[PreparedJob],
    before: &BTreeMap<String, DiskCounters>,
    elapsed_ms: u64,
) -> Vec<DiskUsage> {
    let after = read_diskstats().unwrap_or_default();
    let names: BTreeSet<&str> = jobs
        .iter()
        .filter(|j| j.spec.control.disk_util)
        .flat_map(|j| j.files())
        .filter_map(|(f, _)| f.disk_name.as_deref())
        .collect();
    names
        .into_iter()
        .filter_map(|n| {
            Some(DiskUsage {
                name: n.to_string(),
                counters: after.get(n)?.since(before.get(n)?),
                elapsed_ms,
            })
        })
        .collect()
}

/// Where a phase stands in the run.
#[derive(Debug, Clone, Copy)]
struct PhaseAt<'a> {
    /// 0 for the first phase.
    number: usize,
    /// fio's job number of the phase's first job copy.
    first_job_number: u32,
    /// With `exitall` (or `exitall_on_error`) in the run: the flag that ends the run after
    /// this phase.
    exitall: Option<&'a AtomicBool>,
    /// `exitall` in the run: any job's end stops others (not only a failed one's).
    on_any_end: bool,
    /// No I/O job of the run is left for a later phase (and the run has some): its cpuio jobs
    /// with `exit_on_io_done` stop once its other jobs are done.
    stop_burners: bool,
}

/// A job of fio's cpuio engine, which burns CPU beside the I/O jobs.
fn burns_cpu(spec: &iolab_job::JobSpec) -> bool {
    spec.engine.kind == iolab_engine::EngineKind::Cpuio
}

/// A cpuio job that stops when the I/O jobs are done (`exit_on_io_done`). Without it, fio
/// 3.33 burns on until the job's runtime, whatever its reap_threads() means to do (measured:
/// a cpuio job beside a sized I/O job ran until interrupted).
fn stops_with_io(spec: &iolab_job::JobSpec) -> bool {
    burns_cpu(spec) && spec.engine.options.cpu.exit_on_io_done
}

/// Runs the jobs `phase` names side by side: one thread per job copy, all released together.
fn run_phase(
    jobs: &[PreparedJob],
    phase: Range<usize>,
    groups: &[u32],
    at: PhaseAt,
    opts: &RunOptions,
) -> Result<Vec<JobReport>, RunError> {
    let irqs = IrqWatch::start(phase.clone().map(|i| &jobs[i]));
    let workers: Vec<(usize, u32)> = phase
        .flat_map(|i| (0..jobs[i].spec.numjobs).map(move |c| (i, c)))
        .collect();
    let split = crate::split::SplitSession::start(jobs, &workers, at.first_job_number);
    let started = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    // fio 3.42's job_start_clock_id: each job's start by its own clock, read with the rest.
    let job_starts: Vec<Option<u64>> = jobs
        .iter()
        .map(|j| (j.spec.start_clock != 0).then(|| crate::iolog::clock_ms(j.spec.start_clock)))
        .collect();
    let (mut results, stonewalled) = run_workers(jobs, &workers, groups, at, opts, &split);
    split.finish(&mut results);
    let mut reports = Vec::new();
    let mut first_err = None;
    for (res, &(i, copy)) in results.into_iter().zip(&workers) {
        match res {
            Err(e) => {
                first_err.get_or_insert(e);
            }
            Ok(None) => {}
            Ok(Some(w)) => {
                let mut r = report_of(&jobs[i], (i, copy), groups[i], w, opts);
                r.started_unix_ms = started;
                r.job_start_ms = job_starts[i];
                reports.push(r);
            }
        }
    }
    if stonewalled {
        for r in &mut reports {
            stonewall(r);
        }
    } else if at.exitall.is_some() && signal::received().is_none() {
        // Stopped because another job ended (`exitall`): the window ended on purpose.
        reports.iter_mut().for_each(|r| r.interrupted = false);
    } else if at.stop_burners && signal::received().is_none() {
        // A CPU burner stopped with the I/O jobs: its window ended on purpose.
        for r in reports
            .iter_mut()
            .filter(|r| stops_with_io(&jobs[r.job_index].spec))
        {
            r.interrupted = false;
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => {
            irqs.finish(jobs, &mut reports);
            Ok(reports)
        }
    }
}

/// A job a peer stopped by finishing first: its window ended early on purpose, it was not
/// interrupted.
fn stonewall(r: &mut JobReport) {
    if r.interrupted && signal::received().is_none() {
        r.interrupted = false;
        r.stonewalled = true;
        r.notes
            .push("stonewalled: stopped when the first host finished its job".into());
    }
}

/// With peers: once the `local` workers are at the gate, waits for every peer's (aborting
/// the phase here when any was not ready), then arrives last and so releases them.
fn line_up(peers: &dyn Peers, phase: usize, gate: &StartGate, local: usize, abort: &AtomicBool) {
    gate.wait_for_arrivals(local);
    let ready = !abort.load(Ordering::SeqCst) && signal::received().is_none();
    if !peers.start_together(phase, ready) {
        abort.store(true, Ordering::SeqCst);
    }
    gate.count_in(1);
}

/// One thread per (job, copy), lined up at a start gate; each one's result, in order, and
/// whether a peer stopped the phase (stonewall).
fn run_workers(
    jobs: &[PreparedJob],
    workers: &[(usize, u32)],
    groups: &[u32],
    at: PhaseAt,
    opts: &RunOptions,
    split: &crate::split::SplitSession,
) -> (Vec<WorkerOut>, bool) {
    // With peers, the runner's own thread is the gate's last arrival: it comes in once every
    // peer is ready too.
    let own = usize::from(opts.peers.is_some());
    let barrier = StartGate::new(workers.len() + own);
    let abort = AtomicBool::new(false);
    let phase_stop = AtomicBool::new(false);
    let stop = match opts.peers {
        Some(_) => &phase_stop,
        None => signal::stop_flag(),
    };
    // Each worker watches a flag of its own when something may stop it alone: `exitall`,
    // or a steady-state check.
    let steady_specs: Vec<_> = workers
        .iter()
        .map(|&(i, _)| {
            let s = &jobs[i].spec;
            (s.steady.clone(), groups[i], s.group_reporting)
        })
        .collect();
    let run_copies = jobs.iter().map(|j| j.spec.numjobs).sum();
    let checks_steady = steady_specs.iter().any(|s| s.0.on());
    // Which workers burn CPU, where they are to stop with the phase's other jobs.
    let stops_burners =
        at.stop_burners && workers.iter().any(|&(i, _)| stops_with_io(&jobs[i].spec));
    let burners: Vec<bool> = match stops_burners {
        true => workers
            .iter()
            .map(|&(i, _)| stops_with_io(&jobs[i].spec))
            .collect(),
        false => Vec::new(),
    };
    let own_flags: Vec<AtomicBool> = match at.exitall.is_some() || checks_steady || stops_burners {
        true => workers.iter().map(|_| AtomicBool::new(false)).collect(),
        false => Vec::new(),
    };
    let tallies: Vec<Tally> = match checks_steady {
        true => workers.iter().map(|_| Tally::default()).collect(),
        false => Vec::new(),
    };
    let worker_groups: Vec<u32> = workers.iter().map(|&(i, _)| groups[i]).collect();
    let exits = at.exitall.map(|run_over| ExitScope {
        flags: &own_flags,
        groups: &worker_groups,
        run_over,
        on_any_end: at.on_any_end,
    });
    let mut specs: Vec<usize> = workers.iter().map(|&(i, _)| i).collect();
    specs.dedup();
    let flows = flows(specs.iter().map(|&i| &jobs[i].spec));
    let running: Vec<AtomicU32> = (0..jobs.len())
        .map(|i| AtomicU32::new(workers.iter().filter(|w| w.0 == i).count() as u32))
        .collect();
    // Checked when the jobs were prepared; a name that does not resolve waits for nothing.
    let targets = wait_targets(jobs.iter().map(|j| &j.spec)).unwrap_or_default();
    std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .enumerate()
            .map(|(n, &(i, clone_index))| {
                let w = Worker {
                    job: &jobs[i],
                    clone_index,
                    job_number: at.first_job_number + n as u32,
                    clock: opts.clock,
                    barrier: &barrier,
                    abort: &abort,
                    stop: own_flags.get(n).unwrap_or(stop),
                    started: Cell::new(false),
                    live: opts.live,
                    status: opts.status.map(|(b, _)| (b, n)),
                    flows: &flows,
                    running: &running,
                    waits_on: targets.get(i).copied().flatten(),
                    index: i,
                    exit: exits.map(|e| (e, n)),
                    tally: tallies.get(n).filter(|_| steady_specs[n].0.on()),
                    run_copies,
                    keep_rseq: opts.keep_rseq,
                    lean_loop: opts.lean_loop,
                    split: split.slot(n),
                };
                std::thread::Builder::new()
                    .name(format!("iolab-{}-{clone_index}", i))
                    .spawn_scoped(scope, move || w.run())
            })
            .collect();
        // A thread the system would not give: the others are waiting at the barrier, so
        // release them as failed starts and report why.
        if let Some(pos) = handles.iter().position(|h| h.is_err()) {
            abort.store(true, Ordering::SeqCst);
            if let Some(peers) = opts.peers {
                peers.start_together(at.number, false);
            }
            barrier.count_in(handles.iter().filter(|h| h.is_err()).count() + own);
            let job = jobs[workers[pos].0].spec.name.clone();
            return (vec![failed_start(handles, pos, job)], false);
        }
        if let Some(peers) = opts.peers {
            line_up(peers, at.number, &barrier, workers.len(), &abort);
        }
        let handles: Vec<_> = handles.into_iter().flatten().collect();
        let running: Vec<&PreparedJob> = workers.iter().map(|&(i, _)| &jobs[i]).collect();
        let watchdog = Watchdog::start(&running, opts.watchdog);
        let as_report = |n: usize, w: WorkerResult| {
            let (i, copy) = workers[n];
            report_of(&jobs[i], (i, copy), groups[i], w, opts)
        };
        let merge = |reports: &mut Vec<JobReport>, r: JobReport| push_report(jobs, reports, r);
        let mut waiting = Waiting {
            progress: opts.progress.filter(|l| !l.is_hidden()),
            running: running_text(&running),
            watchdog: &watchdog,
            peers: opts.peers.map(|p| (p, at.number, &phase_stop)),
            own_flags: &own_flags,
            steady: SteadyMonitor::new(&steady_specs, &tallies, &own_flags),
            burners: &burners,
            live: opts
                .live
                .zip(opts.live_text)
                .map(|(l, t)| (l, t, RateMeter::new(std::time::Duration::from_secs(1)))),
            status: opts.status.map(|(b, print)| {
                let wait = crate::status::StatusWait::new(
                    b,
                    print,
                    opts.clock.timebase(),
                    SystemTime::now(),
                );
                let reports: StatusReports = (&as_report, &merge);
                (wait, reports)
            }),
        };
        let busy = waiting.progress.is_some()
            || opts.watchdog.is_some()
            || opts.peers.is_some()
            || waiting.status.is_some();
        if busy || !own_flags.is_empty() {
            wait_for(&handles, &mut waiting);
        }
        let mut results = join_all(handles, workers, jobs, &watchdog);
        if let Some(m) = waiting.steady {
            steady_results(m, &mut results);
        }
        if let Some(peers) = opts.peers {
            peers.phase_over(at.number);
        }
        (results, phase_stop.load(Ordering::Relaxed))
    })
}

/// What one worker hands back.
type WorkerOut = Result<Option<WorkerResult>, RunError>;

/// Joins the workers that did start (released as aborted) after thread `pos` could not be
/// started; that failure, as the phase's result.
fn failed_start(
    handles: Vec<std::io::Result<std::thread::ScopedJoinHandle<'_, WorkerOut>>>,
    pos: usize,
    job: String,
) -> WorkerOut {
    let reason = match &handles[pos] {
        Err(e) => format!("could not start a thread: {e}"),
        Ok(_) => String::from("could not start a thread"),
    };
    for h in handles.into_iter().flatten() {
        let _ = h.join();
    }
    Err(RunError::Worker { job, reason })
}

/// Each worker's result in order (a panic is that worker's error); workers the watchdog
/// stopped carry its error with their figures.
fn join_all(
    handles: Vec<std::thread::ScopedJoinHandle<'_, WorkerOut>>,
    workers: &[(usize, u32)],
    jobs: &[PreparedJob],
    watchdog: &Watchdog,
) -> Vec<WorkerOut> {
    let joined = handles.into_iter().zip(workers).map(|(h, &(i, _))| {
        let name = &jobs[i].spec.name;
        let mut r = h.join().unwrap_or_else(|_| {
            let reason = "panicked".into();
            Err(RunError::Worker {
                job: name.clone(),
                reason,
            })
        });
        if let Ok(Some(w)) = &mut r {
            w.error = w.error.take().or_else(|| watchdog.error_for(name));
        }
        r
    });
    joined.collect()
}

/// Gives each steady-state window's result to the worker that carries it; a worker its
/// window stopped ended on purpose, not interrupted (unless a signal came too).
fn steady_results(m: SteadyMonitor, results: &mut [WorkerOut]) {
    let (found, stopped) = m.results();
    for (n, r) in found {
        if let Ok(Some(w)) = &mut results[n] {
            w.steady = Some(r);
        }
    }
    for n in stopped {
        if let Ok(Some(w)) = &mut results[n] {
            w.interrupted &= signal::received().is_some();
        }
    }
}

/// The report of one job copy (copy `copy` of job `index` of the run, in reporting group
/// `group`).
fn report_of(
    job: &PreparedJob,
    (index, copy): (usize, u32),
    group: u32,
    w: WorkerResult,
    opts: &RunOptions,
) -> JobReport {
    let ns = |ticks: u64| opts.clock.ticks_to_ns(ticks) as u64;
    JobReport {
        job_index: index,
        group_id: group,
        setup: job.spec.setup_of_copy(copy),
        clones: 1,
        dirs: w.dirs,
        runtime_ns: ns(w.runtime_ticks),
        total_runtime_ns: ns(w.runtime_ticks),
        elapsed_ns: ns(w.elapsed_ticks),
        cpu: CpuUsage {
            user_ns: w.cpu.user_ns,
            sys_ns: w.cpu.sys_ns,
            iowq_ns: w.cpu.iowq_ns,
            sqpoll_ns: w.cpu.sqpoll_ns,
            ctx: w.cpu.ctx,
            majflt: w.cpu.majflt,
            minflt: w.cpu.minflt,
        },
        depth: w.depth,
        sync: w.sync,
        logs: w.log.into_iter().collect(),
        traces: w.trace.into_iter().collect(),
        errors: w.errors,
        zone_resets: w.zone_resets,
        target: job.facts.clone(),
        notes: w.notes,
        fallback: w.fallback,
        engine_setup: w.engine_setup,
        device_interrupts: None,
        interrupted: w.interrupted,
        stonewalled: false,
        steady: w.steady,
        lat_target: w.lat_target,
        started_unix_ms: 0,
        job_start_ms: None,
        repeats: Vec::new(),
        error: w.error.map(|e| iolab_results::JobError {
            errno: e.errno(),
            message: e.to_string(),
        }),
    }
}
