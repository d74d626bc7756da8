//! `iolab report RUN... -o report.html`: one self-contained HTML page with the reviews'
//! charts drawn from the results store, several runs overlaid.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use iolab_store::{Store, StoreError};
use iolab_sysinfo::check_output;

use crate::exit::CliError;

#[derive(Args, Debug)]
#[command(
    after_help = "Sections (each where its data is): a review's summary (KDiskMark's rows, QD1 \
    latency); runs (device, host, kernel, iolab, date, profile, clock, distortions); your own \
    jobs: their table, compare's verdicts (two runs or more) and charts (bars per job with \
    repeat intervals, by queue depth / numjobs / block size, over time, latency distribution); \
    QD1 engine tables; queue-depth sweep with the saturation point; transfer \
    size (linear/log switch); latency distribution on a nines axis, polling vs IRQ; \
    consistency; profiles; application load (iolab kv); the latency ladder.\n\n\
    Examples:\n  \
    iolab report 12 -o review.html          # one review\n  \
    iolab report 12 15 -o drives.html       # two drives overlaid on every chart\n  \
    iolab report 30 31 -o jobs.html         # two runs of a job file, with verdicts\n  \
    iolab review --quick --report r.html    # review, then its report"
)]
pub struct ReportArgs {
    /// Run ids, as `iolab history` lists them (reviews, kv runs)
    #[arg(required = true)]
    pub runs: Vec<i64>,
    /// The HTML file to write (`-` for stdout)
    #[arg(short = 'o', long, value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// A stored run to show as more columns of the QD1 tables (its 4 KiB QD1 random
    /// read/write jobs, named by engine): fio's JSON imported with `iolab import`, e.g. fio
    /// with SPDK's plugin; may be repeated
    #[arg(long = "with", value_name = "RUN")]
    pub with: Vec<i64>,
}

/// Where a report goes: standard output, or a file opened (and checked writable) through
/// the guard before any work starts.
pub enum ReportOut {
    Stdout,
    File(std::fs::File),
}

/// Opens the report's destination `out` (`-`: stdout) through the guard, never one of
/// `protected`, and checks it takes bytes (a zero-length write: `/dev/full` and a
/// read-only filesystem are refused here, not after the run), so that a command that takes
/// hours refuses a report it could not write before it starts. `option` names the flag.
pub fn open_report(out: &Path, option: &str, protected: &[&Path]) -> Result<ReportOut, CliError> {
    if out == Path::new("-") {
        return Ok(ReportOut::Stdout);
    }
    check_output(out, option, protected).map_err(CliError::bad_input)?;
    let mut f = iolab_sysinfo::open_output(out, option, protected).map_err(CliError::bad_input)?;
    std::io::Write::write(&mut f, &[])
        .map_err(|e| CliError::bad_input(anyhow::anyhow!("{option} {}: {e}", out.display())))?;
    Ok(ReportOut::File(f))
}

/// The HTML report of `runs` in `store`, with `with`'s imported QD1 columns.
fn build_report(store: &Store, runs: &[i64], with: &[i64]) -> Result<String, CliError> {
    let mut data = iolab_html::load(store, runs).map_err(|e| match e {
        StoreError::NoRun(_) => CliError::bad_input(e),
        e => CliError::failed(e),
    })?;
    if !with.is_empty() {
        let cells = crate::imported::qd1_columns(store, with)?;
        crate::imported::add_to_runs(&mut data, &cells);
    }
    Ok(iolab_html::build(&data))
}

/// Writes the report of `runs` to `out` as [`open_report`] opened it; its size in bytes.
pub fn write_report_to(
    store: &Store,
    runs: &[i64],
    with: &[i64],
    out: ReportOut,
    name: &Path,
) -> Result<usize, CliError> {
    let html = build_report(store, runs, with)?;
    match out {
        ReportOut::Stdout => out!("{html}"),
        ReportOut::File(mut f) => std::io::Write::write_all(&mut f, html.as_bytes())
            .with_context(|| format!("writing {}", name.display()))
            .map_err(CliError::failed)?,
    }
    Ok(html.len())
}

/// Writes the HTML report of `runs` to `out` (`-`: stdout), opened through the guard: never
/// one of `protected` (the database, a target), whatever `out` was swapped for since its
/// check. Returns its size in bytes.
pub fn write_report(
    store: &Store,
    runs: &[i64],
    with: &[i64],
    out: &Path,
    protected: &[&Path],
) -> Result<usize, CliError> {
    let dest = open_report(out, "-o", protected)?;
    write_report_to(store, runs, with, dest, out)
}

pub fn run(a: &ReportArgs) -> Result<ExitCode, CliError> {
    let path = a.db.clone().unwrap_or_else(Store::default_path);
    if a.output != Path::new("-") {
        check_output(&a.output, "-o", &[&path]).map_err(CliError::bad_input)?;
    }
    let store = crate::store_open::open_existing(&path).map_err(|e| match e {
        e if e.is_bad_input() => CliError::bad_input(e),
        e => CliError::failed(e),
    })?;
    let bytes = write_report(&store, &a.runs, &a.with, &a.output, &[&path])?;
    if a.output != Path::new("-") {
        say!(
            "iolab: wrote {} ({} KB): open it in a browser; nothing is fetched from the network",
            a.output.display(),
            bytes / 1024
        );
    }
    Ok(ExitCode::SUCCESS)
}
