//! The main job: 4 KiB random read and random write at QD1 through every I/O path this
//! machine has, one path at a time, printed as the SPDK blog's tables (engines as columns).
//! It is the review's QD1 step run on its own (same points, same table, recorded the same
//! way when a database is named). Without --target it runs on a scratch file in a temporary
//! directory, so it is safe anywhere; a block device target needs --allow-destroy for the
//! write row.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::{anyhow, Context};
use clap::Args;
use iolab_engine::EngineConfig;
use iolab_fio::json::{to_json, JsonContext};
use iolab_fio::units::{parse_size, parse_time};
use iolab_job::{JobSpec, SizeSpec};
use iolab_runner::{prepare, signal, JobReport, RunOutcome};
use iolab_stats::Clock;
use iolab_store::{RunStatus, Store};
use iolab_suite::progress::Progress;
use iolab_suite::{run_step, step_impl, Effort, Executor, Findings, PerStep, ReviewConfig, Step};
use iolab_sysinfo::{check_database, check_output, Consent};

use crate::cmd_review::command_line;
use crate::exit::{self, CliError};
use crate::output;
use crate::targets::scratch_file;

#[derive(Args, Debug, Clone)]
pub struct Qd1Args {
    /// File or block device to measure [default: a scratch file in a temporary directory]
    #[arg(long, value_name = "PATH")]
    pub target: Option<PathBuf>,
    /// Measured time per engine and workload (fio units: 10, 500ms, 1m); without --repeat,
    /// shared by the cell's three rounds
    #[arg(long, default_value = "3s", value_parser = parse_time)]
    pub runtime: Duration,
    /// Warm-up before each round of each cell, not counted
    #[arg(long = "ramp_time", alias = "ramp-time", default_value = "500ms", value_parser = parse_time)]
    pub ramp_time: Duration,
    /// Bytes of the target to spread I/O over (fio units: 256m, 1g) [default: 256m for the
    /// scratch file, the whole target otherwise]
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
    /// Engines to run, comma-separated (psync, pvsync2, pvsync2+hipri, libaio, io_uring,
    /// io_uring+iopoll, io_uring+sqpoll, null) [default: all]
    #[arg(long, value_delimiter = ',')]
    pub engines: Option<Vec<String>>,
    /// Allow the random-write row on a block device or an existing file iolab did not create
    /// (destroys its data; without it that row is n/a and the reads still run)
    #[arg(long)]
    pub allow_destroy: bool,
    /// normal (tables) or json (fio's JSON, one job per cell)
    #[arg(long = "output-format", default_value = "normal", value_parser = ["normal", "json"])]
    pub output_format: String,
    /// Write results to this file instead of standard output
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Also record the run in this results database, for history, show, compare and report
    /// [default: $IOLAB_DB when set, else not recorded]
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Split each I/O's latency at the kernel's block request events into submit, device and
    /// completion (root, kernel BTF and a request-based disk; otherwise a note says why)
    #[arg(long = "lat-split", alias = "lat_split")]
    pub lat_split: bool,
    /// Measure every cell N times for --runtime each, a whole round of cells after another
    /// (drift hits every path alike); each cell shows its pooled figures ± the 95 %
    /// confidence interval of the rounds, and a best is marked only beyond them [default:
    /// 3 rounds sharing --runtime; 1 gives no interval and marks nothing]
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: Option<u32>,
    /// A stored run to show as more columns (its 4 KiB QD1 random read/write jobs, named
    /// by engine): fio's JSON imported with `iolab import`, e.g. fio with SPDK's plugin.
    /// Read from --db (default: $IOLAB_DB, else the default database); may be repeated
    #[arg(long = "with", value_name = "RUN")]
    pub with: Vec<i64>,
    /// Add the spdk column: SPDK's user-space driver on this namespace, named as SPDK's fio
    /// plugin names it ('trtype=PCIe traddr=0000.01.00.0 ns=1'), on a controller `iolab spdk
    /// bind` handed over (a build with the feature spdk)
    #[arg(long, value_name = "TRID", value_parser = crate::cmd_spdk::parse_namespace)]
    pub spdk: Option<PathBuf>,
    /// No progress line on stderr (it is drawn only on a terminal anyway: the step, what
    /// runs and the time left by the plan)
    #[arg(long)]
    pub quiet: bool,
}

