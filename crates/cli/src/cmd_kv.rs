//! `iolab kv`: the hosting review's RocksDB load, its db_bench command lines scaled to the
//! machine at hand, with the device under the database sampled every second and every
//! workload saved to the results store as it finishes. Everything that can be checked before
//! db_bench starts is (the binary, the directory, the free space, the arguments): bad input
//! writes nothing and exits 2.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::anyhow;
use clap::Args;
use iolab_fio::units::parse_size;
use iolab_kv::{figures, params, plan, Workload};
use iolab_report::format::{bytes_decimal, compact};
use iolab_store::{AppJob, RunStatus, Store};
use iolab_sysinfo::device::filesystem_of;
use iolab_sysinfo::host::{disk_model, mem_total_bytes};
use iolab_sysinfo::target::block_device_of;
use serde_json::json;

use crate::exit::{self, CliError};
use crate::kv_table::{duration, workloads_table};

/// Keys loaded unless told otherwise: about 810 MB, a minute or two on an SSD.
const DEFAULT_KEYS: u64 = 1_000_000;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Workloads (all by default; they run in this order):\n  \
    fillseq     bulk load in key order into an empty database (no compression, 4 KiB blocks)\n  \
    readrandom  random point reads of that database, --threads threads (the review's 32),\n              \
    NUM reads in all\n  \
    overwrite   rewrite every key of that database in random order (zlib, compactions on)\n  \
    fillrandom  bulk load in random order into a second, empty database (zlib, compactions\n              \
    off, two levels: the review's bulk-load settings)\n\n\
    readrandom and overwrite need fillseq's database: asking for them alone runs fillseq first.\n\
    Every workload has the review's db_bench parameters (10-byte keys, 800-byte values, its\n\
    buffer, level, compaction and compression settings); only the key count is scaled.\n\n\
    Examples:\n  \
    iolab kv                                  # 1M keys (~810 MB) in a temporary directory\n  \
    iolab kv --dir /mnt/nvme --data-size 40g  # 40 GB on the drive under test\n  \
    iolab kv --workloads fillseq,readrandom --num 10000000 --threads 16\n  \
    iolab compare RUN RUN                     # two drives, workloads as columns")]
pub struct KvArgs {
    /// Directory for the databases: a fresh subdirectory of it is used and removed at the
    /// end [default: the temporary directory, $TMPDIR or /tmp]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Keys to load (10-byte keys, 800-byte values: 810 bytes each) [default: 1000000]
    #[arg(long, value_name = "N", group = "scale",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub num: Option<u64>,
    /// Data to load instead of --num, in fio's units (40g): SIZE / 810 bytes keys
    #[arg(long = "data-size", alias = "data_size", value_name = "SIZE", group = "scale",
          value_parser = parse_size)]
    pub data_size: Option<u64>,
    /// Workloads to run, comma-separated (see below) [default: all four]
    #[arg(long, value_delimiter = ',', value_name = "W,...")]
    pub workloads: Option<Vec<String>>,
    /// Threads of readrandom (the others run one, as in the review)
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// The db_bench to run (Debian's rocksdb-tools installs /usr/bin/db_bench)
    #[arg(long = "db-bench", value_name = "PATH", default_value = "db_bench")]
    pub db_bench: PathBuf,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// No progress line on stderr (it is drawn only on a terminal anyway: the step, what
    /// runs and the time left by the plan)
    #[arg(long)]
    pub quiet: bool,
    // json: only the stored run, one JSON document at the end (as `show --output-format=json`).
    #[command(flatten)]
    pub format: crate::output::FormatArg,
}

fn bad(msg: String) -> CliError {
    CliError::bad_input(anyhow!(msg))
}

