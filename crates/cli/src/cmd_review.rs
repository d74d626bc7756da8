//! `iolab review [TARGET]`: the seed reviews' whole methodology in one unattended command,
//! every point saved to the results store as it finishes. Checks everything it can before
//! the first I/O (target, steps, times, write permission and safety), so bad input writes
//! nothing and exits 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use iolab_fio::units::{parse_size, parse_time};
use iolab_store::{RunStatus, Store};
use iolab_suite::progress::{clock_time, Progress};
use iolab_suite::steps::estimate;
use iolab_suite::{run_review, Effort, Executor, PerStep, ReviewConfig, ReviewOutcome, Step};
use iolab_sysinfo::claim::Claim;
use iolab_sysinfo::{
    check_database, check_output, check_target_write, check_write_allowed, probe, Consent,
    TargetKind,
};
use serde_json::json;

use crate::cmd_report::{open_report, ReportOut};
use crate::exit::{self, CliError};
use crate::targets::existing_block_device;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Steps (all by default, in this order):\n  \
    info            device facts (sysfs) and host facts\n  \
    precondition    deallocate (BLKDISCARD / hole punch), then full sequential writes\n  \
    qd1-engines     QD1 4 KiB random read/write through every I/O path (the SPDK blog's tables)\n  \
    qd-sweep        QD 1..16 then 24..128, saturation point (within --tolerance of the peak)\n  \
    transfer-size   512 B..1 MiB at QD1: random (block- and 512 B-aligned), sequential\n  \
    profiles        4k QD1/16/128 and 4M QD32 random read/write (the hosting review)\n  \
    consistency     per-second p50/p99/p99.99/max over a longer QD1 run\n  \
    poll-vs-irq     QD1 read latency polled vs interrupts (needs poll queues)\n  \
    software-floor  QD1 read latency split into harness, kernel block path, device\n\n\
    Examples:\n  \
    iolab review --quick                          # everything in about 2 minutes on a scratch file\n  \
    iolab review /dev/nvme0n1 --allow-destroy     # the standard review of a device (~30 min)\n  \
    iolab review /dev/zram0 --allow-destroy --steps qd1-engines,qd-sweep --runtime 5s\n  \
    iolab review --full --runtime consistency:4h  # the seeds' durations, 4 h of consistency\n  \
    iolab review --quick --report review.html     # and its charts as one HTML page\n  \
    iolab show RUN                                # the tables again, from the results database")]
pub struct ReviewArgs {
    /// File or block device to review [default: a scratch file in a temporary directory]
    pub target: Option<PathBuf>,
    /// The whole suite in about two minutes (short points: a first look, not a verdict)
    #[arg(long, group = "effort")]
    pub quick: bool,
    /// About 30 minutes: 1 s ramp, 10 s a point, 60 s of consistency per direction [default]
    #[arg(long, group = "effort")]
    pub standard: bool,
    /// The seeds' durations: 10 s ramp, 240 s a point, an hour of consistency per direction
    #[arg(long, group = "effort")]
    pub full: bool,
    /// Steps to run, comma-separated (see below) [default: all]
    #[arg(long, value_delimiter = ',')]
    pub steps: Option<Vec<String>>,
    /// Measured time per point: TIME for every step, STEP:TIME for one, or a list
    /// (`5s,consistency:10m`)
    #[arg(long, value_name = "TIME|STEP:TIME,...")]
    pub runtime: Option<String>,
    /// Warm-up per point, not measured; same forms as --runtime
    #[arg(
        long = "ramp-time",
        alias = "ramp_time",
        value_name = "TIME|STEP:TIME,..."
    )]
    pub ramp_time: Option<String>,
    /// Bytes of the target to use (fio units: 256m, 4g) [default: 256m quick, 1g standard,
    /// 4g full for the scratch file; the whole file or device otherwise]
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
    /// How often an NVMe drive's SMART / health log is read during the long steps
    /// (precondition, load, consistency); 0: before and after each point only. Never during
    /// the latency cells.
    #[arg(long = "health-interval", value_name = "TIME", default_value = "10s",
          value_parser = parse_health_interval)]
    pub health_interval: std::time::Duration,
    /// Deepest queue of the sweep [default: 32 quick, 128 otherwise]
    #[arg(long = "max-qd", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_qd: Option<u32>,
    /// Full sequential write passes of the precondition step [default: 1 quick, 2 otherwise]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub passes: Option<u32>,
    /// Saturation: the smallest QD within this many percent of the peak IOPS
    #[arg(long, default_value_t = 3.0)]
    pub tolerance: f64,
    /// The load step's loads, as shares of the peak IOPS (0.1,0.5,1.1 or 10%,50%,110%)
    /// [default: 10% to 110% in steps of 10; quick: 10,30,50,70,80,90,100,110%]
    #[arg(long, value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<iolab_suite::load_plan::Loads>()), value_name = "LOADS")]
    pub loads: Option<iolab_suite::load_plan::Loads>,
    /// The load step's knee: the first load whose response-time p99 passes this many times
    /// the lightest load's
    #[arg(long, default_value_t = 2.0, value_parser = parse_knee)]
    pub knee: f64,
    /// A latency objective on response time, such as p99:100us or p99.9:2ms: the load step
    /// finds the most IOPS that meet it, bisecting between its loads
    #[arg(long, value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<iolab_suite::load_plan::Slo>()))]
    pub slo: Option<iolab_suite::load_plan::Slo>,
    /// Do not split each I/O's latency into submit, device and completion in the QD1,
    /// polling and consistency steps (on where the kernel allows it: root, BTF and a
    /// request-based disk)
    #[arg(long = "no-lat-split")]
    pub no_lat_split: bool,
    /// Measure every QD1 cell N times, a whole round of cells after another (drift hits every
    /// path alike); each cell shows its pooled figures ± the 95 % confidence interval of the
    /// rounds; every other point is measured N times back to back and pooled (not the
    /// device facts, preconditioning or consistency) [default: the QD1 cells in 3 rounds
    /// sharing the step's runtime, every other point once]
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: Option<u32>,
    /// RAM-backed block device for the software-floor step [default: the target when it is
    /// one, else a zram device iolab adds for the step and removes after]
    #[arg(long = "floor-device")]
    pub floor_device: Option<PathBuf>,
    /// Allow the writing steps to overwrite the target: a block device, or an existing file
    /// iolab did not create (destroys its data; refused on devices that are mounted, in use,
    /// or hold the root filesystem)
    #[arg(long)]
    pub allow_destroy: bool,
    /// Add the spdk path to the QD1 step: SPDK's user-space driver on this namespace
    /// ('trtype=PCIe traddr=0000.01.00.0 ns=1'), on a controller `iolab spdk bind` handed
    /// over (a build with the feature spdk)
    #[arg(long, value_name = "TRID", value_parser = crate::cmd_spdk::parse_namespace)]
    pub spdk: Option<PathBuf>,
    /// Allow the software-floor step to fill the floor device first (destroys its data; its
    /// own consent, as it is another device than the target)
    #[arg(long = "allow-destroy-floor")]
    pub allow_destroy_floor: bool,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// At the end, write the review's HTML report (charts, tables) to FILE, as
    /// `iolab report RUN -o FILE` would
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// No progress line on stderr (it is drawn only on a terminal anyway: the step, what
    /// runs and the time left by the plan)
    #[arg(long)]
    pub quiet: bool,
    // json: no step tables, only the stored run as one JSON document at the end (as
    // `iolab show RUN --output-format=json`).
    #[command(flatten)]
    pub format: crate::output::FormatArg,
}

