//! `iolab completions SHELL` and `iolab man`: shell completions and a man page, generated from
//! the same clap definitions as `--help`, so they never drift from it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use clap_complete::Shell;

use crate::exit::CliError;

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    iolab completions bash > /etc/bash_completion.d/iolab\n  \
    iolab completions zsh > \"${fpath[1]}/_iolab\"\n  \
    iolab completions fish > ~/.config/fish/completions/iolab.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Args, Debug)]
#[command(after_help = "Example:\n  iolab man > /usr/local/share/man/man1/iolab.1 && man iolab")]
pub struct ManArgs {}

/// The command line as completions and the man page describe it: `iolab run` with every
/// job option and run option of the option tables (its own parser reads them; clap only
/// describes them here), values listed where they are a fixed list.
fn described() -> clap::Command {
    crate::flags::command().mut_subcommand("run", |run| {
        let run = run.mut_arg("args", |a| a.hide(true));
        let job = iolab_fio::options::all().map(|o| (o.name, o.kind.label(), o.help));
        let own = iolab_fio::args::RUN_OPTIONS
            .iter()
            .filter(|o| !matches!(o.set, iolab_fio::args::RunSetter::Refused(_)))
            .map(|o| (o.name, o.value, o.help));
        job.chain(own).fold(run, |run, (name, value, help)| {
            let mut arg = clap::Arg::new(name)
                .long(name)
                .help(help.split(". ").next().unwrap_or(help).to_string())
                .long_help(help.to_string())
                .value_name(if value.is_empty() { "1|0" } else { value })
                .num_args(0..=1)
                .require_equals(true);
            if let Some(values) = iolab_fio::options::choices(name) {
                arg = arg.value_parser(clap::builder::PossibleValuesParser::new(values));
            }
            run.arg(arg)
        })
    })
}

pub fn completions(a: &CompletionsArgs) -> Result<ExitCode, CliError> {
    let mut cmd = described();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "iolab", &mut out);
    emit(&out)
}

pub fn man(_: &ManArgs) -> Result<ExitCode, CliError> {
    let mut out = Vec::new();
    clap_mangen::Man::new(described())
        .render(&mut out)
        .context("rendering the man page")
        .map_err(CliError::failed)?;
    // Each command's own options, as a section of the one page.
    for sub in described().get_subcommands() {
        out.extend(command_section(sub).into_bytes());
    }
    emit(&out)
}

/// roff text: backslashes and a leading dot or quote made literal, hyphens kept as hyphens.
fn roff(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    match s.chars().next() {
        Some('.') | Some('\'') => format!("\\&{s}"),
        _ => s,
    }
}

/// `.SH "IOLAB RUN"` with the command's summary, then `.TP` per option.
fn command_section(c: &clap::Command) -> String {
    let mut s = format!(".SH \"IOLAB {}\"\n", c.get_name().to_uppercase());
    if let Some(about) = c.get_about() {
        s.push_str(&format!("{}\n", roff(&about.to_string())));
    }
    for arg in c.get_arguments().filter(|a| !a.is_hide_set()) {
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(l), _) => format!("\\-\\-{}", roff(l)),
            (None, Some(c)) => format!("\\-{c}"),
            (None, None) => roff(&arg.get_id().to_string().to_uppercase()),
        };
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        s.push_str(&format!(".TP\n\\fB{name}\\fR\n{}\n", roff(&help)));
    }
    s
}

/// Writes to stdout; a reader that went away (`| head`) ends it quietly.
fn emit(bytes: &[u8]) -> Result<ExitCode, CliError> {
    match std::io::stdout().lock().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::failed(anyhow::anyhow!("writing: {e}")))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}
