//! The `iolab` binary: argument definitions and glue only. Each subcommand lives in its own
//! file; the libraries do the work. Exit status: 0 success, 1 a run that failed, 2 bad input
//! (nothing was written), 130 interrupted by a signal (partial results were printed).

/// A line on stderr; a closed stderr is not worth a panic (`iolab ... 2>&1 | head`).
macro_rules! say {
    ($($a:tt)*) => {{
        use std::io::Write as _;
        // One write per line: stderr is unbuffered, and `writeln!` would write each piece
        // apart, so lines from processes sharing it (MPI ranks, mpirun) could interleave.
        let mut line = format!($($a)*);
        line.push('\n');
        let _ = $crate::escape::Escaping::new(std::io::stderr(), true).write_all(line.as_bytes());
    }};
}

/// A line on stdout; a reader that went away (`| head`) ends the output quietly, any other
/// failure (`> /dev/full`) is kept and makes the command fail at its end.
macro_rules! outln {
    ($($a:tt)*) => {{
        use std::io::Write as _;
        let mut w = $crate::escape::Escaping::new(std::io::stdout(), false);
        $crate::output::stdout_result(writeln!(w, $($a)*).and_then(|_| w.flush()));
    }};
}

/// Text on stdout without a newline.
macro_rules! out {
    ($($a:tt)*) => {{
        use std::io::Write as _;
        let mut w = $crate::escape::Escaping::new(std::io::stdout(), false);
        $crate::output::stdout_result(write!(w, $($a)*).and_then(|_| w.flush()));
    }};
}

mod cmd_doctor;
mod cmd_import;
mod cmd_kv;
mod cmd_pts;
mod cmd_qd1;
mod cmd_report;
mod cmd_results;
mod cmd_review;
mod cmd_run;
mod cmd_shell;
mod cmd_spdk;
mod escape;
mod exit;
mod fio_help;
mod flags;
mod imported;
mod kv_table;
mod load_curve;
mod local_time;
mod multihost;
mod output;
mod results_csv;
mod run_output;
mod split_note;
mod store_open;
mod targets;
mod verdicts;

use std::process::ExitCode;

use clap::{FromArgMatches, Parser, Subcommand};

use exit::CliError;

#[derive(Parser)]
#[command(
    name = "iolab",
    version,
    about = "A storage performance lab: fio's options and JSON, a cheaper measurement core.",
    long_about = "A storage performance lab: fio's options and JSON, a cheaper measurement core.\n\n\
        With no command, iolab runs the main job: 4 KiB random read and write at queue depth 1 \
        through every I/O engine this machine supports, on a scratch file in a temporary \
        directory (or --target), printed as the SPDK blog's tables.",
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  iolab                                   # QD1 engine tables on a scratch file\n  \
        iolab --target /dev/zram0               # the same on a device (reads; writes need --allow-destroy)\n  \
        iolab run --name=qd1 --filename=/dev/zram0 --direct=1 --rw=randread --bs=4k \\\n      \
        --ioengine=io_uring --time_based --runtime=10 --ramp_time=2\n  \
        iolab run --help                        # every fio option iolab understands\n  \
        iolab review --quick                    # the reviews' whole methodology, ~2 minutes\n  \
        iolab kv --dir /mnt/ssd                 # RocksDB db_bench as the hosting review ran it\n  \
        iolab history                           # runs kept in the results database\n  \
        iolab show 12                           # one of them again\n  \
        iolab report 12 15 -o report.html       # charts of runs, overlaid, as one HTML page\n  \
        iolab import fio.json                   # fio's own JSON output, kept beside iolab's runs"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    qd1: cmd_qd1::Qd1Args,
}

