//! `iolab run`: jobs from fio-style options, run side by side, reported as fio does.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Context;
use iolab_fio::json::{to_json, JsonContext};
use iolab_fio::options::OPTIONS;
use iolab_fio::{parse_command_line, OutputFormat};
use iolab_runner::{run_jobs, signal, RunOptions};
use iolab_stats::Clock;

use crate::exit::{interrupted, CliError};
use crate::targets::prepare_all;

pub fn help() -> String {
    let mut s = String::from(
        "Run jobs described with fio's options.\n\n\
         Usage: iolab run [--GLOBAL=VALUE ...] --name=JOB --filename=PATH [--OPTION=VALUE ...] \
         [--name=JOB2 ...]\n\n\
         Options take fio's names, meanings and units (bs=4k is 4096 bytes, 1m, 1g; runtime=10 \
         is seconds, 500ms, 20m, 1h). Boolean options may be given bare (--direct is --direct=1). \
         Each --name starts a new job; options before the first --name apply to all jobs; jobs \
         run side by side.\n\nJob options:\n",
    );
    for o in OPTIONS {
        let alias = o.alias.map(|a| format!(" (or {a})")).unwrap_or_default();
        s.push_str(&format!(
            "  --{}={}{}\n      {}\n",
            o.name,
            o.kind.label().to_uppercase(),
            alias,
            o.help
        ));
    }
    s.push_str(
        "\nRun options:\n  --output-format=normal|json[,..]\n      normal: fio's report layout; \
         json: fio's JSON schema (extras under \"iolab\"). A comma list prints both.\n  \
         --output=FILE\n      Write results to FILE instead of standard output.\n  \
         --allow-destroy\n      Allow writes to a block device. Mounted devices, devices in use \
         and the disk holding / are refused regardless.\n\nExit status: 0 ok, 1 run failed, 2 bad \
         input (nothing written), 130 interrupted (partial results printed).\n",
    );
    s
}

pub fn run(args: &[String]) -> Result<ExitCode, CliError> {
    if args.iter().any(|a| a == "--help" || a == "-h") || args.is_empty() {
        print!("{}", help());
        return Ok(ExitCode::SUCCESS);
    }
    let cl = parse_command_line(args).map_err(CliError::bad_input)?;
    let (jobs, mut out) = prepare_all(&cl.jobs, cl.allow_destroy, cl.output.as_deref())?;
    signal::install();
    let clock = Clock::calibrate(std::time::Duration::from_millis(20));
    let progress = std::io::stderr().is_terminal();
    let outcome = run_jobs(&jobs, &RunOptions { clock, progress })?;
    for f in &cl.formats {
        match f {
            OutputFormat::Normal => iolab_report::write_normal(&outcome, &mut out),
            OutputFormat::Json => {
                let ctx = JsonContext {
                    global_options: &cl.global_options,
                    job_options: &cl.job_options,
                };
                serde_json::to_writer_pretty(&mut out, &to_json(&outcome, &ctx))
                    .map_err(std::io::Error::from)
                    .and_then(|_| writeln!(out))
            }
        }
        .context("writing results")
        .map_err(CliError::failed)?;
    }
    out.flush()
        .context("writing results")
        .map_err(CliError::failed)?;
    if outcome.interrupted {
        eprintln!("iolab: interrupted: the results above are partial");
        return Ok(ExitCode::from(interrupted()));
    }
    Ok(ExitCode::SUCCESS)
}
