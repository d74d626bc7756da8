//! fio's dialect, for iolab: the option table (one entry per fio option iolab understands),
//! fio's units, the `--key=value` command line, job files, and fio's JSON output format.
//!
//! This crate translates into the job model ([`iolab_job::JobSpec`]), out of the measured
//! results (fio's JSON, normal output and logs) and, for `iolab import`, fio's own JSON back
//! into results records; nothing else in iolab knows fio's spelling.

pub mod args;
pub mod arith;
pub mod blktrace;
mod blktrace_merge;
pub mod client_json;
pub mod error;
pub mod import;
pub mod iolog;
pub mod jobfile;
pub mod json;
mod json_repeats;
mod json_split;
pub mod logs;
mod logs_fz;
pub mod normal;
pub mod options;
pub mod terse;
pub mod units;

pub use args::{parse_command_line, parse_command_line_with, CommandLine, OutputFormat};
pub use error::FioError;
pub use options::{JobDraft, OPTIONS};