/// The paths `--engines` names, or every path (NVMe passthrough only where the target has a
/// generic char device).
fn chosen_paths(args: &Qd1Args, target: &Path) -> Result<Vec<EngineConfig>, CliError> {
    let mut all = EngineConfig::paths();
    if args.spdk.is_some() {
        all.push(EngineConfig::new(iolab_engine::EngineKind::Spdk));
    }
    let Some(names) = &args.engines else {
        return Ok(iolab_suite::paths_on(target, all));
    };
    names
        .iter()
        .map(|n| {
            all.iter()
                .find(|c| c.label() == n.trim())
                .cloned()
                .ok_or_else(|| {
                    let known: Vec<String> = all.iter().map(|c| c.label()).collect();
                    CliError::bad_input(anyhow!(
                        "--engines: unknown engine '{n}' (choose from {})",
                        known.join(", ")
                    ))
                })
        })
        .collect()
}

/// The database the main job is recorded in: `--db`, else `$IOLAB_DB`; none by default, so
/// the first command on a fresh machine leaves nothing behind but its tables.
fn recording_db(args: &Qd1Args) -> Option<PathBuf> {
    args.db.clone().or_else(|| {
        std::env::var_os("IOLAB_DB")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    })
}

/// The columns `--with` names, from the recording database (or the default one).
fn with_columns(
    args: &Qd1Args,
    db: Option<&std::path::Path>,
) -> Result<Vec<iolab_suite::steps::qd1::ImportedCell>, CliError> {
    let path = db.map_or_else(Store::default_path, std::path::Path::to_path_buf);
    let store = crate::store_open::open_existing(&path).map_err(CliError::bad_input)?;
    crate::imported::qd1_columns(&store, &args.with)
}

/// The QD1 step of a review, on its own: the chosen paths, the main job's timing.
fn config(
    args: &Qd1Args,
    target: PathBuf,
    size: Option<u64>,
    paths: Vec<EngineConfig>,
) -> ReviewConfig {
    let per_step = |d: Duration| PerStep {
        all: Some(d),
        ..PerStep::default()
    };
    let named = std::iter::once(target.as_path()).chain(args.spdk.as_deref());
    let consent = Consent::granting("--allow-destroy", args.allow_destroy, named);
    let cfg_target = target.clone();
    ReviewConfig {
        floor_consent: Consent::granting("--allow-destroy-floor", false, []),
        consent,
        target,
        size,
        effort: Effort::Quick,
        steps: vec![Step::Qd1Engines],
        runtime: per_step(args.runtime),
        ramp: per_step(args.ramp_time),
        max_qd: 1,
        precondition_passes: 0,
        tolerance_pct: 0.0,
        floor_device: None,
        qd1_paths: paths,
        loads: Vec::new(),
        knee_factor: 2.0,
        slo: None,
        lat_split: args.lat_split && crate::split_note::split_here(&cfg_target),
        repeat: args.repeat.unwrap_or(1),
        repeat_asked: args.repeat.is_some(),
        with_qd1: Vec::new(),
        spdk: args.spdk.clone(),
    }
}

/// Refuses, before any I/O, a target no path could use (a pseudo filesystem, a directory,
/// a size it does not have): the same checks as every job, on a read job. What only some
/// paths cannot do (a write without consent, polling without poll queues) becomes n/a in
/// the table instead.
fn check_target(cfg: &ReviewConfig) -> Result<(), CliError> {
    let mut spec = JobSpec::new("qd1", &cfg.target);
    spec.direct = true;
    spec.block_size = [4096; 3];
    spec.size = cfg.size.map(SizeSpec::Bytes);
    prepare(&[spec], &cfg.consent)
        .map(|_| ())
        .map_err(CliError::from)
}

/// Where the tables go, and the output and database checked against the target.
fn open_output(
    args: &Qd1Args,
    target: &Path,
    db: Option<&Path>,
) -> Result<Box<dyn Write>, CliError> {
    if let Some(o) = args.output.as_deref() {
        check_output(o, "--output", &[target]).map_err(CliError::bad_input)?;
    }
    if let Some(db) = db {
        check_database(db, &[target]).map_err(CliError::bad_input)?;
    }
    let protected: Vec<&Path> = std::iter::once(target).chain(db).collect();
    output::open_and_protect(args.output.as_deref(), &protected)
}

/// fio's JSON of every measured cell, one job each.
fn write_json(
    out: &mut dyn Write,
    reports: Vec<JobReport>,
    clock: &Clock,
    started: SystemTime,
    interrupted: bool,
) -> Result<(), CliError> {
    let outcome = RunOutcome {
        jobs: reports,
        disks: Vec::new(),
        clock: clock.timebase(),
        started,
        interrupted,
        health: Vec::new(),
    };
    let ctx = JsonContext {
        global_options: &[],
        job_options: &[],
        plus: false,
    };
    serde_json::to_writer_pretty(&mut *out, &to_json(&outcome, &ctx))
        .map_err(std::io::Error::from)
        .and_then(|_| writeln!(out))
        .context("writing results")
        .map_err(CliError::failed)
}

