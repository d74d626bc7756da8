//! Errors in fio-style input, each naming the option (and value) at fault.

use iolab_job::JobError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FioError {
    #[error("unknown option '{name}'{}", did_you_mean(.suggestion))]
    Unknown {
        name: String,
        suggestion: Option<&'static str>,
    },
    #[error("option '{0}' is not supported by iolab yet")]
    Unsupported(String),
    /// An option iolab does not take, and why.
    #[error("option '{name}' is not supported by iolab: {reason}")]
    Refused { name: String, reason: &'static str },
    #[error("option '{name}': bad value '{value}': {reason}")]
    BadValue {
        name: String,
        value: String,
        reason: String,
    },
    #[error("option '{0}' needs a value (--{0}=VALUE)")]
    MissingValue(String),
    #[error("{0}")]
    Job(#[from] JobError),
    #[error("{0}")]
    Usage(String),
    /// Any of the above, at a place in a job file (`FILE:LINE: ...`).
    #[error("{at}: {source}")]
    At { at: String, source: Box<FioError> },
}

fn did_you_mean(s: &Option<&'static str>) -> String {
    match s {
        Some(s) => format!(" (did you mean '{s}'?)"),
        None => String::new(),
    }
}
