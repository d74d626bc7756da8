//! `iolab pts TARGET`: SNIA's Solid State Storage Performance Test Specification, PTS-style
//! (`iolab_pts`): for each chosen test a purge, preconditioning, then the test's rounds
//! until SNIA's steady-state rule holds. Checks everything it can first (the tests named,
//! the target and the consent to destroy its data), so bad input writes nothing and exits 2;
//! prints the plan at the specification's durations before the first I/O.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use iolab_fio::units::parse_size;
use iolab_pts::plan::{clock, plan};
use iolab_pts::tests::PtsTest;
use iolab_pts::{run_test, Config, TestRun, DISCLAIMER};
use iolab_store::{RunStatus, Store};
use iolab_suite::progress::Progress;
use iolab_suite::Executor;
use iolab_sysinfo::{check_blank, check_target_write, probe, Consent, TargetKind};
use serde_json::json;

use crate::exit::CliError;

/// The write rate the plan assumes for preconditioning.
const PLAN_WRITE_RATE: f64 = 1e9;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Tests (all by default, in this order):\n  \
    iops   random I/O, 7 read/write mixes x 8 block sizes; tracks 4 KiB write IOPS\n  \
    tp     sequential write and read at 128 KiB and 1024 KiB (PTS-C: 1024 KiB)\n  \
    lat    T1Q1 random I/O, 3 mixes x 3 block sizes: average, max, five-nines\n  \
    wsat   write saturation: continuous 4 KiB random writes, 24 h or 4x capacity\n  \
    hir    host idle recovery: 4 KiB write bursts with 5 to 50 s idle, each then a baseline\n  \
    xsr    cross-stimulus recovery: 1024 KiB seq, 8 KiB random, 1024 KiB seq writes, 8 h each\n  \
    ecw    enterprise composite workload over threads x queue depth (demand intensity)\n  \
    dirth  demand intensity and response-time histograms: 4 KiB random writes\n\n\
Each test: purge (NVMe Format on an NVMe namespace, else BLKDISCARD; a file is\n\
hole-punched, which is no true purge), twice the capacity in 128 KiB sequential writes\n\
(not for wsat, hir and dirth, which start from the purged drive), then rounds of\n\
one-minute elements until SNIA's steady state (5 rounds within 20 % range and 10 % slope\n\
excursion; at most 25), then what the test measures after it.\n\n\
Examples:\n  \
    iolab pts /dev/nvme0n1 --plan                    # how long each test takes, nothing run\n  \
    iolab pts --plan --capacity 375g /dev/nvme0n1    # the plan for a 375 GB drive\n  \
    iolab pts /dev/zram0 --allow-destroy --quick     # every test in minutes, scaled\n  \
    iolab pts /dev/nvme0n1 --allow-destroy --tests iops,lat --output-format=json\n\n\
Every result is a PTS-style run by iolab: not a certified SNIA result.")]
pub struct PtsArgs {
    /// Block device (or file) to test; its data is destroyed
    pub target: PathBuf,
    /// Allow the tests to purge and overwrite the target (refused, whatever this says, on
    /// devices that are mounted, in use, partitioned or signed: wipe them first)
    #[arg(long)]
    pub allow_destroy: bool,
    /// Every duration and capacity scaled down (a quarter second an element, at most 256 MiB,
    /// T2Q8): the whole suite in minutes; not comparable with a full run, and said so
    #[arg(long)]
    pub quick: bool,
    /// PTS-C (client) rather than PTS-E (enterprise)
    #[arg(long)]
    pub client: bool,
    /// Tests to run, comma-separated (see below) [default: all]
    #[arg(long, value_delimiter = ',')]
    pub tests: Option<Vec<String>>,
    /// Bytes of the target to test (the spec's user capacity) [default: all of it]
    #[arg(long, value_parser = parse_size)]
    pub size: Option<u64>,
    /// Print the plan at the specification's durations and stop
    #[arg(long)]
    pub plan: bool,
    /// With --plan: plan for a drive of this capacity instead of the target's
    #[arg(long, value_parser = parse_size, requires = "plan")]
    pub capacity: Option<u64>,
    /// Rounds after which a test stops without steady state [default: 25, the spec's; 10 with --quick]
    #[arg(long = "max-rounds", value_parser = clap::value_parser!(u32).range(5..=1000))]
    pub max_rounds: Option<u32>,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// At the end, write the run's HTML report (a section per test, `pts-<name>`) to FILE,
    /// as `iolab report RUN -o FILE` would
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// No progress line on stderr
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub format: crate::output::FormatArg,
}

fn bad(msg: String) -> CliError {
    CliError::bad_input(anyhow!(msg))
}

/// The tests the user named, in the suite's order.
fn chosen(a: &PtsArgs) -> Result<Vec<&'static dyn PtsTest>, CliError> {
    let all = iolab_pts::tests::all();
    let Some(names) = &a.tests else {
        return Ok(all.to_vec());
    };
    for n in names {
        if iolab_pts::tests::by_name(n).is_none() {
            let known: Vec<&str> = all.iter().map(|t| t.name()).collect();
            return Err(bad(format!(
                "--tests: unknown test '{n}' (tests: {})",
                known.join(", ")
            )));
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| names.iter().any(|n| n == t.name()))
        .collect())
}

