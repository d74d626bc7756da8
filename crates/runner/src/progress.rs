//! The one progress line every long command shows on a terminal's stderr: what runs now
//! (the step, the repeat, the job), and the time left by the plan, drawn by `indicatif` so
//! it fits the terminal's width and updates in place. On a stderr that is not a terminal it
//! draws nothing at all (a log gets the command's results and end line, not a stream of
//! carriage returns); `--quiet` turns it off on a terminal too.
//!
//! The time left comes from the plan (planned seconds of what is still to run), not from a
//! rate estimate: a storage job's planned time is known, and a rate guessed from the first
//! seconds of a ramp would jump about. Without a plan (size-based jobs) it says so.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// `1h02m`, `4m05s`, `12s`.
pub fn clock_time(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// `text` without control characters: a file or job name must not move the cursor or set
/// the terminal's colours when the line shows it.
fn printable(text: String) -> String {
    match text.chars().any(char::is_control) {
        true => text
            .chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect(),
        false => text,
    }
}

/// Where the line stands: the bar drawn now (a new one after each `clear`), the plan, and
/// the planned time of the stages already over.
#[derive(Debug)]
struct Inner {
    bar: Option<ProgressBar>,
    planned: Option<Duration>,
    base: Duration,
    prefix: String,
    /// When the line last went to a new line (fio's `--eta-newline`, or plain lines).
    last_line: Option<Instant>,
}

/// How the line is drawn, as fio's `--eta`, `--eta-newline` and `--eta-interval` ask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineStyle {
    /// Drawn also where stderr is not a terminal (fio's `--eta=always`): there as whole
    /// lines, one every `every` (default one a second).
    pub always: bool,
    /// On a terminal, the line is also kept on a line of its own this often.
    pub newline_every: Option<Duration>,
    /// How often the line is redrawn (default 250 ms on a terminal).
    pub every: Option<Duration>,
}

/// The progress line (hidden where it may not draw).
#[derive(Debug)]
pub struct ProgressLine {
    visible: bool,
    /// Not a terminal, but asked for (`--eta=always`): whole lines now and then.
    plain: bool,
    style: LineStyle,
    inner: Mutex<Inner>,
}

