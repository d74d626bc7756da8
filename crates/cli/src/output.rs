//! Where results go: stdout, or the file named by --output. A reader that goes away (`| head`)
//! does not fail a run: what it would have printed is dropped, the run goes on and is saved.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::exit::CliError;

/// `--output-format` of the results commands, as fio spells it.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Tables, as the terminal shows them
    #[default]
    Normal,
    /// One JSON document on standard output and nothing else (messages go to stderr)
    Json,
}

/// The one way every results command is asked for machine output.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FormatArg {
    /// normal (tables) or json (one JSON document on stdout, nothing else)
    #[arg(long = "output-format", value_enum, default_value = "normal")]
    pub output_format: Format,
    /// The same as --output-format=json (kept for scripts written for it)
    #[arg(long, hide = true)]
    pub json: bool,
}

impl FormatArg {
    pub fn json(&self) -> bool {
        self.json || self.output_format == Format::Json
    }
}

/// `--output-format` of the commands that list runs or jobs (`history`, `compare`): fio's
/// two and CSV, a header and one row per job for a spreadsheet.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TableFormat {
    /// Tables, as the terminal shows them
    #[default]
    Normal,
    /// One JSON document on standard output and nothing else (messages go to stderr)
    Json,
    /// A header, then one row per job and direction, figures as columns
    Csv,
}

/// [`FormatArg`] with CSV.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TableFormatArg {
    /// normal (tables), json (one JSON document on stdout) or csv (a header and a row per
    /// job and direction, figures as columns)
    #[arg(long = "output-format", value_enum, default_value = "normal")]
    pub output_format: TableFormat,
    /// The same as --output-format=json (kept for scripts written for it)
    #[arg(long, hide = true)]
    pub json: bool,
}

impl TableFormatArg {
    pub fn json(&self) -> bool {
        self.json || self.output_format == TableFormat::Json
    }

    pub fn csv(&self) -> bool {
        !self.json && self.output_format == TableFormat::Csv
    }
}

/// Standard output, or the `--output` file opened through the guard: decided on the open
/// descriptor, never one of `protected` (the targets, the results database) whatever the
/// path has been swapped for since it was checked.
pub fn open(path: Option<&Path>, protected: &[&Path]) -> Result<Box<dyn Write>, CliError> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::new(
            iolab_sysinfo::open_output(p, "--output", protected).map_err(CliError::bad_input)?,
        )),
        None => Box::new(Quiet::new(crate::escape::Escaping::new(
            io::stdout().lock(),
            false,
        ))),
    })
}

/// [`open`], then registers `protected` and the output itself with the guard for the rest
/// of the process: every file opened later (exec's output, logs, dumps) is checked against
/// them as the up-front check was.
pub fn open_and_protect(
    path: Option<&Path>,
    protected: &[&Path],
) -> Result<Box<dyn Write>, CliError> {
    let out = open(path, protected)?;
    iolab_sysinfo::guard::protect(protected);
    iolab_sysinfo::guard::protect(path.as_slice());
    Ok(out)
}

/// A log file (`write_lat_log` and friends) opened through the guard, as [`open`] does.
pub fn open_log(path: &Path, protected: &[&Path]) -> io::Result<File> {
    iolab_sysinfo::open_output(path, "log file", protected).map_err(io::Error::other)
}

/// fio's `write_iolog`, which fio appends to: a second run adds its log after the first's.
pub fn open_iolog(path: &Path, protected: &[&Path]) -> io::Result<File> {
    iolab_sysinfo::open_output_appending(path, "write_iolog", protected).map_err(io::Error::other)
}

/// The first failure to write standard output other than a closed pipe, if any.
static STDOUT_FAILED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Keeps `r`'s failure, unless the reader went away (`| head`): the command goes on (a run
/// is still saved) and fails at its end ([`stdout_failure`]).
pub fn stdout_result(r: io::Result<()>) {
    if let Err(e) = r {
        if e.kind() != io::ErrorKind::BrokenPipe {
            let _ = STDOUT_FAILED.set(e.to_string());
        }
    }
}

/// Why writing standard output failed, if it did.
pub fn stdout_failure() -> Option<&'static str> {
    STDOUT_FAILED.get().map(String::as_str)
}

/// A writer for which a closed pipe is the end of the output, not an error.
pub struct Quiet<W: Write> {
    inner: W,
    gone: bool,
}

impl<W: Write> Quiet<W> {
    pub fn new(inner: W) -> Quiet<W> {
        Quiet { inner, gone: false }
    }

    fn guard(&mut self, r: io::Result<usize>, len: usize) -> io::Result<usize> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.gone = true;
                Ok(len)
            }
            r => r,
        }
    }
}

impl<W: Write> Write for Quiet<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.gone {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.guard(r, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.gone {
            return Ok(());
        }
        let r = self.inner.flush().map(|_| 0);
        self.guard(r, 0).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_swallows_the_rest_other_errors_stay() {
        let mut q = Quiet::new(Closed);
        writeln!(q, "lost").unwrap();
        q.flush().unwrap();
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::StorageFull.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        assert!(Quiet::new(Full).write(b"x").is_err());
    }
}