/// The target's capacity, checked writable with the user's consent (not for a plan).
fn capacity(a: &PtsArgs, consent: &Consent) -> Result<(u64, u32), CliError> {
    if let (true, Some(c)) = (a.plan, a.capacity) {
        return Ok((c, 512));
    }
    let facts = match probe(&a.target) {
        Ok(f) => f,
        Err(_) if !a.target.exists() && a.size.is_some() => return Ok((a.size.unwrap_or(0), 4096)),
        Err(e) => return Err(bad(e.to_string())),
    };
    if !a.plan {
        check_target_write(&facts, consent).map_err(|e| bad(e.to_string()))?;
        // A PTS purges the whole device (an NVMe Format erases the namespace): it takes a
        // blank target only, whatever --allow-destroy covers.
        check_blank(
            &facts,
            "a PTS purges the whole target, so it takes only a blank one",
        )
        .map_err(|e| bad(e.to_string()))?;
    }
    match (facts.kind, a.size) {
        (TargetKind::BlockDevice, Some(s)) if s > facts.size_bytes => Err(bad(format!(
            "--size: {s} bytes is more than {} holds ({} bytes)",
            a.target.display(),
            facts.size_bytes
        ))),
        (_, None) if facts.size_bytes == 0 => Err(bad(format!(
            "{} is empty; give --size to have iolab lay it out",
            a.target.display()
        ))),
        _ => Ok((
            facts.size_bytes.max(a.size.unwrap_or(0)),
            facts.logical_block_size,
        )),
    }
}

