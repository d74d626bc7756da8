//! `iolab import FILE|-`: a run from elsewhere into the results database — fio's own JSON
//! output (`--output-format=json` or `json+`), or a run exported by `iolab export --format
//! json` (from this or another machine). Imported runs are listed, shown, compared and drawn
//! like any other.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use iolab_store::Store;

use crate::exit::CliError;

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    fio --output-format=json job.fio > fio.json && iolab import fio.json\n  \
    iolab export 12 | iolab import --db other.db -")]
pub struct ImportArgs {
    /// fio's JSON output or an iolab export (`-` for stdin).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Results database (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// Largest JSON iolab imports: fio's own output is kilobytes to a few megabytes per job, and
/// a parsed document takes about [`PARSE_FACTOR`] times its text in memory (a 198 MB file
/// peaked at 2.7 GB).
const MAX_IMPORT_BYTES: u64 = 64 << 20;
const PARSE_FACTOR: u64 = 16;

/// The most bytes this import may read: [`MAX_IMPORT_BYTES`], less where memory (or
/// `ulimit -v`) leaves less room for parsing.
fn import_cap() -> u64 {
    let room = iolab_sysinfo::host::memory_room().map_or(u64::MAX, |r| r.0);
    let room = iolab_sysinfo::host::address_space_room().map_or(room, |a| room.min(a));
    MAX_IMPORT_BYTES.min(room / 2 / PARSE_FACTOR)
}

/// The JSON text of `file` (stdin for `-`): a regular file or a pipe, of at most
/// [`import_cap`] bytes, refused beyond it before anything is parsed.
fn read_input(file: &PathBuf) -> Result<String, CliError> {
    let cap = import_cap();
    let too_big = |n: String| {
        CliError::bad_input(anyhow::anyhow!(
            "{}: {n} is more than iolab imports ({} MiB: parsing takes about {PARSE_FACTOR}x \
             the text in memory)",
            file.display(),
            cap >> 20
        ))
    };
    let mut bytes = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .take(cap + 1)
            .read_to_end(&mut bytes)
            .context("reading stdin")
            .map_err(CliError::bad_input)?;
    } else {
        let meta = std::fs::metadata(file)
            .with_context(|| format!("{}", file.display()))
            .map_err(CliError::bad_input)?;
        if !meta.is_file() {
            let e = anyhow::anyhow!("{}: not a regular file", file.display());
            return Err(CliError::bad_input(e));
        }
        if meta.len() > cap {
            return Err(too_big(format!("{} MiB", meta.len() >> 20)));
        }
        std::fs::File::open(file)
            .and_then(|f| f.take(cap + 1).read_to_end(&mut bytes))
            .with_context(|| format!("{}", file.display()))
            .map_err(CliError::bad_input)?;
    }
    if bytes.len() as u64 > cap {
        return Err(too_big("the input".into()));
    }
    String::from_utf8(bytes).map_err(|e| {
        CliError::bad_input(anyhow::anyhow!("{}: not UTF-8 JSON: {e}", file.display()))
    })
}

pub fn run(a: &ImportArgs) -> Result<ExitCode, CliError> {
    let text = read_input(&a.file)?;
    let name = a.file.display().to_string();
    let records = iolab_fio::import::import(&text)
        .with_context(|| name.clone())
        .map_err(CliError::bad_input)?;
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    iolab_sysinfo::check_database(&db_path, &[]).map_err(CliError::bad_input)?;
    let mut store = crate::store_open::open(&db_path).map_err(CliError::bad_input)?;
    for mut record in records {
        if record.kind == "fio" {
            record.command = format!("iolab import {name} ({})", record.iolab_version);
        }
        let id = store.insert_run(&record).map_err(CliError::failed)?;
        outln!(
            "imported run {id} ({}, {}, jobs: {}) from {name} into {}",
            record.kind,
            record.iolab_version,
            record.jobs.len(),
            db_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
