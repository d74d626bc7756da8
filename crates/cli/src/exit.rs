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
            code: if matches!(e, RunError::Interrupted) {
                interrupted()
            } else if e.is_bad_input() {
                BAD_INPUT
            } else {
                RUN_FAILED
            },
            error: e.into(),
        }
    }
}

/// The error and its causes on one line, each said once: a layer whose message already
/// quotes its cause (`job 'x': refusing ...` over `refusing ...`) does not repeat it.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        let text = text.trim();
        if text.is_empty() || line.contains(text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(text);
    }
    shortened(&line.replace('\n', " "))
}

/// Most bytes of an error line: what it echoes of the input (a megabyte of junk given as an
/// option name, 200,000 parentheses) is cut from its middle, with how much was, so the line
/// keeps its start (what was wrong) and its end (why).
const MAX_LINE: usize = 1000;

fn shortened(line: &str) -> String {
    if line.len() <= MAX_LINE {
        return line.to_string();
    }
    let mut head = MAX_LINE * 7 / 10;
    while !line.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = line.len() - MAX_LINE / 5;
    while !line.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}... ({} more bytes) ...{}",
        &line[..head],
        tail - head,
        &line[tail..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_already_quoted_are_not_repeated() {
        let inner = std::io::Error::other("disk full");
        let e = anyhow::Error::new(inner)
            .context("results database /x: disk full")
            .context("saving run 3");
        assert_eq!(one_line(&e), "saving run 3: results database /x: disk full");
        let e = anyhow::anyhow!("line one\nline two");
        assert_eq!(one_line(&e), "line one line two");
    }

    #[test]
    fn a_long_line_keeps_its_start_and_its_end() {
        let line = format!("bad value '{}': the reason", "(".repeat(400_000));
        let short = shortened(&line);
        assert!(short.len() < MAX_LINE, "{}", short.len());
        assert!(short.starts_with("bad value '(((") && short.ends_with("(': the reason"));
        assert!(short.contains("more bytes)"), "{short}");
        let wide = "é".repeat(2000);
        assert!(
            shortened(&wide).len() < MAX_LINE,
            "cut on character boundaries"
        );
    }
}