/// The plan, one line a test.
fn plan_text(tests: &[&'static dyn PtsTest], c: &Config) -> String {
    let mut s = format!(
        "{} on {} ({} bytes{}), elements of {} at T{}Q{}; preconditioning timed at 1 GB/s:\n",
        c.profile(),
        c.target.display(),
        c.region,
        if c.quick {
            ", --quick: scaled, not comparable"
        } else {
            ""
        },
        clock(c.element_time),
        c.threads,
        c.depth
    );
    for p in plan(tests, c, PLAN_WRITE_RATE) {
        let rounds = match p.rounds.0 == p.rounds.1 {
            true => format!("{} rounds", p.rounds.0),
            false => format!("{} to {} rounds", p.rounds.0, p.rounds.1),
        };
        let after = match p.after.is_zero() {
            true => String::new(),
            false => format!(", then {}", clock(p.after)),
        };
        s.push_str(&format!(
            "  {:<5} purge, {} of preconditioning, then {} element(s) a round, {rounds}{after}: {} to {}\n",
            p.name,
            clock(p.wipc),
            p.elements,
            clock(p.least),
            clock(p.most)
        ));
    }
    s
}

/// What `pts` holds from its checks to its end: the target's exclusive claim (a block
/// device: nobody mounts, claims or formats it under the tests) and the report's file,
/// opened before the first byte is written so that a report that cannot be written is
/// refused up front, not after hours of tests.
struct Held {
    _claim: Option<std::sync::Arc<std::fs::File>>,
    report: Option<crate::cmd_report::ReportOut>,
}

/// The guard, in `run`'s order: the database checked against the target (and the other
/// way round), every path registered, the target claimed, then the report opened.
fn guard(a: &PtsArgs, db: &std::path::Path) -> Result<Held, CliError> {
    let target = a.target.as_path();
    iolab_sysinfo::check_database(db, &[target]).map_err(CliError::bad_input)?;
    if a.report.as_deref() == Some(std::path::Path::new("-")) && a.format.json() {
        return Err(bad(
            "--report - and --output-format=json both write to stdout; name a file for the report"
                .into(),
        ));
    }
    let protected = [target, db];
    iolab_sysinfo::guard::protect(&protected);
    let claim = match probe(target) {
        Ok(f) if f.kind == TargetKind::BlockDevice => {
            let pin = iolab_sysinfo::Pin::existing(target)
                .map_err(|e| bad(format!("{}: {e}", target.display())))?;
            let claim = iolab_sysinfo::claim::exclusive(&pin).map_err(|e| {
                CliError::bad_input(iolab_sysinfo::SafetyError {
                    path: f.path.clone(),
                    reason: iolab_sysinfo::claim::refusal(&e, f.device, "--allow-destroy"),
                })
            })?;
            Some(claim)
        }
        _ => None,
    };
    // Opened last, once nothing else can refuse: a refused run leaves no empty report.
    let report = match &a.report {
        Some(r) => Some(crate::cmd_report::open_report(r, "--report", &protected)?),
        None => None,
    };
    Ok(Held {
        _claim: claim,
        report,
    })
}

pub fn run(a: &PtsArgs) -> Result<ExitCode, CliError> {
    let tests = chosen(a)?;
    let consent = Consent::granting("--allow-destroy", a.allow_destroy, [a.target.as_path()]);
    let (capacity, logical_block) = capacity(a, &consent)?;
    let mut c = Config::new(a.target.clone(), capacity, a.size, a.client, a.quick);
    c.logical_block = logical_block;
    if let Some(m) = a.max_rounds {
        c.rule.max_rounds = m as usize;
    }
    let planned = plan_text(&tests, &c);
    if a.plan {
        outln!("{}", planned.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    c.check().map_err(bad)?;
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    let mut held = guard(a, &db_path)?;
    say!("iolab pts: {}", planned.trim_end());
    say!("iolab pts: {DISCLAIMER}");
    let mut store = Store::open(&db_path).map_err(CliError::bad_input)?;
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("pts", &crate::cmd_review::command_line())
        .map_err(CliError::failed)?;
    iolab_runner::signal::install();
    let (runs, failed) = run_tests(a, &tests, &c, &mut store, run_id)?;
    let interrupted = runs
        .iter()
        .find_map(|r| r.interrupted.as_ref().map(|w| (r.name, w)));
    let ran = runs.iter().filter(|r| r.unavailable.is_none()).count();
    let status = match (&failed, interrupted, ran) {
        (Some(_), _, _) => RunStatus::Failed,
        (None, Some(_), _) => RunStatus::Interrupted,
        (None, None, 0) => RunStatus::Failed,
        (None, None, _) => RunStatus::Ok,
    };
    let doc = json!({
        "pts": {
            "profile": c.profile(),
            "disclaimer": DISCLAIMER,
            "target": c.target.display().to_string(),
            "region_bytes": c.region,
            "quick": c.quick,
            "scaled": c.quick.then_some("--quick: every duration and capacity scaled down; not comparable with a full run"),
            "element_time_s": c.element_time.as_secs_f64(),
            "threads": c.threads,
            "depth": c.depth,
            "run_id": run_id,
        },
        "tests": runs.iter().map(|r| r.to_json(&c)).collect::<Vec<_>>(),
    });
    // The whole document is the run's meta: `show` prints it, `report` draws its pages.
    store.set_run_meta(run_id, &doc).map_err(CliError::failed)?;
    store.finish_run(run_id, status).map_err(CliError::failed)?;
    if a.format.json() {
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    say!("iolab pts: saved as run {run_id} in {}", db_path.display());
    if let Some(out) = held.report.take() {
        let name = a.report.as_deref().unwrap_or(std::path::Path::new("-"));
        let bytes = crate::cmd_report::write_report_to(&store, &[run_id], &[], out, name)?;
        say!(
            "iolab pts: report written to {} ({} KB)",
            a.report
                .as_deref()
                .unwrap_or(std::path::Path::new("-"))
                .display(),
            bytes / 1024
        );
    }
    if let Some(e) = failed {
        return Err(CliError::failed(anyhow!(e)));
    }
    if let Some((name, left)) = interrupted {
        say!(
            "iolab pts: interrupted during {name}: {left}; what was measured is kept in run {run_id}"
        );
        return Ok(ExitCode::from(crate::exit::interrupted()));
    }
    if ran == 0 {
        return Err(CliError::failed(anyhow!(
            "no test ran: {}",
            runs.iter()
                .filter_map(|r| r.unavailable.as_ref().map(|w| format!("{}: {w}", r.name)))
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the tests in order, each printed as it ends, until one fails or a signal stops
/// one; what ran, and the failure if any.
fn run_tests(
    a: &PtsArgs,
    tests: &[&'static dyn PtsTest],
    c: &Config,
    store: &mut Store,
    run_id: i64,
) -> Result<(Vec<TestRun>, Option<iolab_suite::SuiteError>), CliError> {
    // The progress line counts down the shortest the tests can take (5 rounds each).
    let least = plan(tests, c, PLAN_WRITE_RATE)
        .iter()
        .map(|p| p.least)
        .sum();
    let mut sink = std::io::sink();
    let mut ex = Executor {
        store,
        run_id,
        clock: iolab_runner::run::run_clock(false),
        consent: Consent::granting("--allow-destroy", a.allow_destroy, [a.target.as_path()]),
        progress: Progress::new(!a.quiet, least),
        out: &mut sink,
        kept: None,
        measured: 0,
        unavailable: 0,
        repeat: 1,
        health_every: Some(std::time::Duration::from_secs(10)),
    };
    let mut runs: Vec<TestRun> = Vec::new();
    for t in tests {
        match run_test(*t, c, &mut ex) {
            Ok(r) => {
                if !a.format.json() {
                    out!("{}", iolab_pts::text::test_summary(&r.to_json(c)));
                }
                let stop = r.interrupted.is_some();
                runs.push(r);
                if stop {
                    break;
                }
            }
            Err(e) => return Ok((runs, Some(e))),
        }
    }
    Ok((runs, None))
}
