//! Other processes running the same jobs at the same time, one per host (MPI ranks): the
//! runner lines each phase up with theirs and lets a peer end a phase early.
//!
//! The runner knows nothing of MPI; the binary implements this trait over it. Every method is
//! called from the thread that called [`run_jobs`](crate::run_jobs) only (MPI's "funneled"
//! threading), never from a worker, so a worker's loop pays nothing for it.

/// How this process and its peers agree on phases. Every peer must make the same calls in the
/// same order (they are collective), or they wait for each other for ever.
pub trait Peers: std::fmt::Debug {
    /// Every local worker of `phase` has opened its engine (`ready`) or failed to. Returns
    /// when every peer's have, at a moment all peers chose together, with whether every peer
    /// was ready; on false the phase does not run anywhere.
    fn start_together(&self, phase: usize, ready: bool) -> bool;

    /// Called about every millisecond while `phase` runs, and once more after this process's
    /// workers have all finished (`local_done`). True: stop now, a peer finished first
    /// (stonewall).
    fn poll(&self, phase: usize, local_done: bool) -> bool;

    /// Every local worker of `phase` has been joined.
    fn phase_over(&self, phase: usize);
}
