//! `iolab pts TARGET`: SNIA's Solid State Storage Performance Test Specification, PTS-style
//! (`iolab_pts`): for each chosen test a purge, preconditioning, then the test's rounds
//! until SNIA's steady-state rule holds. Checks everything it can first (the tests named,
//! the target and the consent to destroy its data), so bad input writes nothing and exits 2;
//! prints the plan at the specification's durations before the first I/O.

use iolab_results::pts::{Dirth, Header, PtsDocument};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use iolab_pts::estimate::Estimate;
use iolab_pts::plan::{clock, expected, parse_capacity, parse_rate, plan, total, Timing};
use iolab_pts::tests::PtsTest;
use iolab_pts::{
    run_test, Choices, Config, DataPattern, DirthChoice, Profile, TestRun, WsatWorkload, DISCLAIMER,
};
use iolab_store::{RunStatus, Store};
use iolab_suite::progress::Progress;
use iolab_suite::Executor;
use iolab_sysinfo::claim::Claim;
use iolab_sysinfo::{check_blank, check_target_write, probe, Consent, TargetKind};

use crate::exit::CliError;

/// The write rate the plan assumes for writes when the operator gives none.
const PLAN_WRITE_RATE: f64 = 1e9;

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Tests (the profile's set by default, in this order):\n  \
    iops      random I/O, 7 read/write mixes x 8 block sizes; tracks 4 KiB W, 64 KiB 65/35\n            \
    and 1024 KiB R IOPS, all steady in one window\n  \
    tp-128k   sequential 100 % read, then 100 % write, 128 KiB (PTS-E only)\n  \
    tp-1024k  the same at 1024 KiB (`tp` names both)\n  \
    lat       T1Q1 random I/O, 3 mixes x 3 block sizes, then a 20-minute histogram\n  \
    wsat      write saturation: 4 KiB random writes, 24 h or 4x the active range\n  \
    hir       host idle recovery (PTS-E): 4 KiB write bursts with 5 to 50 s idle\n  \
    xsr       cross-stimulus recovery (PTS-E): 1024 KiB seq 8 h, 8 KiB random 6 h, seq 8 h\n  \
    cbw       composite block size workload (PTS-E; `ecw`, its 1.1 name): demand intensity\n  \
    dirth     demand intensity and response-time histograms (PTS-E)\n\n\
PTS-C (--client) runs iops, tp-1024k, lat and wsat over 75 % of the capacity with the\n\
write cache enabled; PTS-E runs all nine over all of it with the cache disabled. Each\n\
test: a purge (NVMe Format with a user data or cryptographic erase; BLKDISCARD or a\n\
file's hole punch otherwise, which is no purge: the test is marked not comparable),\n\
twice the active range in sequential writes (not for wsat, hir, xsr), then rounds of\n\
one-minute elements until SNIA's steady state (5 rounds within 20 % range and 10 % slope\n\
excursion; at most 25), then what the test measures after it. Capacities and rates\n\
are decimal (2TB = 2,000,000,000,000 bytes; TiB for binary).\n\n\
Examples:\n  \
    iolab pts /dev/nvme0n1 --plan                        # how long the run takes\n  \
    iolab pts /dev/nvme0n1 --plan --capacity 2TB --rate 2GB/s   # a 2 TB drive's plan\n  \
    iolab pts /dev/zram0 --allow-destroy --quick         # every test in minutes, scaled\n  \
    iolab pts /dev/nvme0n1 --allow-destroy --tests iops,tp --output-format=json\n\n\
