//! fio's choice of a mixed job's next direction (`get_rw_ddir()`, `get_rand_ddir()`,
//! `set_rwmix_bytes()` in `io_u.c`), draw for draw from fio's own mix stream.
//!
//! Why iolab follows fio's rule rather than a coin per I/O: with fio's offsets (see
//! [`crate::fio_rand`]) the same `rw=randrw` job then reads and writes the same blocks in
//! both tools, so a verify phase reads back as many blocks, and byte and I/O counts agree
//! job for job, not only on average.
//!
//! fio draws 1..=100 against `rwmixread` only when the direction it is on has caught up with
//! a mark: on switching, the mark becomes the old direction's issues times the new one's
//! share. In a long run the mark is nearly always passed, so the draws are one per I/O; early
//! on, and after a run of the rarer direction, the mark holds a direction for a few I/Os.

use iolab_engine::Direction;

use crate::fio_rand::{FioRand, SeedRule};

/// fio's `FIO_RAND_MIX_OFF`: the mix's place among a job's streams.
const MIX_STREAM: u64 = 4;

/// fio's mix state for one job copy.
#[derive(Debug, Clone)]
pub struct FioMix {
    rand: FioRand,
    read_percent: u32,
    /// fio's `rwmix_ddir`: the direction it is on (fio starts on reads).
    on: Direction,
    /// fio's `rwmix_issues`: the issues of `on` at which it draws again.
    mark: u64,
    /// fio's `io_issues[]` for reads and writes.
    issues: [u64; 2],
}

impl FioMix {
    /// The mix of job copy `thread_number` (fio's 1-based job number over the run), reading
    /// `read_percent` of its I/Os, seeded by `rule` as fio seeds it.
    pub fn new(read_percent: u32, rule: SeedRule, thread_number: u32) -> FioMix {
        FioMix {
            // The mix stream is always fio's 32-bit generator, whatever random_generator says.
            rand: FioRand::new(rule.stream_seed(thread_number, MIX_STREAM), false),
            read_percent,
            on: Direction::Read,
            mark: 0,
            issues: [0; 2],
        }
    }

    /// The direction of the next I/O, as fio's `get_rw_ddir()` picks it before any rate
    /// limit has its say (see [`Self::issued`]).
    #[inline(always)]
    pub fn next_direction(&mut self) -> Direction {
        if self.issues[self.on.index()] >= self.mark {
            // rand_between(1, 100): 1 + ⌊100 · r / 2^32⌋, exact in integers.
            let v = 1 + ((100 * self.rand.draw()) >> 32) as u32;
            let drawn = match v <= self.read_percent {
                true => Direction::Read,
                false => Direction::Write,
            };
            if drawn != self.on {
                let share = match drawn {
                    Direction::Read => self.read_percent,
                    _ => 100 - self.read_percent,
                };
                self.mark = self.issues[self.on.index()] * share as u64 / 100;
            }
            self.on = drawn;
        }
        self.on
    }

    /// An I/O went out in `dir` (the drawn one, or the other where a rate limit switched
    /// it, as fio's `rate_ddir()` leaves `rwmix_ddir`).
    #[inline(always)]
    pub fn issued(&mut self, dir: Direction) {
        if dir != Direction::Trim {
            self.on = dir;
            self.issues[dir.index()] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mix: &mut FioMix, n: usize) -> Vec<Direction> {
        (0..n)
            .map(|_| {
                let d = mix.next_direction();
                mix.issued(d);
                d
            })
            .collect()
    }

    #[test]
    fn the_shares_hold_and_a_job_repeats_its_directions() {
        for read in [10, 50, 70, 95] {
            let mut mix = FioMix::new(read, SeedRule::default(), 1);
            let dirs = run(&mut mix, 100_000);
            let reads = dirs.iter().filter(|&&d| d == Direction::Read).count();
            let want = read as usize * 1000;
            assert!(reads.abs_diff(want) < 1000, "{read}: {reads}");
            let again = run(&mut FioMix::new(read, SeedRule::default(), 1), 100_000);
            assert_eq!(dirs, again);
            let other = run(&mut FioMix::new(read, SeedRule::default(), 2), 100_000);
            assert_ne!(dirs, other, "each copy has its own stream");
        }
    }

    #[test]
    fn after_a_switch_the_new_direction_runs_to_its_mark_without_drawing() {
        let mut mix = FioMix::new(50, SeedRule::default(), 1);
        mix.issues = [10, 0];
        mix.on = Direction::Read;
        // Force a switch to writes by hand: the mark is 10 reads × 50 % = 5 writes.
        mix.mark = 5;
        mix.on = Direction::Write;
        let before = mix.rand.clone();
        let dirs = run(&mut mix, 5);
        assert!(dirs.iter().all(|&d| d == Direction::Write));
        assert_eq!(format!("{before:?}"), format!("{:?}", mix.rand), "no draw");
        mix.next_direction();
        assert_ne!(
            format!("{before:?}"),
            format!("{:?}", mix.rand),
            "drawn at the mark"
        );
    }
}
