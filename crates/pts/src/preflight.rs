//! Everything the chosen tests will ask of the machine and the target, checked before the
//! first purge: each test's every job (its workload-independent preconditioning, its own
//! preconditioning loop, its pre-writes, its round, what follows its rounds) as the runner
//! will check it (threads, I/O buffer memory, kernel limits), its region against its block
//! sizes, and its block sizes against the target's logical block. A run that would stop
//! after the purge with "the jobs' I/O buffers need 256 GiB" is refused before it destroys
//! anything.

use std::time::Duration;

use iolab_job::{JobSpec, Region};

use crate::config::Config;
use crate::element::Element;
use crate::tests::PtsTest;

/// Every element a test runs, in no particular order.
fn elements(t: &dyn PtsTest, c: &Config) -> Vec<Element> {
    let mut all: Vec<Element> = t.wipc(c).into_iter().collect();
    all.extend(t.preconditioning(c).map(|p| p.element));
    all.extend(t.pre_write(c).map(|s| s.element));
    all.extend(t.round(c));
    for phase in t.after(c, &[], None) {
        all.extend(phase.steps.iter().map(|s| s.element));
    }
    all.dedup();
    all
}

/// The jobs of `t` on `c`, as its stages will run them.
pub fn specs(t: &dyn PtsTest, c: &Config) -> Vec<JobSpec> {
    elements(t, c)
        .into_iter()
        .map(|e| {
            e.spec(
                c,
                format!("{}-{}", t.name(), e.label()),
                Duration::from_secs(1),
            )
        })
        .collect()
}

/// Checks every job of every test in `tests`; the first refusal, in the user's words.
pub fn check(tests: &[&'static dyn PtsTest], c: &Config) -> Result<(), String> {
    for t in tests {
        for spec in specs(*t, c) {
            let bs = spec.max_block_size() as u64;
            if !bs.is_multiple_of(u64::from(c.logical_block.max(1))) {
                return Err(format!(
                    "{}: {bs}-byte transfers are not a multiple of the target's {}-byte \
                     logical block",
                    t.name(),
                    c.logical_block
                ));
            }
            Region::resolve(&spec, c.capacity, false).map_err(|e| format!("{}: {e}", t.name()))?;
            let one = std::slice::from_ref(&spec);
            iolab_runner::limits::check(one).map_err(|e| format!("{}: {e}", t.name()))?;
            iolab_runner::limits::check_kernel_limits(one)
                .map_err(|e| format!("{}: {e}", t.name()))?;
        }
    }
    Ok(())
}