Every result is a PTS-style run by iolab: not a certified SNIA result."
)]
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
    /// PTS-C (client): 75 % active range, write cache enabled, T2Q16, its four tests
    #[arg(long)]
    pub client: bool,
    /// Tests to run, comma-separated (see below) [default: the profile's set]
    #[arg(long, value_delimiter = ',')]
    pub tests: Option<Vec<String>>,
    /// Test at most this much of the target (decimal: 16GB; binary: 16GiB) [default: the
    /// profile's active range]
    #[arg(long, value_parser = parse_capacity)]
    pub size: Option<u64>,
    /// The active range, in percent of the capacity [default: 100 (PTS-E), 75 (PTS-C)]
    #[arg(long = "active-range", value_name = "PCT", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub active_range: Option<u32>,
    /// Threads of the loaded tests [default: 4 (PTS-E), 2 (PTS-C), 2 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Queue depth per thread of the loaded tests [default: 32 (PTS-E), 16 (PTS-C), 8 with --quick]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub depth: Option<u32>,
    /// Each element's time, as fio's runtime (60, 500ms, 2m) [default: 60 s; 250ms with --quick]
    #[arg(long = "element-time", value_name = "TIME", value_parser = parse_time)]
    pub element_time: Option<Duration>,
    /// What is written: random (fresh random data in every write, as PTS requires) or reused
    /// (random buffers reused, fio's default: not comparable) [default: random]
    #[arg(long = "data-pattern", value_name = "PATTERN", value_parser = ["random", "reused"])]
    pub data_pattern: Option<String>,
    /// DIRTH's stimulus: transfer size [default: 8KiB, the 2.0 public implementation's]
    #[arg(long = "dirth-bs", value_name = "SIZE", value_parser = parse_transfer)]
    pub dirth_bs: Option<u32>,
    /// DIRTH's stimulus: reads in percent [default: 65]
    #[arg(long = "dirth-read", value_name = "PCT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub dirth_read: Option<u8>,
    /// DIRTH's response-time ceiling for its maximum-IOPS point [default: 5ms]
    #[arg(long = "dirth-ceiling", value_name = "TIME", value_parser = parse_time)]
    pub dirth_ceiling: Option<Duration>,
    /// Write saturation's stimulus: write-intensive (random 4 KiB writes, the required one)
    /// or one of PTS 2.0's optional workloads: oltp (random 8 KiB, 65 % reads), vod
    /// (sequential 128 KiB, 90 % reads), metadata (sequential 0.5 KiB, 50 % reads; needs a
    /// 512-byte logical block), cbw (the composite block sizes and ranges, all writes)
    /// [default: write-intensive]
    #[arg(long = "wsat-workload", value_name = "WORKLOAD",
          value_parser = clap::builder::PossibleValuesParser::new(WsatWorkload::ALL.map(|(n, _)| n)))]
    pub wsat_workload: Option<String>,
    /// Leave the drive's volatile write cache as found instead of setting the profile's
    /// (disabled for PTS-E, enabled for PTS-C): not comparable, and said so
    #[arg(long = "keep-write-cache")]
    pub keep_write_cache: bool,
    /// The test sponsor every report page's header names (who had the drive tested), as
    /// the specification's report header has it; not known to iolab otherwise
    #[arg(long, value_name = "NAME")]
    pub sponsor: Option<String>,
    /// Print the plan at the specification's durations and stop
    #[arg(long)]
    pub plan: bool,
    /// With --plan: plan for a drive of this capacity instead of the target's (decimal: 2TB)
    #[arg(long, value_parser = parse_capacity, requires = "plan")]
    pub capacity: Option<u64>,
    /// The drive's sequential write rate the plan times preconditioning (and write
    /// saturation's 4x capacity) at, decimal: 2GB/s [default: 1GB/s]
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub rate: Option<f64>,
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

/// A transfer size as fio reads one, within what a job takes (1 byte to 4 GiB - 1): never
/// narrowed silently (4 GiB as a 32-bit size would be 0).
fn parse_transfer(s: &str) -> Result<u32, String> {
    let b = iolab_fio::units::parse_size(s).map_err(|e| e.to_string())?;
    match u32::try_from(b) {
        Ok(0) => Err("a transfer of 0 bytes moves nothing".into()),
        Ok(b) => Ok(b),
        Err(_) => Err(format!(
            "{b} bytes is more than the largest transfer a job makes ({} bytes)",
            u32::MAX
        )),
    }
}

