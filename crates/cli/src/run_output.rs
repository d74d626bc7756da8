//! What a finished run writes, shared by `iolab run`, its load curve and a run over many
//! hosts: the command as stored, how the run ended, where it was saved, its I/O logs and its
//! results in every output format asked for. (Kept apart so none of the three imports
//! another.)

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use iolab_fio::json::JsonContext;
use iolab_fio::normal::job_line;
use iolab_fio::OutputFormat;
use iolab_store::RunStatus;

use crate::exit::CliError;
use crate::output;

/// The command as a shell would take it back (arguments with blanks or quotes quoted).
pub(crate) fn command_line(args: &[String]) -> String {
    let mut s = String::from("iolab run");
    for a in args {
        s.push(' ');
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"$\\".contains(c)) {
            s.push('\'');
            s.push_str(&a.replace('\'', "'\\''"));
            s.push('\'');
        } else {
            s.push_str(a);
        }
    }
    s
}

/// Says where the run was saved, or why it was not (once: the exit status says it again).
pub(crate) fn say_saved(saved: &anyhow::Result<()>, run_id: i64, db_path: &Path) {
    match saved {
        Ok(()) => say!("iolab: saved as run {run_id} in {}", db_path.display()),
        Err(e) => say!(
            "iolab: error: the results were not saved in {}: {}",
            db_path.display(),
            crate::exit::one_line(e)
        ),
    }
}

/// How a run ended: failed when a job failed, else interrupted, else ok.
pub(crate) fn status_of(outcome: &iolab_runner::RunOutcome) -> RunStatus {
    if outcome.first_error().is_some() {
        RunStatus::Failed
    } else if outcome.interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Ok
    }
}

/// The I/O logs the jobs asked for (`write_lat_log` and friends), in fio's format.
pub(crate) fn write_logs(
    outcome: &iolab_runner::RunOutcome,
    protected: &[&Path],
) -> Result<(), CliError> {
    let mut logs = iolab_fio::logs::write_logs(outcome, |p| output::open_log(p, protected))
        .context("writing I/O logs")
        .map_err(CliError::failed)?;
    logs.extend(
        iolab_fio::iolog::write_traces(outcome, |p| output::open_iolog(p, protected))
            .context("writing iologs")
            .map_err(CliError::failed)?,
    );
    if let Some(first) = logs.first() {
        say!(
            "iolab: wrote {} log file(s), e.g. {}",
            logs.len(),
            first.display()
        );
    }
    Ok(())
}

/// Each format `cl` asks for: the job lines (when `head`: the first print of a run) then
/// `normal` for fio's normal output, `json`'s document for json and json+. `iolab run` and a
/// multi-host run differ only in those two.
pub(crate) fn write_formats(
    out: &mut dyn Write,
    cl: &iolab_fio::CommandLine,
    groups: &[u32],
    head: bool,
    normal: impl Fn(&mut dyn Write) -> std::io::Result<()>,
    json: impl Fn(&JsonContext) -> serde_json::Value,
) -> Result<(), CliError> {
    for f in &cl.run.formats {
        match f {
            OutputFormat::Normal => {
                // fio prints these as jobs start; here they head the report, so a run that
                // fails to start leaves standard output empty.
                // Then fio's version line and "Starting N processes" (iolab runs threads,
                // and says so), and the blank line fio leaves when its ETA line ends.
                let copies: u32 = cl.jobs.iter().map(|j| j.numjobs).sum();
                let heads = if head { cl.jobs.len() } else { 0 };
                cl.jobs
                    .iter()
                    .take(heads)
                    .zip(groups)
                    .try_for_each(|(spec, g)| {
                        writeln!(out, "{}", job_line(spec, *g))?;
                        // fio's line for a job's further copies (numjobs).
                        match spec.numjobs > 1 {
                            true => writeln!(out, "..."),
                            false => Ok(()),
                        }
                    })
                    .and_then(|_| {
                        let s = if copies == 1 { "" } else { "s" };
                        let v = env!("CARGO_PKG_VERSION");
                        match head {
                            true => writeln!(out, "iolab-{v}\nStarting {copies} thread{s}\n"),
                            false => Ok(()),
                        }
                    })
                    .and_then(|_| normal(&mut *out))
            }
            OutputFormat::Json | OutputFormat::JsonPlus => {
                let ctx = JsonContext {
                    global_options: &cl.global_options,
                    job_options: &cl.job_options,
                    plus: *f == OutputFormat::JsonPlus,
                };
                serde_json::to_writer_pretty(&mut *out, &json(&ctx))
                    .map_err(std::io::Error::from)
                    .and_then(|_| writeln!(out))
            }
            OutputFormat::Terse => {
                let ctx = JsonContext {
                    global_options: &cl.global_options,
                    job_options: &cl.job_options,
                    plus: false,
                };
                write!(out, "{}", iolab_fio::terse::terse_v3(&json(&ctx)))
            }
        }
        .context("writing results")
        .map_err(CliError::failed)?;
    }
    Ok(())
}
