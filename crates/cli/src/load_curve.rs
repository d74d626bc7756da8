//! `iolab run --load-curve`: any job's latency under load. The jobs run once as written but
//! without a rate (the peak, for loads given as shares of it), then open loop
//! (`rate_open_loop`) at each load; a table per job shows offered against achieved IOPS,
//! fio's lat beside the response time from each I/O's due time, how late the schedule went,
//! and whether the load was carried. Every point is saved under the one run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use iolab_engine::Direction;
use iolab_fio::json::{to_json, JsonContext};
use iolab_fio::{CommandLine, OutputFormat};
use iolab_job::{JobSpec, LoadCurve};
use iolab_report::format::{compact, micros};
use iolab_runner::{run_jobs, signal, RunOptions, RunOutcome};
use iolab_stats::Clock;
use iolab_store::{RunStatus, Store};
use iolab_suite::steps::load::{LoadPoint, COLUMNS};
use iolab_suite::table::Table;

use crate::exit::{interrupted, CliError};
use crate::output;
use crate::targets::{check_all, consent_for_jobs, lay_out, protected_paths, run_outputs};

/// One point of the curve: its label and what it measured.
struct CurvePoint {
    label: String,
    outcome: RunOutcome,
}

pub fn run(cl: &CommandLine, curve: &LoadCurve, command: &str) -> Result<ExitCode, CliError> {
    let db_path = cl.run.db.clone().unwrap_or_else(Store::default_path);
    let consent = consent_for_jobs(&cl.jobs, cl.run.allow_destroy);
    // Each point would write the same log files over the last one's.
    if !iolab_fio::logs::planned_log_paths(&cl.jobs).is_empty() {
        return Err(CliError::bad_input(anyhow::anyhow!(
            "--load-curve does not write the jobs' I/O logs (write_*_log); run a load on its own \
             with rate_iops and rate_open_loop=1 to log it"
        )));
    }
    let outputs = run_outputs(cl.run.output.as_deref(), &[]);
    // The jobs are checked once, and every point runs them through the same pins and
    // claims; each point's open-loop job is checked too, before the first I/O.
    let peak_specs: Vec<JobSpec> = cl.jobs.iter().map(without_rate).collect();
    let mut jobs = check_all(&peak_specs, &consent, &outputs, Some(&db_path))?;
    for s in &cl.jobs {
        open_loop_spec(s, mix_iops(s, 1000.0), "check")
            .validate()
            .map_err(|e| CliError::bad_input(anyhow::anyhow!("--load-curve: {e}")))?;
    }
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    let protected = protected_paths(&jobs, Some(&db_path));
    let protected: Vec<&Path> = protected.iter().map(PathBuf::as_path).collect();
    let mut out = output::open_and_protect(cl.run.output.as_deref(), &protected)?;
    signal::install();
    lay_out(&mut jobs)?;
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store.begin_run("run", command).map_err(CliError::failed)?;
    let clock = iolab_runner::run::run_clock(jobs.iter().any(|j| j.spec.lat_split));
    let mut points = Vec::new();
    let mut peak = None;
    if let LoadCurve::Shares(_) = curve {
        say!("iolab: load curve: the peak, closed loop, no rate");
        let p = run_point(&jobs, clock, cl, "peak")?;
        peak = Some(p.outcome.clone());
        points.push(p);
    }
    for (label, specs) in point_specs(&cl.jobs, curve, peak.as_ref()) {
        if points.last().is_some_and(|p| p.outcome.interrupted) {
            break;
        }
        say!("iolab: load curve: {label}, open loop");
        let mut point_jobs = jobs.clone();
        for (j, spec) in point_jobs.iter_mut().zip(specs) {
            j.spec = spec;
        }
        points.push(run_point(&point_jobs, clock, cl, &label)?);
    }
    let shown = write_curve(&mut out, cl, &points)
        .and_then(|_| out.flush().context("writing results"))
        .map_err(CliError::failed);
    let saved = save(&mut store, run_id, &points, &cl.job_options);
    crate::run_output::say_saved(&saved, run_id, &db_path);
    shown?;
    if let Some(e) = points.iter().find_map(|p| p.outcome.first_error()) {
        return Err(CliError::failed(anyhow::anyhow!("{e}")));
    }
    if points.iter().any(|p| p.outcome.interrupted) {
        say!("iolab: interrupted: the points above are all that finished");
        return Ok(ExitCode::from(interrupted()));
    }
    Ok(match saved {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(crate::exit::RUN_FAILED),
    })
}

/// The job as the peak runs it: no cap, no floor, closed loop.
fn without_rate(s: &JobSpec) -> JobSpec {
    let mut s = s.clone();
    s.rate = iolab_job::Rate {
        cycle: s.rate.cycle,
        process: s.rate.process,
        ..iolab_job::Rate::default()
    };
    s
}

/// Each point's label and jobs: open loop at the load, split over a job's directions in
/// the ratio the peak did them (or the job's mix, for loads given in I/Os per second).
fn point_specs(
    specs: &[JobSpec],
    curve: &LoadCurve,
    peak: Option<&RunOutcome>,
) -> Vec<(String, Vec<JobSpec>)> {
    let loads: Vec<(String, f64, bool)> = match curve {
        LoadCurve::Shares(v) => v
            .iter()
            .map(|s| (format!("{:.0}%", s * 100.0), *s, true))
            .collect(),
        LoadCurve::Iops(v) => v
            .iter()
            .map(|n| (format!("{} IOPS", compact(*n as f64)), *n as f64, false))
            .collect(),
    };
    loads
        .into_iter()
        .map(|(label, load, share)| {
            let jobs = specs
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let per_dir = match share {
                        true => peak_iops(peak, i).map(|d| d * load),
                        false => mix_iops(s, load),
                    };
                    open_loop_spec(s, per_dir, &label)
                })
                .collect();
            (label, jobs)
        })
        .collect()
}