/// `name` on $PATH, or `name` itself when it has a slash.
fn find_program(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return name.is_file().then(|| name.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// What the checks before the first db_bench settle.
struct Setup {
    bin: PathBuf,
    version: String,
    num: u64,
    planned: Vec<plan::Planned>,
    work: tempfile::TempDir,
    /// /proc/diskstats name of the device under the work directory, and its whole disk.
    disk: Option<(String, String)>,
}

fn configure(a: &KvArgs) -> Result<Setup, CliError> {
    let requested: Vec<Workload> = match &a.workloads {
        None => Workload::ALL.to_vec(),
        Some(names) => names
            .iter()
            .map(|n| {
                n.trim()
                    .parse()
                    .map_err(|e| bad(format!("--workloads: {e}")))
            })
            .collect::<Result<_, _>>()?,
    };
    let planned = plan::plan(&requested);
    if planned.is_empty() {
        return Err(bad("--workloads: name at least one workload".into()));
    }
    let num = match (a.num, a.data_size) {
        (Some(n), _) => n,
        (None, Some(0)) => return Err(bad("--data-size: must be more than 0".into())),
        (None, Some(b)) => params::keys_for_bytes(b),
        (None, None) => DEFAULT_KEYS,
    };
    let bin = find_program(&a.db_bench).ok_or_else(|| {
        bad(if a.db_bench == Path::new("db_bench") {
            "db_bench not found on PATH: install it with `apt-get install rocksdb-tools` \
             (or give --db-bench PATH)"
                .to_string()
        } else {
            format!("--db-bench: no program at {}", a.db_bench.display())
        })
    })?;
    let version = iolab_kv::version(&bin)
        .map_err(|e| bad(format!("{} does not run as db_bench: {e}", bin.display())))?;
    let parent = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    if !parent.is_dir() {
        return Err(bad(format!(
            "--dir: {} is not a directory",
            parent.display()
        )));
    }
    let work = tempfile::Builder::new()
        .prefix("iolab-kv-")
        .tempdir_in(&parent)
        .map_err(|e| bad(format!("{} is not writable: {e}", parent.display())))?;
    // The database takes up to its raw size (fillseq writes it uncompressed) and compaction
    // rewrites files before deleting the old ones: ask for twice that, plus 256 MB.
    let need = plan::data_bytes(num).saturating_mul(2) + (256 << 20);
    let free =
        iolab_kv::free_bytes(work.path()).map_err(|e| bad(format!("{}: {e}", parent.display())))?;
    if free < need {
        return Err(bad(format!(
            "{}: {} free, but {} keys need about {} (twice the {} of data, for compaction); \
             scale down with --num or --data-size",
            parent.display(),
            bytes_decimal(free as f64),
            num,
            bytes_decimal(need as f64),
            bytes_decimal(plan::data_bytes(num) as f64)
        )));
    }
    Ok(Setup {
        bin,
        version,
        num,
        planned,
        disk: block_device_of(work.path()),
        work,
    })
}

/// The figures of one finished workload as the store keeps them.
fn app_job(
    w: &plan::Planned,
    run: &iolab_kv::WorkloadRun,
    args: &[String],
    db: &Path,
    setup: &Setup,
) -> AppJob {
    let mut notes = Vec::new();
    if w.fill_only {
        notes.push(format!(
            "run to fill the database {} needs; not asked for",
            if w.workload == Workload::FillSeq {
                "readrandom/overwrite"
            } else {
                "the next workload"
            }
        ));
    }
    if run.assertions {
        notes.push(
            "db_bench says it was built with assertions enabled (Debian's build is): its \
             figures are lower than a release build's"
                .into(),
        );
    }
    if setup.disk.is_none() {
        notes.push("no block device under the directory: no device figures".into());
    }
    if w.workload == Workload::ReadRandom {
        notes.extend(cache_note(setup.num));
    }
    let threads = args
        .iter()
        .find_map(|a| a.strip_prefix("--threads=")?.parse().ok())
        .unwrap_or(1);
    AppJob {
        name: w.workload.name().into(),
        engine: "db_bench".into(),
        description: format!("db_bench {} of {} keys", w.workload, setup.num),
        threads,
        target: db.display().to_string(),
        disk: setup.disk.as_ref().map(|d| d.0.clone()),
        disk_model: setup.disk.as_ref().and_then(|d| disk_model(&d.1)),
        options: json!({ "db_bench": setup.bin.display().to_string(), "args": args }),
        runtime_ns: (run.wall_seconds * 1e9) as u64,
        notes,
        metrics: figures::metrics(run)
            .into_iter()
            .map(|(d, n, v)| (d.to_string(), n, v))
            .collect(),
        series: figures::series(run)
            .into_iter()
            .map(|(d, n, p)| (d.to_string(), n.to_string(), p))
            .collect(),
        health: Vec::new(),
    }
}

/// Said when the database fits in RAM: readrandom is then served from the page cache and
/// measures the CPU and RocksDB more than the device (the review's 350 GB did not fit).
fn cache_note(num: u64) -> Option<String> {
    let data = plan::data_bytes(num);
    let ram = mem_total_bytes()?;
    (data < ram).then(|| {
        format!(
            "the {} database fits in this machine's {} of RAM: reads will mostly hit the page \
             cache; use --data-size above {} to make readrandom read the device",
            bytes_decimal(data as f64),
            bytes_decimal(ram as f64),
            bytes_decimal(ram as f64)
        )
    })
}

/// Raises the open-file limit and says what it is, warning when it is short of the SST
/// files this database can need (64 MB files, counted twice for compaction, plus slack).
fn open_files_line(num: u64) {
    let needed = plan::data_bytes(num) / (32 << 20) + 1024;
    match iolab_kv::raise_open_files() {
        Ok((old, new)) if new < needed => say!(
            "iolab: warning: the open-file limit is {new} (raised from {old} as far as allowed) \
             but this database may keep about {needed} files open: db_bench may fail with \
             \"Too many open files\" (raise the hard limit: ulimit -Hn)"
        ),
        Ok((old, new)) if new > old => say!(
            "iolab: open-file limit raised from {old} to {new} (db_bench keeps its SST files \
             open; the review hit \"Too many open files\" at 1024)"
        ),
        Ok((_, new)) => say!(
            "iolab: open-file limit {new} (its hard limit), enough for this database's SST files"
        ),
        Err(e) => say!("iolab: warning: could not raise the open-file limit: {e}"),
    }
}

/// One line about a finished workload.
fn summary_line(w: &plan::Planned, r: &iolab_kv::WorkloadRun, job: &AppJob) -> String {
    let b = &r.result;
    let mut s = format!(
        "{:<10} {:>8} ops/s  {:>8.2} µs/op",
        w.workload.name(),
        compact(b.ops_per_sec),
        b.micros_per_op
    );
    if let Some(mb) = b.mb_per_sec {
        s.push_str(&format!("  {mb:>7.1} MB/s"));
    }
    if let Some(l) = &b.latency {
        s.push_str(&format!("  P99 {:.2} µs", l.p99));
    }
    s.push_str(&format!("  in {}", duration(b.seconds)));
    let device = job
        .metrics
        .iter()
        .find(|(d, n, _)| d == "disk" && n == "mb_per_sec_mean");
    if let Some((_, _, mean)) = device {
        s.push_str(&format!("  (device {mean:.1} MB/s)"));
    }
    s
}

/// The run's own facts: where it ran, on what, with which db_bench and how many keys.
fn run_meta(a: &KvArgs, setup: &Setup, fs: &Option<String>) -> serde_json::Value {
    json!({
        "dir": setup.work.path().display().to_string(),
        "filesystem": fs,
        "disk": setup.disk.as_ref().map(|d| &d.0),
        "disk_model": setup.disk.as_ref().and_then(|d| disk_model(&d.1)),
        "num": setup.num,
        "data_bytes": plan::data_bytes(setup.num),
        "threads": a.threads,
        "workloads": setup.planned.iter().map(|p| p.workload.name()).collect::<Vec<_>>(),
        "db_bench": setup.bin.display().to_string(),
        "db_bench_version": setup.version,
    })
}

/// The disk's own IOPS and bandwidth per direction since the last look, in fio's ETA form
/// (`vda [r=1.2MiB/s,w=40.1MiB/s][r=300,w=9.8k IOPS]`): what db_bench's operations cost
/// the device, live.
struct DiskRates<'a> {
    disk: Option<&'a str>,
    last: Option<(std::time::Instant, iolab_sysinfo::diskstats::DiskCounters)>,
}

impl<'a> DiskRates<'a> {
    fn new(disk: Option<&'a str>) -> DiskRates<'a> {
        let mut r = DiskRates { disk, last: None };
        r.figures();
        r
    }

    fn figures(&mut self) -> String {
        let Some(disk) = self.disk else {
            return String::new();
        };
        let Some(now) = iolab_sysinfo::diskstats::read_diskstats()
            .ok()
            .and_then(|m| m.get(disk).copied())
        else {
            return String::new();
        };
        let at = std::time::Instant::now();
        let Some((then, before)) = self.last.replace((at, now)) else {
            return String::new();
        };
        let secs = at.duration_since(then).as_secs_f64();
        if secs <= 0.0 {
            return String::new();
        }
        let per = |a: u64, b: u64| a.saturating_sub(b) as f64 / secs;
        let iops = [
            per(now.read_ios, before.read_ios),
            per(now.write_ios, before.write_ios),
            0.0,
        ];
        let bytes = [
            per(now.read_sectors, before.read_sectors) * 512.0,
            per(now.write_sectors, before.write_sectors) * 512.0,
            0.0,
        ];
        match iolab_report::format::eta_figures(&iops, &bytes) {
            f if f.is_empty() => String::new(),
            f => format!(" {disk} {f}"),
        }
    }
}

/// Runs one workload with its progress line: its arguments, database directory and result.
fn run_workload(
    a: &KvArgs,
    setup: &Setup,
    (i, w): (usize, &plan::Planned),
    show: bool,
) -> (
    Vec<String>,
    PathBuf,
    Result<iolab_kv::WorkloadRun, iolab_kv::KvError>,
) {
    let db = setup.work.path().join(w.db);
    let args = params::args(w.workload, setup.num, a.threads, &db);
    let label = format!("[{}/{} {}]", i + 1, setup.planned.len(), w.workload);
    let threads = match w.workload {
        Workload::ReadRandom => format!("{} threads, ", a.threads),
        _ => String::new(),
    };
    let doing = if w.fill_only {
        "filling the database readrandom/overwrite need"
    } else {
        "running"
    };
    say!("{label} {threads}{doing}");
    let line = iolab_runner::progress::ProgressLine::new(show);
    line.set_prefix(label);
    // db_bench runs by count: each thread does --num operations, so the time left is the
    // operations left at the rate of the last second.
    let per_thread = match w.workload {
        Workload::ReadRandom => a.threads.max(1) as u64,
        _ => 1,
    };
    let ops = setup.num * per_thread;
    let disk = setup.disk.as_ref().map(|d| d.0.as_str());
    let mut device = DiskRates::new(disk);
    let result = iolab_kv::run_db_bench(
        &setup.bin,
        &args,
        disk,
        iolab_runner::signal::stop_flag(),
        |el: Duration, rate: f64, done: u64| {
            if rate > 0.0 {
                let left = ops.saturating_sub(done) as f64 / rate;
                line.set_plan(Some(el + Duration::from_secs_f64(left)));
            }
            let text = format!(
                "{} {} ops/s{}",
                duration(el.as_secs_f64()),
                compact(rate),
                device.figures()
            );
            line.draw(text, el);
        },
    );
    line.clear();
    (args, db, result)
}

pub fn run(a: &KvArgs) -> Result<ExitCode, CliError> {
    let setup = configure(a)?;
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    iolab_sysinfo::check_database(&db_path, &[]).map_err(CliError::bad_input)?;
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    open_files_line(setup.num);
    let work = setup.work.path();
    let fs = filesystem_of(work);
    crate::cmd_doctor::warn_before_measuring();
    let run_id = store
        .begin_run("kv", &crate::cmd_review::command_line())
        .map_err(CliError::failed)?;
    store
        .set_run_meta(run_id, &run_meta(a, &setup, &fs))
        .map_err(CliError::failed)?;
    iolab_runner::signal::install();
    say!(
        "iolab: db_bench {} in {} ({}{}): {} keys, {} of data; saving as run {run_id} in {}",
        setup.version,
        work.display(),
        fs.as_deref().unwrap_or("?"),
        setup
            .disk
            .as_ref()
            .map_or(String::new(), |d| format!(" on {}", d.0)),
        setup.num,
        bytes_decimal(plan::data_bytes(setup.num) as f64),
        db_path.display()
    );
    if let Some(note) = cache_note(setup.num) {
        say!("iolab: note: {note}");
    }
    let show = !a.quiet;
    let mut failure = None;
    for (i, w) in setup.planned.iter().enumerate() {
        // The drive's health log read around each workload, and sampled while it runs.
        let watch = setup.disk.as_ref().map(|d| {
            iolab_runner::health::HealthWatch::of_disk(&d.1, Some(iolab_runner::run::HEALTH_EVERY))
        });
        let (args, db, result) = run_workload(a, &setup, (i, w), show);
        let health = watch.map(|w| w.finish()).unwrap_or_else(|| {
            vec![iolab_results::DriveHealth::none(
                &work.display().to_string(),
                format!("{} is on no block device", work.display()),
            )]
        });
        match result {
            Ok(r) => {
                let mut job = app_job(w, &r, &args, &db, &setup);
                job.health = health;
                if !a.format.json() {
                    outln!("{}", summary_line(w, &r, &job));
                }
                store
                    .add_app_job(run_id, "kv", job)
                    .map_err(CliError::failed)?;
            }
            Err(e) => {
                failure = Some((w.workload, e));
                break;
            }
        }
        if w.remove_after {
            // Free the space before the next database is made.
            let _ = std::fs::remove_dir_all(&db);
        }
    }
    finish(a, &mut store, run_id, &db_path, failure)
}

/// Records how the run ended, prints the table (or JSON) of what it measured, and the exit.
fn finish(
    a: &KvArgs,
    store: &mut Store,
    run_id: i64,
    db_path: &Path,
    failure: Option<(Workload, iolab_kv::KvError)>,
) -> Result<ExitCode, CliError> {
    let interrupted = iolab_runner::signal::received().is_some();
    let status = match (&failure, interrupted) {
        (_, true) => RunStatus::Interrupted,
        (Some(_), false) => RunStatus::Failed,
        (None, false) => RunStatus::Ok,
    };
    store.finish_run(run_id, status).map_err(CliError::failed)?;
    let detail = store.run(run_id).map_err(CliError::failed)?;
    if a.format.json() {
        outln!(
            "{}",
            serde_json::to_string_pretty(&detail.to_json()).unwrap_or_default()
        );
    } else if !detail.jobs.is_empty() {
        outln!();
        out!("{}", workloads_table(&detail.jobs));
        for line in iolab_results::record_lines(&detail.jobs) {
            outln!("{line}");
        }
    }
    say!("iolab: saved as run {run_id} in {}", db_path.display());
    if interrupted {
        say!("iolab: interrupted: the workloads that finished are saved");
        return Ok(ExitCode::from(exit::interrupted()));
    }
    if let Some((w, e)) = failure {
        return Err(CliError::failed(anyhow!(
            "{w}: {e}\n(the workloads before it are saved; run {run_id} is marked failed)"
        )));
    }
    Ok(ExitCode::SUCCESS)
}