/// A duration as the header says it: `333 ms` under a second, else seconds (`1.5 s`).
fn span(d: Duration) -> String {
    match d < Duration::from_secs(1) {
        true => format!("{} ms", d.as_millis()),
        false => format!("{} s", d.as_secs_f64()),
    }
}

/// The tables, with what the main job adds to the step's notes.
fn write_tables(
    out: &mut dyn Write,
    cfg: &ReviewConfig,
    text: &str,
    clock: &Clock,
) -> Result<(), CliError> {
    let (rounds, t) = cfg.qd1_rounds();
    let per_cell = match rounds {
        1 => format!("{} per cell", span(t.runtime)),
        n => format!("{n} rounds of {} per cell", span(t.runtime)),
    };
    writeln!(
        out,
        "QD1 4 KiB random I/O on {} (direct, {per_cell}, each after {} ramp; clock: {})\n",
        cfg.target.display(),
        span(t.ramp),
        clock.source()
    )
    .and_then(|_| write!(out, "{text}"))
    .context("writing results")
    .map_err(CliError::failed)
}

/// The scratch file in a fresh temporary directory, or the user's target.
fn target_of(
    args: &Qd1Args,
) -> Result<(PathBuf, Option<u64>, Option<tempfile::TempDir>), CliError> {
    if let Some(t) = &args.target {
        return Ok((t.clone(), args.size, None));
    }
    let (path, dir) = scratch_file("iolab-")?;
    Ok((path, Some(args.size.unwrap_or(256 << 20)), Some(dir)))
}

pub fn run(args: &Qd1Args) -> Result<ExitCode, CliError> {
    let (target, size, _scratch) = target_of(args)?;
    let paths = chosen_paths(args, &target)?;
    let mut cfg = config(args, target, size, paths);
    check_target(&cfg)?;
    let db = recording_db(args);
    if !args.with.is_empty() {
        cfg.with_qd1 = with_columns(args, db.as_deref())?;
    }
    let mut out = open_output(args, &cfg.target, db.as_deref())?;
    let mut store = match &db {
        Some(p) => crate::store_open::open(p).map_err(CliError::bad_input)?,
        None => Store::in_memory().map_err(CliError::failed)?,
    };
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("qd1", &command_line())
        .map_err(CliError::failed)?;
    signal::install();
    let clock = iolab_runner::run::run_clock(cfg.lat_split);
    let step = step_impl(Step::Qd1Engines);
    let (cells, planned) = step.estimate(&cfg, 0, true);
    say!(
        "iolab: QD1 4 KiB random read/write on {} through {} paths, about {} s",
        cfg.target.display(),
        cfg.qd1_paths.len(),
        planned.as_secs()
    );
    let show = !args.quiet;
    let started = SystemTime::now();
    let mut tables = Vec::new();
    let mut ex = Executor {
        store: &mut store,
        run_id,
        clock,
        consent: cfg.consent.clone(),
        progress: Progress::new(show, planned),
        out: &mut tables,
        kept: (args.output_format == "json").then(Vec::new),
        measured: 0,
        unavailable: 0,
        repeat: cfg.repeat,
        health_every: Some(iolab_runner::run::HEALTH_EVERY),
    };
    ex.progress.step = format!("[{cells} cells]");
    ex.progress.step_points = cells;
    let end = run_step(&cfg, &mut ex, step, &mut Findings::default());
    let kept = ex.kept.take();
    let end = end.map_err(|e| CliError::failed(anyhow!(e)))?;
    let interrupted = end.status == "interrupted";
    let status = if interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Ok
    };
    store.finish_run(run_id, status).map_err(CliError::failed)?;
    match kept {
        Some(reports) => write_json(&mut out, reports, &clock, started, interrupted)?,
        None => write_tables(&mut out, &cfg, &end.text, &clock)?,
    }
    out.flush()
        .context("writing results")
        .map_err(CliError::failed)?;
    if let Some(db) = &db {
        say!("iolab: saved as run {run_id} in {}", db.display());
    }
    if interrupted {
        say!("iolab: interrupted: the tables above are partial");
        return Ok(ExitCode::from(exit::interrupted()));
    }
    Ok(ExitCode::SUCCESS)
}