/// The peak's I/Os per second per direction of job `i` (copies summed).
fn peak_iops(peak: Option<&RunOutcome>, i: usize) -> [f64; 3] {
    let Some(job) = peak.and_then(|p| p.jobs.get(i)) else {
        return [0.0; 3];
    };
    Direction::ALL.map(|d| job.iops(d))
}

/// `total` I/Os per second split by the job's read/write mix.
fn mix_iops(s: &JobSpec, total: f64) -> [f64; 3] {
    let read = s.read_percent as f64 / 100.0;
    match (s.reads(), s.writes(), s.trims()) {
        (true, true, _) => [total * read, total * (1.0 - read), 0.0],
        (true, false, _) => [total, 0.0, 0.0],
        (false, true, _) => [0.0, total, 0.0],
        (false, false, _) => [0.0, 0.0, total],
    }
}

fn open_loop_spec(s: &JobSpec, iops: [f64; 3], label: &str) -> JobSpec {
    let mut s = without_rate(s);
    // Copies share the load.
    let copies = s.numjobs.max(1) as f64;
    for (d, v) in iops.iter().enumerate() {
        if *v > 0.0 {
            s.rate.iops[d] = Some((v / copies).round().max(1.0) as u32);
        }
    }
    s.rate.open_loop = s.rate.iops.iter().any(Option::is_some);
    s.name = format!("{}@{label}", s.name);
    s
}

fn run_point(
    jobs: &[iolab_runner::PreparedJob],
    clock: Clock,
    cl: &CommandLine,
    label: &str,
) -> Result<CurvePoint, CliError> {
    let line = iolab_runner::progress::ProgressLine::new(!cl.run.quiet);
    let specs: Vec<JobSpec> = jobs.iter().map(|j| j.spec.clone()).collect();
    line.set_plan(iolab_runner::plan::planned_time(&specs));
    line.set_prefix(format!("[load curve: {label}]"));
    let outcome = run_jobs(
        jobs,
        &RunOptions {
            health_every: cl.run.health_interval,
            ..RunOptions::on_this_host(clock, &line, cl.run.keep_rseq)
        },
    )?;
    line.clear();
    Ok(CurvePoint {
        label: label.to_string(),
        outcome,
    })
}

fn save(
    store: &mut Store,
    run_id: i64,
    points: &[CurvePoint],
    options: &[Vec<(String, String)>],
) -> anyhow::Result<()> {
    let mut status = RunStatus::Ok;
    for p in points {
        store.add_outcome(run_id, &p.outcome, options)?;
        status = match crate::run_output::status_of(&p.outcome) {
            RunStatus::Ok => status,
            s => s,
        };
    }
    store.finish_run(run_id, status)?;
    Ok(())
}

/// The curve in each format asked for: a table per job (normal), or one JSON document with
/// every point's fio document.
fn write_curve(out: &mut dyn Write, cl: &CommandLine, points: &[CurvePoint]) -> anyhow::Result<()> {
    for f in &cl.run.formats {
        match f {
            OutputFormat::Normal => write_tables(out, cl, points)?,
            OutputFormat::Terse => anyhow::bail!(
                "--load-curve has no terse form: a curve is many runs; use normal or json"
            ),
            OutputFormat::Json | OutputFormat::JsonPlus => {
                let ctx = JsonContext {
                    global_options: &cl.global_options,
                    job_options: &cl.job_options,
                    plus: *f == OutputFormat::JsonPlus,
                };
                let doc: Vec<serde_json::Value> = points
                    .iter()
                    .map(|p| serde_json::json!({"load": p.label, "result": to_json(&p.outcome, &ctx)}))
                    .collect();
                serde_json::to_writer_pretty(
                    &mut *out,
                    &serde_json::json!({"iolab_load_curve": doc}),
                )?;
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

fn write_tables(
    out: &mut dyn Write,
    cl: &CommandLine,
    points: &[CurvePoint],
) -> anyhow::Result<()> {
    for (i, spec) in cl.jobs.iter().enumerate() {
        let mut t = Table::new(["load", "dir"].into_iter().chain(COLUMNS));
        for p in points {
            let Some(job) = p.outcome.jobs.get(i) else {
                continue;
            };
            let clock = &p.outcome.clock;
            for d in Direction::ALL {
                let Some(r) = job.dir(d).filter(|r| r.ios > 0) else {
                    continue;
                };
                let mut row = vec![p.label.clone(), d.name().to_string()];
                match LoadPoint::of_dir(f64::NAN, r, job.iops(d), clock, None) {
                    Some(lp) => row.extend(lp.cells()),
                    None => {
                        // The peak: a closed loop, with fio's figures only.
                        let lat = r.lat.summarize(clock, &[99.0]);
                        row.extend(["-".to_string(), compact(job.iops(d))]);
                        row.extend([
                            micros(lat.mean_ns),
                            micros(lat.percentile(99.0).unwrap_or(0.0)),
                        ]);
                        row.extend(std::iter::repeat_n("-".to_string(), COLUMNS.len() - 4));
                    }
                }
                t.row(row);
            }
        }
        writeln!(
            out,
            "{}: load curve (iolab: response time runs from each I/O's due time, lat from its issue)\n\n{}",
            spec.name,
            t.render()
        )?;
    }
    Ok(())
}
