//! Errors at the CLI edge, each carrying the exit status it maps to.

use iolab_runner::RunError;

/// Bad input: exit 2, nothing was written.
pub const BAD_INPUT: u8 = 2;
/// The run started but failed: exit 1.
pub const RUN_FAILED: u8 = 1;
/// Stopped by a signal: 128 + its number, as shells report it (130 for SIGINT, 143 for
/// SIGTERM).
pub fn interrupted() -> u8 {
    128 + iolab_runner::signal::received().unwrap_or(libc::SIGINT) as u8
}

pub struct CliError {
    pub code: u8,
    pub error: anyhow::Error,
}

impl CliError {
    pub fn bad_input(e: impl Into<anyhow::Error>) -> CliError {
        CliError {
            code: BAD_INPUT,
            error: e.into(),
        }
    }

    pub fn failed(e: impl Into<anyhow::Error>) -> CliError {
        CliError {
            code: RUN_FAILED,
            error: e.into(),
        }
    }
}

impl From<RunError> for CliError {
    fn from(e: RunError) -> CliError {
        CliError {
            code: if e.is_bad_input() {
                BAD_INPUT
            } else {
                RUN_FAILED
            },
            error: e.into(),
        }
    }
}
