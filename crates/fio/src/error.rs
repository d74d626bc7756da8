//! Errors in fio-style input, each naming the option (and value) at fault.

use iolab_job::JobError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FioError {
    #[error("unknown option '{}'{}", shown(.name), did_you_mean(.suggestion))]
    Unknown {
        name: String,
        suggestion: Option<&'static str>,
    },
    #[error("option '{0}' is not supported by iolab yet")]
    Unsupported(String),
    /// An option iolab does not take, and why.
    #[error("option '{name}' is not supported by iolab: {reason}")]
    Refused { name: String, reason: &'static str },
    #[error("option '{name}': bad value '{}': {}", shown(.value), shown_reason(.reason))]
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

/// Text from the input as an error quotes it: whole when short, else its start and end
/// around how much was left out, so a hostile 1 MB value is still a one-line message.
fn shown(s: &str) -> String {
    cut_middle(s, 160)
}

/// A reason is iolab's own words, but may quote the input (a replayed log's line): cut only
/// when very long.
fn shown_reason(s: &str) -> String {
    cut_middle(s, 600)
}

fn cut_middle(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let cut = |mut i: usize| {
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head = cut(max * 5 / 8);
    let tail = cut(s.len() - max / 4);
    format!("{}...({} bytes)...{}", &s[..head], tail - head, &s[tail..])
}

fn did_you_mean(s: &Option<&'static str>) -> String {
    match s {
        Some(s) => format!(" (did you mean '{s}'?)"),
        None => String::new(),
    }
}
