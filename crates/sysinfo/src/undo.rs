//! What iolab changed outside its own data (a drive's volatile write cache, set as PTS
//! requires), undone however the process ends: by the guard's drop on a normal end, an
//! error or a signal (the run stops and unwinds), and by [`run_all`] where the process ends
//! without unwinding (the watchdog giving up on I/O the kernel does not complete). A process
//! killed outright (SIGKILL) runs nothing: the command records the original state in the
//! results database before it changes it, and the next command that opens the database
//! puts it back.

use std::sync::Mutex;

type Action = Box<dyn FnOnce() + Send>;

/// The pending undo actions, by token.
static PENDING: Mutex<Vec<(u64, Action)>> = Mutex::new(Vec::new());
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// An undo action registered for the process: run once, when this guard drops or when
/// [`run_all`] runs first.
#[derive(Debug)]
pub struct Undo(u64);

/// Registers `action`; it runs when the returned guard drops, or at [`run_all`].
pub fn push(action: impl FnOnce() + Send + 'static) -> Undo {
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    PENDING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((id, Box::new(action)));
    Undo(id)
}

fn take(id: Option<u64>) -> Vec<Action> {
    let mut all = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let (now, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut *all)
        .into_iter()
        .partition(|(i, _)| id.is_none_or(|id| *i == id));
    *all = keep;
    now.into_iter().map(|(_, a)| a).collect()
}

impl Drop for Undo {
    fn drop(&mut self) {
        for action in take(Some(self.0)) {
            action();
        }
    }
}

/// Runs every pending action now, newest first: for a process about to end without
/// unwinding (`process::exit`).
pub fn run_all() {
    for action in take(None).into_iter().rev() {
        action();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn an_action_runs_once_at_its_drop_or_at_run_all() {
        let n = Arc::new(AtomicUsize::new(0));
        let count = |n: &Arc<AtomicUsize>| {
            let n = n.clone();
            move || {
                n.fetch_add(1, Ordering::SeqCst);
            }
        };
        let a = push(count(&n));
        drop(a);
        assert_eq!(n.load(Ordering::SeqCst), 1);
        let b = push(count(&n));
        run_all();
        assert_eq!(n.load(Ordering::SeqCst), 2);
        drop(b);
        assert_eq!(n.load(Ordering::SeqCst), 2, "not again at its drop");
    }
}