/// "ETA 4m05s" from the bar's length and position (ms of the plan), or "no planned end".
fn eta(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let text = match state.len() {
        Some(len) if len > 0 => format!(
            "ETA {}",
            clock_time(Duration::from_millis(len.saturating_sub(state.pos())))
        ),
        _ => "no planned end".into(),
    };
    let _ = w.write_str(&text);
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template("{prefix}{wide_msg} {eta_plan}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .with_key("eta_plan", eta)
}

impl ProgressLine {
    /// A line on stderr, drawn only when `enabled` and stderr is a terminal.
    pub fn new(enabled: bool) -> ProgressLine {
        ProgressLine::styled(enabled, LineStyle::default())
    }

    /// A line drawn as `style` asks (fio's `--eta` options); `enabled` false: never.
    pub fn styled(enabled: bool, style: LineStyle) -> ProgressLine {
        let terminal = std::io::stderr().is_terminal();
        ProgressLine {
            visible: enabled && terminal,
            plain: enabled && !terminal && style.always,
            style,
            inner: Mutex::new(Inner {
                bar: None,
                planned: None,
                base: Duration::ZERO,
                prefix: String::new(),
                last_line: None,
            }),
        }
    }

    /// A line that never draws (library callers, tests).
    pub fn hidden() -> ProgressLine {
        ProgressLine::new(false)
    }

    pub fn is_hidden(&self) -> bool {
        !self.visible && !self.plain
    }

    /// A plain line (no terminal): the text with the time left, once per interval.
    fn plain_line(&self, i: &mut Inner, msg: &str, pos: u64) {
        let every = self.style.every.or(self.style.newline_every);
        let every = every.unwrap_or(Duration::from_secs(1));
        if i.last_line.is_some_and(|t| t.elapsed() < every) {
            return;
        }
        i.last_line = Some(Instant::now());
        let left = match i.planned {
            Some(p) => format!(
                "ETA {}",
                clock_time(p.saturating_sub(Duration::from_millis(pos)))
            ),
            None => "no planned end".into(),
        };
        eprintln!("{}{msg} {left}", i.prefix);
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The whole command's planned time (`None`: no planned end), counted from its start.
    pub fn set_plan(&self, planned: Option<Duration>) {
        let mut i = self.inner();
        i.planned = planned;
        i.base = Duration::ZERO;
        // A line already drawn goes on with the new plan (kv's, which the rate refines).
        if let Some(b) = &i.bar {
            match planned {
                Some(p) => b.set_length(p.as_millis().max(1) as u64),
                None => b.unset_length(),
            }
        }
    }

    /// What runs now, in brackets at the line's start: `[repeat 2/5]`, `[3/9 qd1-engines]`.
    pub fn set_prefix(&self, prefix: impl Into<String>) {
        let mut i = self.inner();
        // With its space here, so a line without a prefix does not start with one.
        i.prefix = printable(prefix.into());
        if !i.prefix.is_empty() {
            i.prefix.push(' ');
        }
        if let Some(b) = &i.bar {
            b.set_prefix(i.prefix.clone());
        }
    }

    /// Redraws with `msg`, `done` of planned time into the current stage.
    pub fn draw(&self, msg: impl Into<String>, done: Duration) {
        let base = self.inner().base;
        self.draw_at(msg, base + done);
    }

    /// Redraws with `msg` at `position` into the whole plan (a caller that keeps its own
    /// account of what is done, as the review does point by point).
    pub fn draw_at(&self, msg: impl Into<String>, position: Duration) {
        let mut i = self.inner();
        let pos = i.planned.map_or(position, |p| position.min(p));
        let pos = pos.as_millis() as u64;
        let msg = printable(msg.into());
        if self.plain {
            return self.plain_line(&mut i, &msg, pos);
        }
        if i.bar.is_some() {
            if let Some(every) = self.style.newline_every {
                let due = i.last_line.map(|t| t.elapsed() >= every);
                if due != Some(false) {
                    i.last_line = Some(Instant::now());
                }
                if let (Some(true), Some(b)) = (due, &i.bar) {
                    b.println(format!("{}{msg}", i.prefix));
                }
            }
        }
        if let Some(b) = &i.bar {
            b.set_message(msg);
            b.set_position(pos);
            return;
        }
        // A new bar after a clear: set up while hidden, so its first frame is whole.
        let len = i.planned.map(|p| p.as_millis().max(1) as u64);
        let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
        bar.set_style(style());
        bar.set_prefix(i.prefix.clone());
        bar.set_message(msg);
        bar.set_position(pos);
        if self.visible {
            let hz = self
                .style
                .every
                .map_or(4, |e| (1000 / e.as_millis().max(50)).clamp(1, 20) as u8);
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(hz));
            bar.tick();
        }
        i.bar = Some(bar);
    }

    /// Prints `text` as a line of its own above the progress line (a finished stage's
    /// figures), where the line is drawn: on a terminal, or as plain lines (`--eta=always`).
    pub fn say_above(&self, text: &str) {
        if self.is_hidden() {
            return;
        }
        let text = printable(text.to_string());
        match &self.inner().bar {
            Some(b) => b.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// A stage of `planned` time is over: the time left no longer counts it.
    pub fn stage_over(&self, planned: Duration) {
        self.inner().base += planned;
    }

    /// Takes the line off the terminal (before results are printed); the next `draw` puts
    /// it back.
    pub fn clear(&self) {
        if let Some(b) = self.inner().bar.take() {
            b.finish_and_clear();
        }
    }

    /// Where the line stands, in ms of the plan (tests).
    #[cfg(test)]
    fn position(&self) -> Option<(u64, Option<u64>)> {
        let i = self.inner();
        i.bar.as_ref().map(|b| (b.position(), b.length()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_times() {
        assert_eq!(clock_time(Duration::from_secs(12)), "12s");
        assert_eq!(clock_time(Duration::from_secs(245)), "4m05s");
        assert_eq!(clock_time(Duration::from_secs(3720)), "1h02m");
    }

    #[test]
    fn the_time_left_is_the_plans() {
        let l = ProgressLine::hidden();
        l.set_plan(Some(Duration::from_secs(20)));
        l.draw("x", Duration::from_secs(5));
        l.stage_over(Duration::from_secs(10));
        l.draw("y", Duration::from_secs(2));
        assert_eq!(l.position(), Some((12_000, Some(20_000))));
        l.draw("z", Duration::from_secs(60));
        assert_eq!(
            l.position(),
            Some((20_000, Some(20_000))),
            "never past the plan"
        );
        l.clear();
        assert_eq!(l.position(), None);
        l.draw_at("again", Duration::from_secs(15));
        assert_eq!(
            l.position(),
            Some((15_000, Some(20_000))),
            "a new bar where the plan is"
        );
    }

    #[test]
    fn names_cannot_drive_the_terminal() {
        assert_eq!(printable("a\x1b[2Jb\n".into()), "a?[2Jb?");
        assert_eq!(printable("plain".into()), "plain");
    }
}
