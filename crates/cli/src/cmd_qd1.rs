//! The main job: 4 KiB random read and random write at QD1 through every I/O path this
//! machine has, one path at a time, printed as the SPDK blog's tables (engines as columns).
//! Without --target it runs on a scratch file in a temporary directory, so it is safe
//! anywhere; a block device target needs --allow-destroy for the write row.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, Context};
use clap::Args;
use iolab_engine::{EngineConfig, EngineError, EngineKind};
use iolab_fio::json::{to_json, JsonContext};
use iolab_fio::units::{parse_size, parse_time};
use iolab_job::{JobSpec, Pattern, SizeSpec};
use iolab_report::qd1::Qd1Numbers;
use iolab_report::{Qd1Cell, Qd1Table};
use iolab_runner::{
    prepare, run_jobs, signal, JobReport, PreparedJob, RunError, RunOptions, RunOutcome,
};
use iolab_stats::Clock;
use iolab_sysinfo::check_output;

use crate::exit::{self, CliError};
use crate::output;
use crate::targets::{consent_for_jobs, lay_out};

#[derive(Args, Debug, Clone)]
pub struct Qd1Args {
    /// File or block device to measure [default: a scratch file in a temporary directory]
    #[arg(long, value_name = "PATH")]
    pub target: Option<PathBuf>,
    /// Measured time per engine and workload (fio units: 10, 500ms, 1m)
    #[arg(long, default_value = "3s", value_parser = parse_time)]
    pub runtime: Duration,
    /// Warm-up before each measurement, not counted
    #[arg(long = "ramp_time", alias = "ramp-time", default_value = "1s", value_parser = parse_time)]
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
}

