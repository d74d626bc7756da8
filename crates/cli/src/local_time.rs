//! A stored time (ms since the epoch) as this machine's local date and minute, as `history`,
//! `show` and the CSV list runs.

/// Local time of a Unix time in ms, as `2026-11-22 09:41`.
pub(crate) fn when(ms: i64) -> String {
    let t: libc::time_t = (ms / 1000) as libc::time_t;
    // SAFETY: localtime_r writes only into tm.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return ms.to_string();
    }
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min
    )
}