#[derive(Subcommand)]
enum Command {
    /// Run jobs described with fio's options: iolab run --name=J --filename=F --rw=randread ...
    #[command(disable_help_flag = true)]
    Run {
        /// fio-style options (--key=value); see `iolab run --help`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The main job: QD1 4 KiB random read/write through every engine, as tables.
    Qd1(cmd_qd1::Qd1Args),
    /// The reviews' whole methodology on one target: iolab review [TARGET] --quick
    Review(cmd_review::ReviewArgs),
    /// RocksDB's db_bench with the hosting review's parameters: iolab kv [--dir DIR] [--num N]
    Kv(cmd_kv::KvArgs),
    /// SNIA's PTS, PTS-style: purge, precondition, rounds to steady state: iolab pts TARGET
    Pts(cmd_pts::PtsArgs),
    /// One HTML page with the reviews' charts of stored runs: iolab report RUN... -o FILE
    Report(cmd_report::ReportArgs),
    /// The runs kept in the results database, newest first.
    History(cmd_results::HistoryArgs),
    /// One stored run's results again: iolab show RUN.
    Show(cmd_results::ShowArgs),
    /// Runs side by side, runs as rows and jobs as columns: iolab compare RUN RUN...
    Compare(cmd_results::CompareArgs),
    /// One stored run as JSON or CSV: iolab export RUN --format csv.
    Export(cmd_results::ExportArgs),
    /// fio's JSON output or an iolab export into the results database: iolab import FILE|-
    Import(cmd_import::ImportArgs),
    /// The machine's settings that move figures, against the SPDK blog's setup: iolab doctor [TARGET]
    Doctor(cmd_doctor::DoctorArgs),
    /// NVMe controllers for SPDK's user-space driver: iolab spdk list|bind|unbind
    Spdk(cmd_spdk::SpdkArgs),
    /// Shell completions from the same definitions as --help: iolab completions bash|zsh|fish
    Completions(cmd_shell::CompletionsArgs),
    /// The man page, from the same definitions as --help: iolab man | man -l -
    Man(cmd_shell::ManArgs),
}

fn main() -> ExitCode {
    iolab_runner::signal::ignore_file_size_limit();
    let cli = match flags::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // Bad input is one line naming the problem; clap's usage hint would make it three.
            let text = e.render().to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut first = lines.next().unwrap_or_default().to_string();
            // "the following required arguments were not provided:" names them on the next line.
            if first.ends_with(':') {
                first = format!("{first} {}", lines.next().unwrap_or_default());
            }
            say!("iolab: {first} (see iolab --help)");
            return ExitCode::from(exit::BAD_INPUT);
        }
    };
    if let Err(e) = iolab_stats::clock::check_env() {
        say!("iolab: error: {e}");
        return ExitCode::from(exit::BAD_INPUT);
    }
    if let Err(e) = iolab_runner::run::check_watchdog_env() {
        say!("iolab: error: {e}");
        return ExitCode::from(exit::BAD_INPUT);
    }
    let result = match cli.command {
        Some(Command::Run { args }) => cmd_run::run(&args),
        Some(Command::Qd1(a)) => cmd_qd1::run(&a),
        Some(Command::Review(a)) => cmd_review::run(&a),
        Some(Command::Kv(a)) => cmd_kv::run(&a),
        Some(Command::Pts(a)) => cmd_pts::run(&a),
        Some(Command::Report(a)) => cmd_report::run(&a),
        Some(Command::History(a)) => cmd_results::history(&a),
        Some(Command::Show(a)) => cmd_results::show(&a),
        Some(Command::Compare(a)) => cmd_results::compare(&a),
        Some(Command::Export(a)) => cmd_results::export(&a),
        Some(Command::Import(a)) => cmd_import::run(&a),
        Some(Command::Doctor(a)) => cmd_doctor::run(&a),
        Some(Command::Spdk(a)) => cmd_spdk::run(&a),
        Some(Command::Completions(a)) => cmd_shell::completions(&a),
        Some(Command::Man(a)) => cmd_shell::man(&a),
        None => cmd_qd1::run(&cli.qd1),
    };
    match result {
        Ok(code) if code == ExitCode::SUCCESS => match output::stdout_failure() {
            Some(e) => {
                say!("iolab: error: writing to standard output: {e}");
                ExitCode::from(exit::RUN_FAILED)
            }
            None => code,
        },
        Ok(code) => code,
        Err(CliError { code, error }) => {
            // An empty error has been said by another process (an MPI rank) already.
            let line = exit::one_line(&error);
            if !line.is_empty() {
                say!("iolab: error: {line}");
            }
            ExitCode::from(code)
        }
    }
}
