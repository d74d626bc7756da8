//! How wide the user's terminal is, so a table too wide for it can take a narrower layout:
//! standard output's window size when it is a terminal, else `$COLUMNS` when set (a script
//! or a test asking for a width), else no limit (a file or a pipe keeps the wide layout,
//! which pastes into a review as it is).

use std::io::IsTerminal;

/// The width to fit, in columns; `None`: no limit.
pub fn terminal() -> Option<usize> {
    if std::io::stdout().is_terminal() {
        // SAFETY: TIOCGWINSZ fills a winsize on a terminal descriptor; fd 1 is one.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut ws) } == 0;
        if ok && ws.ws_col > 0 {
            return Some(usize::from(ws.ws_col));
        }
    }
    std::env::var("COLUMNS")
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|&w| w > 0)
}

/// The widest line of `text`, in characters.
pub fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}
