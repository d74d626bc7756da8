//! [`Peers`] over MPI: phases start together at a moment rank 0 picks, and with
//! `--stonewall-hosts` the first rank to finish a phase stops it on every other rank.
//!
//! Starting together: an all-reduce of "ready" (a barrier that also carries whether any rank
//! failed to set up), then rank 0 broadcasts a start time a few milliseconds ahead on
//! `CLOCK_REALTIME` and every rank sleeps, then spins, until it. A barrier alone releases the
//! ranks as its messages arrive, one after another; a time released on each host's own clock
//! puts them within a wake-up of each other on one host, and within the clocks' agreement
//! (NTP, PTP) across hosts. The time each rank actually started is kept, so the skew reported
//! is measured, not assumed.
//!
//! Stonewall: every rank that finishes a phase sends a note to every other (tag = phase);
//! a rank that receives one stops its workers; before the next phase each rank receives the
//! notes of all the others, so none is left over.

use std::cell::{Cell, RefCell};

use iolab_runner::Peers;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// How far ahead of the broadcast the start is set: long enough for the broadcast to reach
/// every rank of a busy, oversubscribed machine.
const START_AHEAD_NS: i64 = 20_000_000;
/// A start further ahead than this means the clocks disagree: start at once instead.
const CLOCKS_DISAGREE_NS: i64 = 1_000_000_000;

pub struct MpiPeers {
    world: SimpleCommunicator,
    stonewall: bool,
    /// When each phase was released here, ns on CLOCK_REALTIME.
    starts: RefCell<Vec<i64>>,
    /// This phase: told the others we finished; notes heard from others.
    told: Cell<bool>,
    heard: Cell<i32>,
    /// A rank found the start time already far past or far ahead (clocks out of step).
    pub clocks_disagree: Cell<bool>,
}

impl std::fmt::Debug for MpiPeers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiPeers")
            .field("rank", &self.world.rank())
            .field("size", &self.world.size())
            .field("stonewall", &self.stonewall)
            .finish()
    }
}

/// The lowest rank whose `ok` is false, if any; every rank learns it (a barrier too).
pub fn first_failing(world: &SimpleCommunicator, ok: bool) -> Option<i32> {
    let mine = if ok { i32::MAX } else { world.rank() };
    let mut lowest = 0i32;
    world.all_reduce_into(&mine, &mut lowest, SystemOperation::min());
    (lowest != i32::MAX).then_some(lowest)
}

/// The calling thread under SCHED_FIFO until dropped; nothing where that is not allowed.
struct Realtime(bool);

impl Realtime {
    fn enter() -> Realtime {
        let p = libc::sched_param { sched_priority: 1 };
        // SAFETY: sets the calling thread's own policy.
        Realtime(
            unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &p) } == 0,
        )
    }
}

impl Drop for Realtime {
    fn drop(&mut self) {
        if self.0 {
            let p = libc::sched_param { sched_priority: 0 };
            // SAFETY: as in `enter`.
            unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_OTHER, &p) };
        }
    }
}

/// ns since the Unix epoch.
pub fn realtime_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

impl MpiPeers {
    pub fn new(world: SimpleCommunicator, stonewall: bool) -> MpiPeers {
        MpiPeers {
            world,
            stonewall,
            starts: RefCell::new(Vec::new()),
            told: Cell::new(false),
            heard: Cell::new(0),
            clocks_disagree: Cell::new(false),
        }
    }

    /// When each phase started here.
    pub fn starts(&self) -> Vec<i64> {
        self.starts.borrow().clone()
    }

    /// Whether every rank says `ok` (a barrier too).
    pub fn all_ok(&self, ok: bool) -> bool {
        first_failing(&self.world, ok).is_none()
    }

    /// Sleeps until `at` on CLOCK_REALTIME: an absolute timer with no slack, not a spin, so
    /// ranks sharing a CPU (an oversubscribed host) do not take it from each other.
    /// Returns the time it woke.
    fn wait_until(&self, at: i64) -> i64 {
        let ahead = at - realtime_ns();
        if !(-CLOCKS_DISAGREE_NS..=CLOCKS_DISAGREE_NS).contains(&ahead) {
            self.clocks_disagree.set(true);
            return realtime_ns();
        }
        let ts = libc::timespec {
            tv_sec: at / 1_000_000_000,
            tv_nsec: at % 1_000_000_000,
        };
        // Real-time priority for the wait (where allowed): the timer's wake-up then runs at
        // once, ahead of other ranks' workers already busy on the same CPUs.
        let _rt = Realtime::enter();
        // SAFETY: plain system calls on values owned here.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
            while libc::clock_nanosleep(
                libc::CLOCK_REALTIME,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            ) == libc::EINTR
            {}
        }
        realtime_ns()
    }

    fn tag(phase: usize) -> i32 {
        1000 + phase as i32
    }

    fn tell_others(&self, phase: usize) {
        if self.told.replace(true) {
            return;
        }
        let me = self.world.rank();
        let note = phase as u32;
        for r in (0..self.world.size()).filter(|&r| r != me) {
            self.world
                .process_at_rank(r)
                .send_with_tag(&note, Self::tag(phase));
        }
    }

    /// Receives every note that has arrived; true if there was one.
    fn hear(&self, phase: usize) -> bool {
        let mut any = false;
        let from = self.world.any_process();
        while from.immediate_probe_with_tag(Self::tag(phase)).is_some() {
            let _: (u32, _) = from.receive_with_tag(Self::tag(phase));
            self.heard.set(self.heard.get() + 1);
            any = true;
        }
        any
    }
}

impl Peers for MpiPeers {
    fn start_together(&self, _phase: usize, ready: bool) -> bool {
        self.told.set(false);
        self.heard.set(0);
        if !self.all_ok(ready) {
            self.starts.borrow_mut().push(realtime_ns());
            return false;
        }
        let mut at = if self.world.rank() == 0 {
            realtime_ns() + START_AHEAD_NS
        } else {
            0
        };
        self.world.process_at_rank(0).broadcast_into(&mut at);
        let now = self.wait_until(at);
        self.starts.borrow_mut().push(now);
        true
    }

    fn poll(&self, phase: usize, local_done: bool) -> bool {
        if !self.stonewall {
            return false;
        }
        if local_done {
            self.tell_others(phase);
        }
        self.hear(phase)
    }

    fn phase_over(&self, phase: usize) {
        if !self.stonewall {
            return;
        }
        self.tell_others(phase);
        let from = self.world.any_process();
        while self.heard.get() < self.world.size() - 1 {
            let _: (u32, _) = from.receive_with_tag(Self::tag(phase));
            self.heard.set(self.heard.get() + 1);
        }
    }
}