/// A time as fio reads one (seconds unless suffixed: 500ms, 2m).
fn parse_time(s: &str) -> Result<Duration, String> {
    iolab_fio::units::parse_time(s).map_err(|e| e.to_string())
}

fn bad(msg: String) -> CliError {
    CliError::bad_input(anyhow!(msg))
}

fn profile(a: &PtsArgs) -> Profile {
    match a.client {
        true => Profile::Client,
        false => Profile::Enterprise,
    }
}

/// The operator's choices as the configuration takes them.
fn choices(a: &PtsArgs) -> Choices {
    let d = DirthChoice::default();
    Choices {
        threads: a.threads,
        depth: a.depth,
        element_time: a.element_time,
        active_range_pct: a.active_range,
        data_pattern: a.data_pattern.as_deref().map(|p| match p {
            "reused" => DataPattern::Reused,
            _ => DataPattern::Random,
        }),
        dirth: Some(DirthChoice {
            read_pct: a.dirth_read.unwrap_or(d.read_pct),
            bs: a.dirth_bs.unwrap_or(d.bs),
            ceiling: a.dirth_ceiling.unwrap_or(d.ceiling),
        }),
        wsat: a.wsat_workload.as_deref().and_then(WsatWorkload::named),
        keep_write_cache: a.keep_write_cache,
    }
}

/// The tests the user named (or the profile's set), in the suite's order.
fn chosen(a: &PtsArgs) -> Result<Vec<&'static dyn PtsTest>, CliError> {
    let all = iolab_pts::tests::all();
    let Some(names) = &a.tests else {
        return Ok(all.into_iter().filter(|t| t.in_profile(a.client)).collect());
    };
    let mut picked: Vec<&str> = Vec::new();
    for n in names {
        let found = iolab_pts::tests::by_name(n);
        if found.is_empty() {
            let known: Vec<&str> = all.iter().map(|t| t.name()).collect();
            return Err(bad(format!(
                "--tests: unknown test '{n}' (tests: {}, tp for both throughput tests)",
                known.join(", ")
            )));
        }
        picked.extend(found.iter().map(|t| t.name()));
    }
    Ok(all
        .into_iter()
        .filter(|t| picked.contains(&t.name()))
        .collect())
}

/// The capacity a plan is made for: `--capacity`, or the target as it is (read only).
fn planned_capacity(a: &PtsArgs) -> Result<(u64, u32), CliError> {
    if let Some(c) = a.capacity {
        return Ok((c, 512));
    }
    match probe(&a.target) {
        Ok(f) => sized(a, &f),
        Err(_) if !a.target.exists() && a.size.is_some() => Ok((a.size.unwrap_or(0), 4096)),
        Err(e) => Err(bad(e.to_string())),
    }
}

