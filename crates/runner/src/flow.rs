//! fio's flow control (`flow`, `flow_id`, `flow_sleep`): jobs sharing a flow id keep their
//! I/O counts in the ratio of their weights. Each group has a shared counter (starting at 1,
//! as fio's); a job whose share of it exceeds its share of the group's weight waits
//! (`flow_sleep` µs, or a yield) instead of issuing, as fio's `flow_threshold_exceeded()`.

use std::sync::atomic::{AtomicU64, Ordering};

use iolab_job::{FlowSpec, JobSpec};

/// One flow id's shared state, for the jobs of one phase.
#[derive(Debug)]
pub(crate) struct Flow {
    id: u32,
    counter: AtomicU64,
    weight: AtomicU64,
}

/// The flows of the jobs that run together, with every copy's weight added up front (fio
/// adds each as its job starts; a phase's jobs start together).
pub(crate) fn flows<'a>(specs: impl Iterator<Item = &'a JobSpec>) -> Vec<Flow> {
    let mut flows: Vec<Flow> = Vec::new();
    for s in specs {
        let f = s.flow;
        if f.weight == 0 {
            continue;
        }
        let add = f.weight as u64 * s.numjobs as u64;
        match flows.iter().find(|x| x.id == f.id) {
            Some(x) => {
                x.weight.fetch_add(add, Ordering::Relaxed);
            }
            None => flows.push(Flow {
                id: f.id,
                counter: AtomicU64::new(1),
                weight: AtomicU64::new(add),
            }),
        }
    }
    flows
}

/// One job copy's place in its flow.
pub(crate) struct FlowGate<'a> {
    flow: &'a Flow,
    spec: FlowSpec,
    /// I/Os this copy counted into the flow.
    own: u64,
}

impl<'a> FlowGate<'a> {
    pub fn new(flows: &'a [Flow], spec: FlowSpec) -> Option<FlowGate<'a>> {
        let flow = flows.iter().find(|f| f.id == spec.id)?;
        Some(FlowGate { flow, spec, own: 0 })
    }

    /// Whether this copy may issue its next I/O now; if so it is counted.
    #[inline]
    pub fn allows(&mut self) -> bool {
        let counter = self.flow.counter.load(Ordering::Relaxed).max(1);
        let weight = self.flow.weight.load(Ordering::Relaxed).max(1);
        if self.own as f64 / counter as f64 > self.spec.weight as f64 / weight as f64 {
            return false;
        }
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
        true
    }

    /// Waits before asking again: `flow_sleep`, or a yield.
    #[cold]
    pub fn pause(&self) {
        if self.spec.sleep.is_zero() {
            std::thread::yield_now();
        } else {
            std::thread::sleep(self.spec.sleep);
        }
    }
}

impl Drop for FlowGate<'_> {
    /// A finished job leaves the flow, taking its count and weight (fio's `flow_put()`), so
    /// the others no longer wait for it.
    fn drop(&mut self) {
        self.flow.counter.fetch_sub(self.own, Ordering::Relaxed);
        self.flow
            .weight
            .fetch_sub(self.spec.weight as u64, Ordering::Relaxed);
    }
}
