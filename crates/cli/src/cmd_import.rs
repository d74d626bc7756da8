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

/// The JSON text of `file` (stdin for `-`); at most 1 GiB, and a regular file or a pipe.
fn read_input(file: &PathBuf) -> Result<String, CliError> {
    const MAX: u64 = 1 << 30;
    let mut text = String::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX)
            .read_to_string(&mut text)
            .context("reading stdin")
            .map_err(CliError::bad_input)?;
        return Ok(text);
    }
    let meta = std::fs::metadata(file)
        .with_context(|| format!("{}", file.display()))
        .map_err(CliError::bad_input)?;
    if !meta.is_file() {
        let e = anyhow::anyhow!("{}: not a regular file", file.display());
        return Err(CliError::bad_input(e));
    }
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX).read_to_string(&mut text))
        .with_context(|| format!("{}", file.display()))
        .map_err(CliError::bad_input)?;
    Ok(text)
}

pub fn run(a: &ImportArgs) -> Result<ExitCode, CliError> {
    let text = read_input(&a.file)?;
    let name = a.file.display().to_string();
    let records = iolab_fio::import::import(&text)
        .with_context(|| name.clone())
        .map_err(CliError::bad_input)?;
    let db_path = a.db.clone().unwrap_or_else(Store::default_path);
    iolab_sysinfo::check_database(&db_path, &[]).map_err(CliError::bad_input)?;
    let mut store = Store::open(&db_path).map_err(CliError::bad_input)?;
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
