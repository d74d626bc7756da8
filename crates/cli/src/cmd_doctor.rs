//! `iolab doctor [TARGET]`: the machine's settings that move storage figures, each with its
//! value here, what a benchmark wants (the SPDK blog's setup) and what to do. Changes nothing.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use iolab_results::MachineCheck;
use iolab_sysinfo::doctor;

use crate::exit::CliError;

#[derive(Args, Debug, Clone)]
pub struct DoctorArgs {
    /// A file or block device to check the disk of as well (scheduler, merges, polling,
    /// write-back throttling, model, firmware and format)
    pub target: Option<PathBuf>,
    #[command(flatten)]
    pub format: crate::output::FormatArg,
}

pub fn run(a: &DoctorArgs) -> Result<ExitCode, CliError> {
    // A target that is not there is bad input: checking the disk some ancestor directory
    // lives on instead would answer a question nobody asked.
    if let Some(t) = &a.target {
        std::fs::metadata(t)
            .map_err(|e| CliError::bad_input(anyhow::anyhow!("{}: {e}", t.display())))?;
    }
    let mut checks = doctor::machine();
    if let Some(t) = &a.target {
        checks.extend(doctor::device(t));
    }
    if a.format.json() {
        let v = serde_json::json!({ "checks": checks });
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    table(&checks);
    Ok(ExitCode::SUCCESS)
}

fn table(checks: &[MachineCheck]) {
    outln!("| check | value | wanted | verdict | what to do |");
    outln!("|---|---|---|---|---|");
    for c in checks {
        outln!(
            "| {} | {} | {} | {} | {} |",
            c.name,
            c.value,
            c.want,
            c.verdict.word(),
            c.advice
        );
    }
}

/// The one line a measuring command prints before it starts, when the machine distorts.
pub fn warn_before_measuring() {
    if let Some(line) = doctor::distortions(&doctor::machine()) {
        say!("{line}");
    }
}
