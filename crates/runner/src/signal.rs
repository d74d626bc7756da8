//! SIGINT, SIGTERM, SIGHUP (an ssh session that dropped) and SIGQUIT stop the run: the handler only
//! sets a flag that every worker polls once per loop (a relaxed load, no syscall), so results
//! so far are printed, kept and reported as interrupted. SIGUSR1 asks for a status line, as
//! fio's does. SIGXFSZ (a write past `ulimit -f`) is ignored, so the write fails with EFBIG
//! and is reported as the job's error instead of killing the process mid-write; it is ignored
//! first thing in `main` ([`ignore_file_size_limit`]), before the results database is opened,
//! so SQLite's writes fail with an error too. fio leaves SIGQUIT at its default, a core dump
//! that loses the run's output; iolab quits as promptly but keeps what was measured, and a
//! SIGQUIT ignored by inheritance (a script's background job) is not left ignored.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static STATUS: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::Relaxed);
    STOP.store(true, Ordering::Relaxed);
}

extern "C" fn on_status(_: libc::c_int) {
    STATUS.store(true, Ordering::Relaxed);
}

/// Installs the handlers (idempotent).
pub fn install() {
    let stops = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];
    let handlers = stops
        .iter()
        .map(|&s| (s, on_signal as *const () as usize))
        .chain([
            (libc::SIGUSR1, on_status as *const () as usize),
            (libc::SIGXFSZ, libc::SIG_IGN),
        ]);
    for (sig, handler) in handlers {
        // SAFETY: the handlers only touch atomics, which is async-signal-safe.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Ignores SIGXFSZ, so that a write past `ulimit -f` (the database's, a log's, a target's)
/// fails with EFBIG and is said, instead of killing the process without a word.
pub fn ignore_file_size_limit() {
    // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

/// Stops the run as a signal would, without one (the watchdog): workers stop where they
/// are, and no further phase starts.
pub fn request_stop() {
    STOP.store(true, Ordering::Relaxed);
}

/// True once after each SIGUSR1: a status line is wanted.
pub fn status_asked() -> bool {
    STATUS.swap(false, Ordering::Relaxed)
}

/// The flag workers poll.
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// The signal that stopped the run, if any.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}
