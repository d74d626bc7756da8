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

pub fn completions(a: &CompletionsArgs) -> Result<ExitCode, CliError> {
    let mut cmd = crate::flags::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "iolab", &mut out);
    emit(&out)
}

pub fn man(_: &ManArgs) -> Result<ExitCode, CliError> {
    let mut out = Vec::new();
    clap_mangen::Man::new(crate::flags::command())
        .render(&mut out)
        .context("rendering the man page")
        .map_err(CliError::failed)?;
    // Each command's own options, as a section of the one page.
    for sub in crate::flags::command().get_subcommands() {
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
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
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
