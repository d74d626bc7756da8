//! Which data a write carries when a share of writes repeats earlier data (fio's
//! `dedupe_percentage`). Each unique page's content comes from a state that is a pure
//! function of (stream, page number), so a repeat regenerates a page exactly, in this job or,
//! with `dedupe_global`, in another job of the run, without keeping any data. No allocation
//! after setup.

use iolab_engine::buffer::splitmix;
use iolab_job::{Dedupe, DedupeMode, JobSpec};

/// fio's `dedupe_global` streams are keyed by job number alone, so every job can rebuild
/// every other's pages.
const GLOBAL_STREAM: u64 = 0xDED0_9E37_79B9_7F4A;

/// The fill state of `page` of `stream`.
fn page_state(stream: u64, page: u64) -> u64 {
    splitmix(stream ^ splitmix(page))
}

fn stream_of(global: bool, job_number: u32, seed: u64) -> u64 {
    match global {
        true => splitmix(GLOBAL_STREAM ^ job_number as u64),
        // Each job its own data, as fio seeds each thread apart.
        false => splitmix(seed ^ splitmix(0xDED0 + job_number as u64)),
    }
}

pub(super) struct DedupeGen {
    percent: u64,
    mode: DedupeMode,
    stream: u64,
    /// Unique pages issued so far; the last one is what `repeat` repeats.
    unique: u64,
    /// Pages in the working set, and how they map onto the run's streams (`dedupe_global`:
    /// the set is split evenly over the run's jobs, starting at this one, as fio's
    /// `init_dedupe_working_set_seeds()`).
    set_pages: u64,
    pages_per_stream: u64,
    job_number: u32,
    run_jobs: u32,
    global: bool,
    rng: u64,
}

impl DedupeGen {
    /// For job copy `job_number` of a run of `run_jobs` copies, whose writes fill `size`
    /// bytes; `None` when the job's writes are all unique.
    pub fn new(
        spec: &JobSpec,
        job_number: u32,
        run_jobs: u32,
        seed: u64,
        size: u64,
    ) -> Option<Self> {
        let d: Dedupe = spec.buffers.dedupe;
        if !d.on() {
            return None;
        }
        let page = spec.min_block_size(iolab_engine::Direction::Write).max(1) as u64;
        let set_pages = (size * d.working_set_percent as u64 / 100 / page).max(1);
        Some(DedupeGen {
            percent: d.percent as u64,
            mode: d.mode,
            stream: stream_of(d.global, job_number, seed),
            unique: 0,
            set_pages,
            pages_per_stream: (set_pages / run_jobs.max(1) as u64).max(1),
            job_number,
            run_jobs: run_jobs.max(1),
            global: d.global,
            rng: splitmix(seed ^ 0xD1CE) | 1,
        })
    }

    fn roll(&mut self, below: u64) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) % below
    }

    /// The fill state of the next write: a new unique page, or (in `percent` of writes) a
    /// page written before.
    #[inline]
    pub fn next_state(&mut self) -> u64 {
        let repeats = self.percent == 100 || self.roll(100) < self.percent;
        if !repeats {
            self.unique += 1;
            return page_state(self.stream, self.unique - 1);
        }
        match self.mode {
            DedupeMode::Repeat => page_state(self.stream, self.unique.saturating_sub(1)),
            DedupeMode::WorkingSet => {
                let i = self.roll(self.set_pages);
                self.working_set_page(i)
            }
        }
    }

    /// Working-set entry `i`: page `i` of this job's stream, or with `dedupe_global`, a page
    /// of the stream of the job `i / pages_per_stream` places after this one.
    fn working_set_page(&self, i: u64) -> u64 {
        if !self.global {
            return page_state(self.stream, i);
        }
        let hop = i / self.pages_per_stream;
        let owner = (self.job_number as u64 - 1 + hop) % self.run_jobs as u64 + 1;
        page_state(stream_of(true, owner as u32, 0), i % self.pages_per_stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn spec(percent: u8, mode: DedupeMode, global: bool) -> JobSpec {
        let mut s = JobSpec::new("d", "/tmp/x");
        s.buffers.dedupe = Dedupe {
            percent,
            mode,
            working_set_percent: 50,
            global,
        };
        s
    }

    fn states(g: &mut DedupeGen, n: usize) -> Vec<u64> {
        (0..n).map(|_| g.next_state()).collect()
    }

    #[test]
    fn repeat_makes_the_asked_share_of_writes_repeats() {
        let s = spec(30, DedupeMode::Repeat, false);
        let mut g = DedupeGen::new(&s, 1, 1, 7, 40 << 20).unwrap();
        let v = states(&mut g, 10_000);
        let unique = v.iter().collect::<HashSet<_>>().len();
        assert!((6_700..7_300).contains(&unique), "{unique}");
        assert!(DedupeGen::new(&spec(0, DedupeMode::Repeat, false), 1, 1, 7, 1).is_none());
    }

    #[test]
    fn a_working_set_repeats_pages_the_job_writes_and_global_ones_cross_jobs() {
        // 4 MiB of 4 KiB pages: a working set of 512 pages; unique writes are pages 0.. of
        // the job's stream, so after 1024 writes at 50% every repeat hits a written page.
        let s = spec(50, DedupeMode::WorkingSet, false);
        let mut g = DedupeGen::new(&s, 1, 2, 7, 4 << 20).unwrap();
        let v = states(&mut g, 1024);
        let own: HashSet<u64> = (0..1024).map(|p| page_state(g.stream, p)).collect();
        assert!(v.iter().all(|s| own.contains(s)));
        let s = spec(50, DedupeMode::WorkingSet, true);
        let (mut a, mut b) = (
            DedupeGen::new(&s, 1, 2, 7, 4 << 20).unwrap(),
            DedupeGen::new(&s, 2, 2, 9, 4 << 20).unwrap(),
        );
        let (va, vb): (HashSet<u64>, HashSet<u64>) = (
            states(&mut a, 1024).into_iter().collect(),
            states(&mut b, 1024).into_iter().collect(),
        );
        assert!(
            va.intersection(&vb).count() > 100,
            "global repeats cross jobs"
        );
    }
}
