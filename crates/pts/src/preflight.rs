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
use crate::element::{Element, ElementJob};
use crate::tests::PtsTest;

/// Every element a test runs, in no particular order, each with whether the test needs it:
/// its round's cells may be unavailable on this target (a 512-byte cell on a 4 KiB-block
/// device is an n/a cell with its reason, as the run says), what prepares the target may not.
fn elements(t: &dyn PtsTest, c: &Config) -> Vec<(Element, bool)> {
    let mut all: Vec<(Element, bool)> = t.wipc(c).into_iter().map(|e| (e, true)).collect();
    all.extend(t.preconditioning(c).map(|p| (p.element, true)));
    all.extend(t.pre_write(c).map(|s| (s.element, true)));
    all.extend(t.round(c).into_iter().map(|e| (e, false)));
    for phase in t.after(c, &[], None) {
        all.extend(phase.steps.iter().map(|s| (s.element, true)));
    }
    all.dedup();
    all
}

/// The jobs of `t` on `c`, as its stages will run them, each with whether the test needs it.
pub fn specs(t: &dyn PtsTest, c: &Config) -> Vec<(JobSpec, bool)> {
    elements(t, c)
        .into_iter()
        .map(|(e, needed)| {
            let name = format!("{}-{}", t.name(), e.label());
            (e.spec(c, name, Duration::from_secs(1)), needed)
        })
        .collect()
}

/// Checks every job of every test in `tests`; the first refusal, in the user's words. A
/// round cell whose transfers do not fit the logical block is left to the run (an n/a cell),
/// unless no cell of the round fits.
pub fn check(tests: &[&'static dyn PtsTest], c: &Config) -> Result<(), String> {
    let block = u64::from(c.logical_block.max(1));
    for t in tests {
        let specs = specs(*t, c);
        let fits = |s: &JobSpec| (s.max_block_size() as u64).is_multiple_of(block);
        let unfit = specs
            .iter()
            .find(|(s, needed)| !fits(s) && (*needed || specs.iter().all(|(o, n)| *n || !fits(o))));
        if let Some((s, _)) = unfit {
            return Err(format!(
                "{}: {}-byte transfers are not a multiple of the target's {}-byte logical block",
                t.name(),
                s.max_block_size(),
                c.logical_block
            ));
        }
        for (spec, _) in specs.iter().filter(|(s, _)| fits(s)) {
            Region::resolve(spec, c.capacity, false).map_err(|e| format!("{}: {e}", t.name()))?;
            let one = std::slice::from_ref(spec);
            iolab_runner::limits::check(one).map_err(|e| format!("{}: {e}", t.name()))?;
            iolab_runner::limits::check_kernel_limits(one)
                .map_err(|e| format!("{}: {e}", t.name()))?;
        }
    }
    Ok(())
}