fn chosen_paths(args: &Qd1Args) -> Result<Vec<EngineConfig>, CliError> {
    let all = EngineConfig::paths();
    let Some(names) = &args.engines else {
        return Ok(all);
    };
    names
        .iter()
        .map(|n| {
            all.iter()
                .find(|c| c.label() == n.trim())
                .copied()
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

const WORKLOADS: [(&str, &str, u32); 2] = [
    ("4KiB Random Read", "randread", 100),
    ("4KiB Random Write", "randwrite", 0),
];

fn job_for(
    args: &Qd1Args,
    target: &std::path::Path,
    engine: EngineConfig,
    rw: &str,
    read: u32,
    size: Option<u64>,
) -> JobSpec {
    let mut j = JobSpec::new(format!("4k_{rw}_qd1-{}", engine.label()), target);
    j.engine = engine;
    j.direct = engine.kind != EngineKind::Null;
    j.pattern = Pattern::Random;
    j.read_percent = read;
    j.block_size = [4096, 4096];
    j.iodepth = 1;
    j.size = size.map(SizeSpec::Bytes);
    j.time_based = true;
    j.runtime = Some(args.runtime);
    j.ramp_time = args.ramp_time;
    j.random_map = false;
    j.lat_percentiles = true;
    j
}

pub fn run(args: &Qd1Args) -> Result<ExitCode, CliError> {
    let paths = chosen_paths(args)?;
    let scratch_dir;
    let (target, size) = match &args.target {
        Some(t) => (t.clone(), args.size),
        None => {
            scratch_dir = tempfile::Builder::new()
                .prefix("iolab-")
                .tempdir()
                .context("creating a scratch directory")
                .map_err(CliError::failed)?;
            (
                scratch_dir.path().join("scratch"),
                Some(args.size.unwrap_or(256 << 20)),
            )
        }
    };
    let mut specs: Vec<JobSpec> = Vec::new();
    for e in &paths {
        for (_, rw, read) in WORKLOADS {
            specs.push(job_for(args, &target, *e, rw, read, size));
        }
    }
    // Check everything before the first I/O. A write row the guard refuses (a device or an
    // existing file without --allow-destroy) stays in the table as n/a with the reason, so
    // the reads are still measured; any other refusal stops the run here.
    let consent = consent_for_jobs(&specs, args.allow_destroy);
    let mut jobs: Vec<Result<PreparedJob, String>> = Vec::new();
    for spec in &specs {
        match prepare(std::slice::from_ref(spec), &consent) {
            Ok(mut j) => jobs.push(Ok(j.remove(0))),
            Err(RunError::Safety { source, .. }) if !spec.reads() => {
                jobs.push(Err(source.to_string()))
            }
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(o) = args.output.as_deref() {
        check_output(o, "--output", &[&target]).map_err(CliError::bad_input)?;
    }
    signal::install();
    let mut ready: Vec<PreparedJob> = jobs
        .iter()
        .filter_map(|j| j.as_ref().ok())
        .cloned()
        .collect();
    lay_out(&mut ready)?;
    let mut ready = ready.into_iter();
    let jobs: Vec<Result<PreparedJob, String>> = jobs
        .into_iter()
        .map(|j| j.map(|_| ready.next().expect("one laid-out job per checked job")))
        .collect();
    let mut out = output::open(args.output.as_deref())?;
    let clock = Clock::calibrate(Duration::from_millis(20));
    let total = jobs.len();
    let per_job = args.runtime + args.ramp_time;
    say!(
        "iolab: QD1 4 KiB random read/write on {} through {} paths, about {} s",
        target.display(),
        paths.len(),
        (per_job * total as u32).as_secs()
    );
    let mut table = Qd1Table::default();
    table
        .reference_only
        .push(EngineConfig::new(EngineKind::Null).label());
    // Every measured cell's report, for --output-format=json.
    let mut measured: Vec<JobReport> = Vec::new();
    let started = std::time::SystemTime::now();
    let mut interrupted = false;
    let progress = std::io::stderr().is_terminal() || std::env::var_os("IOLAB_PROGRESS").is_some();
    for (i, job) in jobs.iter().enumerate() {
        let engine = specs[i].engine.label();
        let workload = WORKLOADS[i % WORKLOADS.len()].0.to_string();
        let job = match job {
            Ok(j) => j,
            Err(reason) => {
                table.add(Qd1Cell {
                    engine,
                    workload,
                    result: Err(reason.clone()),
                });
                continue;
            }
        };
        if progress {
            say_partial!(
                "\r[{}/{}] {workload} via {engine}...{:20}",
                i + 1,
                total,
                ""
            );
        }
        let opts = RunOptions {
            clock,
            progress: false,
            live: None,
        };
        match run_jobs(std::slice::from_ref(job), &opts) {
            Ok(o) => {
                let report = &o.jobs[0];
                for n in &report.notes {
                    if !table.notes.contains(n) {
                        table.notes.push(n.clone());
                    }
                }
                table.add(Qd1Cell {
                    engine,
                    workload,
                    result: Qd1Numbers::from_report(report, &clock)
                        .ok_or_else(|| "no I/O completed".to_string()),
                });
                interrupted |= o.interrupted;
                measured.extend(o.jobs);
            }
            Err(RunError::Engine {
                source: EngineError::Unsupported { reason, .. },
                ..
            }) => {
                table.add(Qd1Cell {
                    engine,
                    workload,
                    result: Err(reason),
                });
            }
            Err(e) => return Err(e.into()),
        }
        if interrupted {
            break;
        }
    }
    if progress {
        say!("\r{:70}\r", "");
    }
    if target.starts_with("/dev/zram") {
        table.notes.push(
            "zram serves pages never written as zero-fill, which is faster than real reads; \
             fill it first for honest read figures"
                .into(),
        );
    }
    if args.output_format == "json" {
        let outcome = RunOutcome {
            jobs: measured,
            disks: Vec::new(),
            clock: clock.timebase(),
            started,
            interrupted,
        };
        let doc = to_json(
            &outcome,
            &JsonContext {
                global_options: &[],
                job_options: &[],
                plus: false,
            },
        );
        serde_json::to_writer_pretty(&mut out, &doc)
            .context("writing results")
            .map_err(CliError::failed)?;
        writeln!(out)
            .context("writing results")
            .map_err(CliError::failed)?;
    } else {
        writeln!(
            out,
            "QD1 4 KiB random I/O on {} (direct, {} s per cell after {} s ramp; clock: {})\n",
            target.display(),
            args.runtime.as_secs_f64(),
            args.ramp_time.as_secs_f64(),
            clock.source()
        )
        .and_then(|_| write!(out, "{}", table.render()))
        .context("writing results")
        .map_err(CliError::failed)?;
    }
    out.flush()
        .context("writing results")
        .map_err(CliError::failed)?;
    if interrupted {
        say!("iolab: interrupted: the tables above are partial");
        return Ok(ExitCode::from(exit::interrupted()));
    }
    Ok(ExitCode::SUCCESS)
}