/// The capacity and logical block the claimed target gives, with `--size`.
fn sized(a: &PtsArgs, facts: &iolab_sysinfo::TargetFacts) -> Result<(u64, u32), CliError> {
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

/// The claimed target judged: writable with the consent given to the claimed object, and
/// blank (a PTS purges the whole target, so it takes only a blank one, whatever
/// --allow-destroy covers).
fn judge(claim: &Claim, consent: &Consent) -> Result<(), CliError> {
    let facts = claim.facts();
    check_target_write(facts, consent).map_err(|e| bad(e.to_string()))?;
    check_blank(
        facts,
        "a PTS purges the whole target, so it takes only a blank one",
    )
    .map_err(|e| bad(e.to_string()))
}

/// The plan, one line a test, and the total.
fn plan_text(tests: &[&'static dyn PtsTest], c: &Config, rate: f64) -> String {
    let cache = match (c.keep_write_cache, c.profile.write_cache_enabled()) {
        (true, _) => "write cache left as found (--keep-write-cache)".to_string(),
        (false, on) => format!(
            "write cache {} during the run ({} requires it; restored after)",
            if on { "enabled" } else { "disabled" },
            c.profile_name()
        ),
    };
    let mut s = format!(
        "{} on {}: active range {} bytes ({:.1} % of {} bytes){}; elements of {} at T{}Q{}; \
         {cache}; writes timed at {:.0} MB/s:\n",
        c.profile_name(),
        c.target.display(),
        c.region,
        c.active_range_pct,
        c.capacity,
        if c.quick {
            ", --quick: scaled, not comparable"
        } else {
            ""
        },
        clock(c.element_time),
        c.threads,
        c.depth,
        rate / 1e6
    );
    let planned = plan(tests, c, Timing::assumed(rate));
    for p in &planned {
        let rounds = match p.rounds.0 == p.rounds.1 {
            true => format!("{} rounds", p.rounds.0),
            false => format!("{} to {} rounds", p.rounds.0, p.rounds.1),
        };
        let pc = match p.preconditioning.1.is_zero() {
            true => String::new(),
            false => format!(
                ", its own preconditioning {} to {}",
                clock(p.preconditioning.0),
                clock(p.preconditioning.1)
            ),
        };
        let after = match p.after.is_zero() {
            true => String::new(),
            false => format!(", then {}", clock(p.after)),
        };
        let range = match p.least == p.most {
            true => clock(p.most),
            false => format!("{} to {}", clock(p.least), clock(p.most)),
        };
        s.push_str(&format!(
            "  {:<8} purge, {} of preconditioning{pc}, {} element(s) a round, {rounds}{after}: {range}\n",
            p.name,
            clock(p.wipc),
            p.elements,
        ));
    }
    let (least, most) = total(&planned);
    s.push_str(&format!(
        "  total: about {} ({} if every test is steady in its first window, {} if every test \
         runs its last round; the run plans again at the pace it measures in its first points)\n",
        clock(expected(&planned)),
        clock(least),
        clock(most)
    ));
    s
}

/// What `pts` holds from its checks to its end: the target's claim (opened once before any
/// other work, a block device `O_EXCL`: nobody mounts, claims or formats it under the tests,
/// and every step works on the claimed object) and the report's file, opened before the
/// first byte is written so that a report that cannot be written is refused up front, not
/// after hours of tests.
struct Held {
    claim: Claim,
    report: Option<crate::cmd_report::ReportOut>,
}

/// The guard, before anything else: the database checked against the target by place (a
/// bind mount, a hard link or a symlink of its directory is the same place), every path
/// registered, the target claimed (created empty when new, never in /dev), then the report
/// opened.
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
    let claim = Claim::take(target, a.size.is_some(), true, &[db], "--allow-destroy")
        .map_err(CliError::bad_input)?;
    Ok(Held {
        claim,
        report: None,
    })
}

/// The consent `--allow-destroy` gives: to the claimed object (a file iolab made for the
/// run needs none).
fn consent_for(a: &PtsArgs, claim: &Claim) -> Consent {
    let mut c = Consent::new("--allow-destroy");
    if a.allow_destroy {
        c.grant(claim.named());
    }
    c
}

pub fn run(a: &PtsArgs) -> Result<ExitCode, CliError> {
    let tests = chosen(a)?;
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    // Claimed first, before the plan, the checks and the store: everything after works on
    // the claimed object.
    let mut held = match a.plan {
        true => None,
        false => Some(guard(a, &db_path)?),
    };
    let consent = held.as_ref().map(|h| consent_for(a, &h.claim));
    let (capacity, logical_block) = match (&held, &consent) {
        (Some(h), Some(consent)) => {
            judge(&h.claim, consent)?;
            sized(a, h.claim.facts())?
        }
        _ => planned_capacity(a)?,
    };
    let mut c = Config::new(
        a.target.clone(),
        capacity,
        a.size,
        profile(a),
        a.quick,
        &choices(a),
    );
    c.logical_block = logical_block;
    if let Some(m) = a.max_rounds {
        c.rule.max_rounds = m as usize;
    }
    let rate = a.rate.unwrap_or(PLAN_WRITE_RATE);
    let planned = plan_text(&tests, &c, rate);
    if a.plan {
        outln!("{}", planned.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    c.check().map_err(bad)?;
    iolab_pts::preflight::check(&tests, &c).map_err(bad)?;
    let (Some(mut held), Some(consent)) = (held.take(), consent) else {
        return Err(bad("internal: no claim".into()));
    };
    // Opened last, once nothing else can refuse: a refused run leaves no empty report.
    if let Some(r) = &a.report {
        let protected = [a.target.as_path(), db_path.as_path()];
        held.report = Some(crate::cmd_report::open_report(r, "--report", &protected)?);
    }
    held.claim.check_name().map_err(CliError::bad_input)?;
    say!("iolab pts: {}", planned.trim_end());
    say!("iolab pts: {DISCLAIMER}");
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    held.claim.keep();
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("pts", &crate::cmd_review::command_line())
        .map_err(CliError::failed)?;
    iolab_runner::signal::install();
    let pin = (held.claim.facts().kind == TargetKind::BlockDevice).then(|| held.claim.pin());
    let dut = iolab_pts::dut::facts(&c, pin);
    // Set as the profile requires for the run, restored when `_cache` drops, however the
    // run ends.
    let record = iolab_pts::dut::Record {
        store: &store,
        run_id,
    };
    let (cache, _cache) = iolab_pts::dut::write_cache(&c, pin, record);
    if let Some(d) = &cache.departs {
        say!("iolab pts: {d}");
    }
    let (runs, failed, kept) = run_tests(a, &tests, &c, &cache, &mut store, run_id, consent)?;
    let status = status_of(&runs, failed.is_some());
    let mut pts = header(&c, run_id, &dut, &cache);
    pts.plan = Some(kept);
    pts.sponsor = a.sponsor.clone();
    let doc = PtsDocument {
        pts,
        tests: runs.iter().map(|r| r.to_doc(&c)).collect(),
    };
    // The whole document is the run's meta: `show` prints it, `report` draws its pages.
    let stored = serde_json::to_value(&doc).map_err(|e| CliError::failed(anyhow!(e)))?;
    store
        .set_run_meta(run_id, &stored)
        .map_err(CliError::failed)?;
    store.finish_run(run_id, status).map_err(CliError::failed)?;
    if a.format.json() {
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    if let Some(p) = &doc.pts.plan {
        say!("iolab pts: the plan: {}", p.words());
    }
    say!("iolab pts: saved as run {run_id} in {}", db_path.display());
    if let Some(out) = held.report.take() {
        let name = a.report.as_deref().unwrap_or(std::path::Path::new("-"));
        let bytes = crate::cmd_report::write_report_to(&store, &[run_id], &[], out, name)?;
        say!(
            "iolab pts: report written to {} ({} KB)",
            name.display(),
            bytes / 1024
        );
    }
    outcome(&runs, failed, run_id)
}

/// How the run is stored: failed (a test's error, or no test that ran), interrupted, or ok.
fn status_of(runs: &[TestRun], failed: bool) -> RunStatus {
    let interrupted = runs.iter().any(|r| r.interrupted.is_some());
    let ran = runs.iter().any(|r| r.unavailable.is_none());
    match (failed, interrupted, ran) {
        (true, _, _) => RunStatus::Failed,
        (false, true, _) => RunStatus::Interrupted,
        (false, false, false) => RunStatus::Failed,
        (false, false, true) => RunStatus::Ok,
    }
}

/// The exit status, with what the user must know: a test's error (1), a signal (128+n, and
/// what the device was left in), no test that ran (1, and why each did not).
fn outcome(
    runs: &[TestRun],
    failed: Option<iolab_suite::SuiteError>,
    run_id: i64,
) -> Result<ExitCode, CliError> {
    if let Some(e) = failed {
        return Err(CliError::failed(anyhow!(e)));
    }
    let interrupted = runs
        .iter()
        .find_map(|r| r.interrupted.as_ref().map(|w| (r.name, w)));
    if let Some((name, left)) = interrupted {
        say!(
            "iolab pts: interrupted during {name}: {left}; what was measured is kept in run {run_id}"
        );
        return Ok(ExitCode::from(crate::exit::interrupted()));
    }
    if runs.iter().all(|r| r.unavailable.is_some()) {
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

/// The document's header: the run's settings, the operator's choices and the device under
/// test, as the specification's report header names them.
fn header(
    c: &Config,
    run_id: i64,
    dut: &iolab_pts::dut::Dut,
    cache: &iolab_pts::dut::WriteCache,
) -> Header {
    Header {
        profile: c.profile_name().into(),
        disclaimer: DISCLAIMER.into(),
        target: c.target.display().to_string(),
        capacity_bytes: c.capacity,
        region_bytes: c.region,
        active_range_pct: c.active_range_pct,
        active_range: format!(
            "{:.1} % of the user capacity, from LBA 0",
            c.active_range_pct
        ),
        quick: c.quick,
        scaled: c.quick.then(|| {
            "--quick: every duration and capacity scaled down; not comparable with a full run"
                .into()
        }),
        departures: c.departures(),
        element_time_s: c.element_time.as_secs_f64(),
        threads: c.threads,
        depth: c.depth,
        data_pattern: c.data_pattern.name().into(),
        dirth: Dirth {
            read_pct: c.dirth.read_pct,
            bs: c.dirth.bs,
            ceiling_ms: c.dirth.ceiling.as_secs_f64() * 1e3,
        },
        dut: dut.clone(),
        serial: dut.serial.clone(),
        firmware: dut.firmware.clone(),
        write_cache: Some(cache.clone()),
        run_id,
        plan: None,
        sponsor: None,
    }
}

/// Runs the tests in order, each printed as it ends, until one fails or a signal stops
/// one; what ran, and the failure if any.
fn run_tests(
    a: &PtsArgs,
    tests: &[&'static dyn PtsTest],
    c: &Config,
    cache: &iolab_pts::dut::WriteCache,
    store: &mut Store,
    run_id: i64,
    consent: Consent,
) -> Result<Ran, CliError> {
    // The progress line counts down the shortest the tests can take (5 rounds each), planned
    // again at the pace the first points measure, and grown a round at a time past it.
    let assumed = Timing::assumed(a.rate.unwrap_or(PLAN_WRITE_RATE));
    let mut est = Estimate::new(tests, c, assumed, !a.quiet);
    let least = est.expected();
    let mut sink = std::io::sink();
    let mut ex = Executor {
        store,
        run_id,
        clock: iolab_runner::run::run_clock(false),
        consent,
        progress: Progress::new(!a.quiet, least),
        out: &mut sink,
        kept: None,
        measured: 0,
        unavailable: 0,
        repeat: 1,
        health_every: Some(std::time::Duration::from_secs(10)),
    };
    let mut runs: Vec<TestRun> = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        est.test_begins(&mut ex, i);
        let ran = run_test(*t, c, &mut ex, &mut est);
        est.test_ends(&ex);
        match ran {
            Ok(mut r) => {
                if let Some(d) = &cache.departs {
                    r.not_comparable.push(d.clone());
                }
                if !a.format.json() {
                    out!("{}", iolab_pts::text::test_summary(&r.to_doc(c)));
                }
                let stop = r.interrupted.is_some();
                runs.push(r);
                if stop {
                    break;
                }
            }
            Err(e) => return Ok((runs, Some(e), est.finish())),
        }
    }
    Ok((runs, None, est.finish()))
}

/// What the tests did, the error that stopped them if one did, and the plan as it was kept.
type Ran = (
    Vec<TestRun>,
    Option<iolab_suite::SuiteError>,
    iolab_results::pts::PlanDoc,
);
