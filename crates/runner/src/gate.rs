//! The start line of a phase: every worker waits here until all have opened their engines,
//! so no job measures while another is still setting up. Unlike `std::sync::Barrier`, the
//! runner can count in workers that never started (a thread the system refused), so the
//! ones waiting are released instead of waiting for ever.

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Instant;

pub struct StartGate {
    arrived: Mutex<usize>,
    all_in: Condvar,
    expected: usize,
    /// When the last arrival opened the gate: the phase's common start, which a thread put
    /// off the CPU on its way out does not see until later.
    released: OnceLock<Instant>,
}

impl StartGate {
    pub fn new(expected: usize) -> StartGate {
        StartGate {
            arrived: Mutex::new(0),
            all_in: Condvar::new(),
            expected,
            released: OnceLock::new(),
        }
    }

    /// When the gate opened (now, if it has not: only a waiter asks, after it opened).
    pub fn released(&self) -> Instant {
        *self.released.get_or_init(Instant::now)
    }

    /// Arrives and waits for everyone else.
    pub fn wait(&self) {
        let mut n = self.arrive(1);
        while *n < self.expected {
            n = self.all_in.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits, without arriving, until `n` have arrived (the runner's own thread, which
    /// arrives last once its peers on other hosts are ready too).
    pub fn wait_for_arrivals(&self, n: usize) {
        let mut arrived = self.arrived.lock().unwrap_or_else(|e| e.into_inner());
        while *arrived < n {
            arrived = self.all_in.wait(arrived).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Counts `missing` workers as arrived, without waiting.
    pub fn count_in(&self, missing: usize) {
        drop(self.arrive(missing));
    }

    fn arrive(&self, k: usize) -> std::sync::MutexGuard<'_, usize> {
        let mut n = self.arrived.lock().unwrap_or_else(|e| e.into_inner());
        *n += k;
        if *n >= self.expected {
            self.released.get_or_init(Instant::now);
        }
        // Everyone waiting is woken at each arrival: the runner's thread may be waiting for
        // all but itself (`wait_for_arrivals`).
        self.all_in.notify_all();
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_that_never_came_are_counted_in() {
        let gate = StartGate::new(4);
        std::thread::scope(|s| {
            let a = s.spawn(|| gate.wait());
            let b = s.spawn(|| gate.wait());
            gate.count_in(2);
            a.join().unwrap();
            b.join().unwrap();
        });
    }

    #[test]
    fn the_release_is_when_the_last_arrived_not_when_a_waiter_woke() {
        let gate = StartGate::new(2);
        std::thread::scope(|s| {
            let a = s.spawn(|| {
                gate.wait();
                std::thread::sleep(std::time::Duration::from_millis(50));
                gate.released().elapsed()
            });
            gate.count_in(1);
            assert!(a.join().unwrap() >= std::time::Duration::from_millis(50));
        });
    }
}
