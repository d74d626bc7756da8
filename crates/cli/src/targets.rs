//! What every subcommand does before its first I/O, in an order that writes nothing until
//! everything has been checked: the jobs against their targets (with the consent the user
//! gave for each), every output path against the guard, the results database opened; then
//! the files the jobs need are laid out (interruptibly, undone when they do not finish).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use iolab_job::JobSpec;
use iolab_runner::prepare::{lay_out_all, layouts_needed};
use iolab_runner::{prepare, PreparedJob};
use iolab_sysinfo::{check_database, check_output, Consent};

use crate::exit::CliError;

/// A scratch file in a fresh temporary directory (`PREFIX*` under $TMPDIR): its path, and the
/// directory, removed with what is in it when the guard is dropped.
pub fn scratch_file(prefix: &str) -> Result<(PathBuf, tempfile::TempDir), CliError> {
    let dir =
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(|e| match std::env::var_os("TMPDIR") {
                // The user's setting is at fault: bad input, and nothing was written.
                Some(t) => CliError::bad_input(anyhow!(
                    "TMPDIR={}: cannot make a scratch directory there: {e}",
                    Path::new(&t).display()
                )),
                None => CliError::failed(anyhow!("creating a scratch directory: {e}")),
            })?;
    Ok((dir.path().join("scratch"), dir))
}

/// The consent `--allow-destroy` gives in `iolab run` and the main job: every target the
/// jobs name on this command line.
pub fn consent_for_jobs(specs: &[JobSpec], given: bool) -> Consent {
    Consent::granting("--allow-destroy", given, written_paths(specs))
}

/// Every path the jobs write: their files, and e4defrag's donors (which get the job file's
/// old blocks: written, as a target is).
fn written_paths(specs: &[JobSpec]) -> impl Iterator<Item = &Path> {
    let donors = specs
        .iter()
        .filter(|s| s.engine.kind == iolab_engine::EngineKind::E4defrag)
        .filter_map(|s| s.engine.options.defrag.donor.as_ref());
    specs
        .iter()
        .flat_map(|s| s.files())
        .chain(donors)
        .map(PathBuf::as_path)
}

/// Checks every job and every output (`(option, path)`, e.g. `("--output", file)`); writes
/// nothing. Outputs may not be a target or the results database `db`.
pub fn check_all(
    specs: &[JobSpec],
    consent: &Consent,
    outputs: &[(&str, &Path)],
    db: Option<&Path>,
) -> Result<Vec<PreparedJob>, CliError> {
    let jobs = prepare(specs, consent)?;
    let targets: Vec<&Path> = written_paths(specs).collect();
    let protected: Vec<&Path> = targets.iter().copied().chain(db).collect();
    for (option, path) in outputs {
        check_output(path, option, &protected).map_err(CliError::bad_input)?;
    }
    if let Some(db) = db {
        check_database(db, &targets).map_err(CliError::bad_input)?;
    }
    Ok(jobs)
}

/// What no output may overwrite: every target, as named and as checked (resolved), and the
/// results database.
pub fn protected_paths(jobs: &[PreparedJob], db: Option<&Path>) -> Vec<PathBuf> {
    jobs.iter()
        .flat_map(|j| {
            let named = j.files().map(|(f, _)| f.path.clone());
            named.chain(j.pins.iter().map(|p| p.resolved.clone()))
        })
        .chain(db.map(Path::to_path_buf))
        .collect()
}

/// Lays out the files the jobs need, saying so on stderr.
pub fn lay_out(jobs: &mut [PreparedJob]) -> Result<(), CliError> {
    let layouts = layouts_needed(jobs);
    lay_out_all(&layouts, jobs, |l| {
        say!(
            "iolab: laying out {} ({})",
            l.path.display(),
            iolab_report::format::bytes_binary((l.to_bytes - l.from_bytes) as f64)
        )
    })?;
    Ok(())
}

/// fio's `--readonly`: refuses the first job that would write, trim, delete or truncate,
/// in fio's words (fio 3.33 still runs filedelete under --readonly, deleting the files).
pub fn refuse_writers(specs: &[JobSpec]) -> anyhow::Result<()> {
    use iolab_engine::EngineKind;
    for s in specs {
        let what = match s.engine.kind {
            EngineKind::Filedelete => Some("deletes its files (ioengine=filedelete)".to_string()),
            EngineKind::Dirdelete => {
                Some("removes its directories (ioengine=dirdelete)".to_string())
            }
            EngineKind::Ftruncate => Some("truncates its files (ioengine=ftruncate)".to_string()),
            EngineKind::Exec => Some(
                "runs a program (ioengine=exec), which iolab cannot keep from writing".to_string(),
            ),
            EngineKind::Filecreate => Some("creates its files (ioengine=filecreate)".to_string()),
            EngineKind::Dircreate => {
                Some("creates its directories (ioengine=dircreate)".to_string())
            }
            EngineKind::Falloc => Some("allocates in its files (ioengine=falloc)".to_string()),
            EngineKind::E4defrag => Some("moves its files' blocks (ioengine=e4defrag)".to_string()),
            _ if s.trims() => Some("trims".to_string()),
            _ if s.writes() => Some("writes".to_string()),
            _ if s.files.unlink => Some("deletes its files when done (unlink)".to_string()),
            // A program iolab starts can write anything: --readonly cannot hold it to that.
            _ if s.control.exec_prerun.is_some() => Some(
                "runs a program before its I/O (exec_prerun), which iolab cannot keep from \
                 writing"
                    .to_string(),
            ),
            _ if s.control.exec_postrun.is_some() => Some(
                "runs a program after its I/O (exec_postrun), which iolab cannot keep from \
                 writing"
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(what) = what {
            anyhow::bail!(
                "job <{}> {what}, but --readonly says no write, trim, delete or truncate \
                 (fio: has write or trim bit set, but fio is in read-only mode)",
                s.name
            );
        }
    }
    Ok(())
}

/// fio's `--readonly` before anything is written: a file that would have to be created or
/// extended is refused (fio: "refusing extend of file due to read-only").
pub fn refuse_layouts(jobs: &[PreparedJob]) -> anyhow::Result<()> {
    match layouts_needed(jobs).first() {
        Some(l) => anyhow::bail!(
            "{} would be laid out ({} written), but --readonly says no write (fio: refusing \
             extend of file due to read-only); create the file first or drop --readonly",
            l.path.display(),
            iolab_report::format::bytes_binary((l.to_bytes - l.from_bytes) as f64)
        ),
        None => Ok(()),
    }
}

/// `--output` and every log prefix, as the outputs [`check_all`] checks.
pub fn run_outputs<'a>(
    output: Option<&'a Path>,
    logs: &'a [PathBuf],
) -> Vec<(&'static str, &'a Path)> {
    output
        .map(|p| ("--output", p))
        .into_iter()
        .chain(logs.iter().map(|p| ("log file", p.as_path())))
        .collect()
}

/// A path given for a device that must exist and be a block device (`--floor-device`).
pub fn existing_block_device(option: &str, path: &Path) -> Result<(), CliError> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() => Ok(()),
        Ok(_) => Err(CliError::bad_input(anyhow!(
            "{option} {}: not a block device",
            path.display()
        ))),
        Err(e) => Err(CliError::bad_input(anyhow!(
            "{option} {}: {e}",
            path.display()
        ))),
    }
}