fn parse_health_interval(s: &str) -> Result<std::time::Duration, String> {
    iolab_fio::units::parse_time(s).map_err(|e| e.to_string())
}

fn parse_knee(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(k) if k > 1.0 && k.is_finite() => Ok(k),
        _ => Err(format!("'{s}': the knee's factor is a number above 1")),
    }
}

fn bad(msg: String) -> CliError {
    CliError::bad_input(anyhow!(msg))
}

fn time_value(s: &str) -> Result<Duration, String> {
    parse_time(s)
}

/// The command as typed (`iolab review --quick ...`), as runs record it.
pub(crate) fn command_line() -> String {
    let mut args = std::env::args();
    args.next();
    std::iter::once("iolab".to_string())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The floor device the user named: it must be a block device, and one the user allowed
/// to fill must pass the device probes, both before anything runs. None named: the step
/// uses the target when it is a RAM device, else a zram device of iolab's own.
fn floor_device(a: &ReviewArgs, steps: &[Step]) -> Result<Option<PathBuf>, CliError> {
    if a.allow_destroy_floor && a.floor_device.is_none() {
        return Err(bad(
            "--allow-destroy-floor needs --floor-device: without one the step makes a RAM \
             device of its own"
                .into(),
        ));
    }
    let Some(dev) = a.floor_device.clone() else {
        return Ok(None);
    };
    if !steps.contains(&Step::SoftwareFloor) {
        return Ok(Some(dev));
    }
    existing_block_device("--floor-device", &dev)?;
    if a.allow_destroy_floor {
        let facts = probe(&dev).map_err(|e| bad(format!("--floor-device: {e}")))?;
        check_write_allowed(&facts, true, "--allow-destroy-floor")
            .map_err(|e| bad(format!("--floor-device: {e}")))?;
    }
    if iolab_suite::ram_device::ram_kind(&dev).is_none() {
        return Err(bad(format!(
            "--floor-device {}: not a RAM device (zram, brd's /dev/ramN or null_blk): the \
             floor is the kernel's block path over a device that costs almost nothing",
            dev.display()
        )));
    }
    Ok(Some(dev))
}

fn effort_of(a: &ReviewArgs) -> Effort {
    if a.quick {
        Effort::Quick
    } else if a.full {
        Effort::Full
    } else {
        Effort::Standard
    }
}

/// `--steps`, in review order, each once (all of them by default).
fn steps_of(a: &ReviewArgs) -> Result<Vec<Step>, CliError> {
    let Some(names) = &a.steps else {
        return Ok(Step::ALL.to_vec());
    };
    let mut v = names
        .iter()
        .map(|n| {
            n.trim()
                .parse::<Step>()
                .map_err(|e| bad(format!("--steps: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    v.sort();
    v.dedup();
    Ok(v)
}

/// `--runtime` (never zero) and `--ramp-time`, each per step.
fn timing_of(a: &ReviewArgs) -> Result<(PerStep, PerStep), CliError> {
    let per_step = |text: &Option<String>, flag: &str| {
        text.as_deref()
            .map(|r| PerStep::parse(r, time_value))
            .transpose()
            .map_err(|e| bad(format!("{flag}: {e}")))
            .map(Option::unwrap_or_default)
    };
    let runtime = per_step(&a.runtime, "--runtime")?;
    let ramp = per_step(&a.ramp_time, "--ramp-time")?;
    if runtime
        .all
        .iter()
        .chain(runtime.steps.values())
        .any(|d| d.is_zero())
    {
        return Err(bad("--runtime: must be more than 0".into()));
    }
    Ok((runtime, ramp))
}

/// The user's target checked before anything runs, on what was claimed: writable with
/// consent when a step writes, `--size` within a device, an existing file with something to
/// read.
fn check_user_target(
    a: &ReviewArgs,
    claim: &Claim,
    steps: &[Step],
    consent: &Consent,
) -> Result<(), CliError> {
    let facts = claim.facts();
    let t = claim.named();
    let writing: Vec<&str> = steps
        .iter()
        .filter(|s| s.writes())
        .map(|s| s.name())
        .collect();
    if !writing.is_empty() {
        check_target_write(facts, consent).map_err(|e| {
            bad(format!(
                "{e} (the steps {} write to it; read-only steps: --steps \
                 info,poll-vs-irq,software-floor)",
                writing.join(", ")
            ))
        })?;
    }
    match a.size {
        Some(s) if facts.kind == TargetKind::BlockDevice && s > facts.size_bytes => {
            Err(bad(format!(
                "--size: {s} bytes is more than {} holds ({} bytes)",
                t.display(),
                facts.size_bytes
            )))
        }
        None if facts.kind == TargetKind::File && facts.size_bytes == 0 => Err(bad(format!(
            "{} is empty; give --size to have iolab lay it out",
            t.display()
        ))),
        _ => Ok(()),
    }
}

/// The target, claimed before any other work when the user named one (created empty when
/// new and sized, never in /dev; a block device held `O_EXCL` when a step writes), and its
/// size; or a scratch file in a temporary directory (kept alive by the returned guard).
fn target_of(
    a: &ReviewArgs,
    effort: Effort,
    steps: &[Step],
    db: &Path,
) -> Result<(PathBuf, Option<u64>, Scratch), CliError> {
    if let Some(t) = &a.target {
        check_database(db, &[t]).map_err(CliError::bad_input)?;
        iolab_sysinfo::guard::protect(&[t.as_path(), db]);
        let writes = steps.iter().any(|s| s.writes());
        let claim = Claim::take(t, a.size.is_some(), writes, &[db], "--allow-destroy")
            .map_err(CliError::bad_input)?;
        return Ok((t.clone(), a.size, Scratch::Claimed(claim)));
    }
    let (path, dir) = crate::targets::scratch_file("iolab-review-")?;
    check_database(db, &[&path]).map_err(CliError::bad_input)?;
    iolab_sysinfo::guard::protect(&[path.as_path(), db]);
    Ok((
        path,
        Some(a.size.unwrap_or(effort.scratch_bytes())),
        Scratch::Dir(dir),
    ))
}

/// What the review holds to its end: the user's claimed target, or the scratch directory.
enum Scratch {
    Claimed(Claim),
    Dir(#[allow(dead_code)] tempfile::TempDir),
}

/// The QD1 paths, with SPDK's when `--spdk` names a namespace.
fn with_spdk(
    mut paths: Vec<iolab_engine::EngineConfig>,
    spdk: bool,
) -> Vec<iolab_engine::EngineConfig> {
    if spdk {
        paths.push(iolab_engine::EngineConfig::new(
            iolab_engine::EngineKind::Spdk,
        ));
    }
    paths
}

/// Everything checked before any I/O; returns the config and the scratch directory to keep.
fn configure(
    a: &ReviewArgs,
    db: &Path,
) -> Result<(ReviewConfig, Scratch, Option<ReportOut>), CliError> {
    let effort = effort_of(a);
    let steps = steps_of(a)?;
    let (runtime, ramp) = timing_of(a)?;
    if !(a.tolerance > 0.0 && a.tolerance < 100.0) {
        return Err(bad(format!(
            "--tolerance: {} is not a percentage between 0 and 100",
            a.tolerance
        )));
    }
    if a.size == Some(0) {
        return Err(bad("--size: must be more than 0".into()));
    }
    if let Some(r) = &a.report {
        if r.as_os_str() == "-" && a.format.json() {
            return Err(bad(
                "--report - and --output-format=json both write to stdout; name a file for \
                 the report"
                    .into(),
            ));
        }
    }
    // Claimed first: every check below judges the claimed object.
    let (target, size, scratch) = target_of(a, effort, &steps, db)?;
    let named = a.target.iter().chain(&a.spdk).map(PathBuf::as_path);
    let consent = Consent::granting("--allow-destroy", a.allow_destroy, named);
    if let Scratch::Claimed(claim) = &scratch {
        check_user_target(a, claim, &steps, &consent)?;
    }
    if let Some(r) = &a.report {
        check_output(r, "--report", &[&target, db]).map_err(CliError::bad_input)?;
    }
    // Opened now: a report that could not be written is refused before the review starts.
    let report = match &a.report {
        Some(r) => Some(open_report(r, "--report", &[&target, db])?),
        None => None,
    };
    let floor_device = floor_device(a, &steps)?;
    let split_target = target.clone();
    let cfg = ReviewConfig {
        consent,
        floor_consent: Consent::granting(
            "--allow-destroy-floor",
            a.allow_destroy_floor,
            floor_device.as_deref(),
        ),
        qd1_paths: with_spdk(iolab_suite::default_qd1_paths(&target), a.spdk.is_some()),
        target,
        size,
        effort,
        steps,
        runtime,
        ramp,
        max_qd: a.max_qd.unwrap_or(effort.max_qd()),
        precondition_passes: a.passes.unwrap_or(effort.precondition_passes()),
        tolerance_pct: a.tolerance,
        floor_device,
        loads: match &a.loads {
            Some(l) => l.0.clone(),
            None if effort == Effort::Quick => iolab_suite::load_plan::quick_loads(),
            None => iolab_suite::load_plan::default_loads(),
        },
        knee_factor: a.knee,
        slo: a.slo,
        lat_split: !a.no_lat_split && crate::split_note::split_here(&split_target),
        repeat: a.repeat.unwrap_or(1),
        repeat_asked: a.repeat.is_some(),
        with_qd1: Vec::new(),
        spdk: a.spdk.clone(),
    };
    Ok((cfg, scratch, report))
}

pub fn run(a: &ReviewArgs) -> Result<ExitCode, CliError> {
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    let (cfg, scratch, report) = configure(a, &db_path)?;
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    if let Scratch::Claimed(claim) = &scratch {
        claim.check_name().map_err(CliError::bad_input)?;
        claim.keep();
    }
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("review", &command_line())
        .map_err(CliError::failed)?;
    let planned = plan(a, &cfg, &store, run_id)?;
    iolab_runner::signal::install();
    let clock = iolab_runner::run::run_clock(cfg.lat_split);
    say!(
        "iolab: review of {}{} ({}): {} step(s), about {}; saving as run {run_id} in {}",
        cfg.target.display(),
        if a.target.is_none() {
            " (scratch file)"
        } else {
            ""
        },
        cfg.effort.name(),
        cfg.steps.len(),
        clock_time(planned),
        db_path.display()
    );
    let show = !a.quiet;
    // With --output-format=json the step tables are not printed: stdout holds one document.
    let mut lock: Box<dyn std::io::Write> = match a.format.json() {
        true => Box::new(std::io::sink()),
        false => Box::new(crate::output::Quiet::new(crate::escape::stdout())),
    };
    let mut ex = Executor {
        store: &mut store,
        run_id,
        clock,
        consent: cfg.consent.clone(),
        progress: Progress::new(show, planned),
        out: &mut lock,
        kept: None,
        measured: 0,
        unavailable: 0,
        repeat: cfg.repeat,
        health_every: (!a.health_interval.is_zero()).then_some(a.health_interval),
    };
    let result = run_review(&cfg, &mut ex);
    let points = (ex.measured, ex.unavailable);
    drop(lock);
    let outcome = match result {
        Ok(o) => o,
        Err(e) => {
            let _ = store.finish_run(run_id, RunStatus::Failed);
            return Err(CliError::failed(anyhow!(e)));
        }
    };
    let end = Ended {
        store: &store,
        run_id,
        db_path: &db_path,
        report,
    };
    end.finish(a, &outcome, points)
}

/// The review's estimate of its own length, recorded with what it will run.
fn plan(
    a: &ReviewArgs,
    cfg: &ReviewConfig,
    store: &Store,
    run_id: i64,
) -> Result<Duration, CliError> {
    let target_bytes = cfg
        .size
        .or_else(|| probe(&cfg.target).ok().map(|f| f.size_bytes))
        .unwrap_or(0);
    let polled = probe(&cfg.target).is_ok_and(|f| f.polled);
    let planned: Duration = cfg
        .steps
        .iter()
        .map(|s| estimate(cfg, *s, target_bytes, polled).1)
        .sum();
    store
        .set_run_meta(
            run_id,
            &json!({
                "profile": cfg.effort.name(),
                "target": cfg.target.display().to_string(),
                "scratch": a.target.is_none(),
                "size_bytes": cfg.size,
                "steps": cfg.steps.iter().map(|s| s.name()).collect::<Vec<_>>(),
                "max_qd": cfg.max_qd,
                "tolerance_pct": cfg.tolerance_pct,
                "planned_secs": planned.as_secs(),
            }),
        )
        .map_err(CliError::failed)?;
    Ok(planned)
}

/// A review that ran: where it is kept.
struct Ended<'a> {
    store: &'a Store,
    run_id: i64,
    db_path: &'a std::path::Path,
    /// `--report`, opened before the review started.
    report: Option<ReportOut>,
}

impl Ended<'_> {
    /// Stores how the review ended, prints its JSON and report, and says why it did not end
    /// ok. `points`: measured, and n/a (every point n/a is a review that measured nothing).
    fn finish(
        mut self,
        a: &ReviewArgs,
        outcome: &ReviewOutcome,
        points: (usize, usize),
    ) -> Result<ExitCode, CliError> {
        let (measured, unavailable) = points;
        let nothing = measured == 0 && unavailable > 0 && !outcome.interrupted;
        let status = if outcome.interrupted {
            RunStatus::Interrupted
        } else if !outcome.failed.is_empty() || nothing {
            RunStatus::Failed
        } else {
            RunStatus::Ok
        };
        let (store, run_id) = (self.store, self.run_id);
        store.finish_run(run_id, status).map_err(CliError::failed)?;
        if a.format.json() {
            let run = store.run(run_id).map_err(CliError::failed)?;
            outln!(
                "{}",
                serde_json::to_string_pretty(&run.to_json()).unwrap_or_default()
            );
        }
        say!("iolab: saved as run {run_id} in {}", self.db_path.display());
        if let (Some(r), Some(out)) = (&a.report, self.report.take()) {
            let bytes = crate::cmd_report::write_report_to(store, &[run_id], &[], out, r)?;
            say!(
                "iolab: report written to {} ({} KB)",
                r.display(),
                bytes / 1024
            );
        }
        if outcome.interrupted {
            say!("iolab: interrupted: the steps and points that finished are saved");
            return Ok(ExitCode::from(exit::interrupted()));
        }
        for (s, why) in &outcome.failed {
            say!("iolab: step {s} failed: {why}");
        }
        if nothing {
            say!(
                "iolab: nothing was measured: all {unavailable} point(s) were n/a on this \
                 target (the reasons are above)"
            );
        }
        Ok(match status {
            RunStatus::Failed => ExitCode::from(exit::RUN_FAILED),
            _ => ExitCode::SUCCESS,
        })
    }
}
