//! The join: each of iolab's I/Os matched with the one block request that carried it (same
//! disk, same first sector, inside the I/O's own submit and reap stamps), and its latency
//! cut at the request's issue and completion. Runs on the joiner's thread, never a worker's.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use iolab_results::LatSplit;
use iolab_trace::{DiskPos, KernelRecord, Placement};

use super::tap::Stamp;

/// How long an I/O waits for its request's record after it was reaped: the probe's ring is
/// drained every few milliseconds, so a record later than this was never coming.
pub(crate) const GRACE_NS: u64 = 250_000_000;
/// How long a request nobody claimed is kept (another process's I/O, filesystem metadata).
const KEEP_NS: u64 = 2_000_000_000;

/// One worker's split so far, per direction.
#[derive(Debug, Clone, Default)]
pub(crate) struct WorkerSplit {
    pub dirs: [LatSplit; 3],
}

pub(crate) struct Joiner {
    /// Requests not yet claimed, by where they start; a second request at a place already
    /// held (rare: the same block read twice in flight) waits in `more`.
    requests: FxHashMap<DiskPos, KernelRecord>,
    more: Vec<KernelRecord>,
    /// Stamps whose request has not been seen yet: (worker, stamp).
    waiting: VecDeque<(usize, Stamp)>,
    /// Each worker's files, placed on their disks (`None`: a file that could not be).
    places: Vec<Vec<Option<Placement>>>,
    pub out: Vec<WorkerSplit>,
    last_sweep: u64,
}

impl Joiner {
    pub fn new(places: Vec<Vec<Option<Placement>>>) -> Joiner {
        let out = vec![WorkerSplit::default(); places.len()];
        Joiner {
            requests: FxHashMap::default(),
            more: Vec::new(),
            waiting: VecDeque::new(),
            places,
            out,
            last_sweep: 0,
        }
    }

    /// A completed request from the probe.
    pub fn request(&mut self, r: KernelRecord) {
        let at = DiskPos {
            dev: r.dev,
            sector: r.sector,
        };
        if let Some(held) = self.requests.insert(at, r) {
            self.more.push(held);
        }
    }

    /// One of worker `w`'s stamps; a stamp whose request is not in yet waits.
    pub fn stamp(&mut self, w: usize, s: Stamp) {
        if s.kind == Stamp::RESET {
            self.out[w] = WorkerSplit::default();
            self.waiting.retain(|(v, _)| *v != w);
            return;
        }
        let d = s.dir as usize;
        self.out[w].dirs[d].issued += 1;
        let Some(at) = self.place(w, &s) else {
            self.out[w].dirs[d].unmapped += 1;
            return;
        };
        if !self.try_join(w, &s, at) {
            self.waiting.push_back((w, s));
        }
    }

    /// Tries the waiting stamps again; those reaped more than [`GRACE_NS`] before `now` (or
    /// all, when `last`) are given up as unseen. Forgets old unclaimed requests.
    pub fn retry(&mut self, now: u64, last: bool) {
        for _ in 0..self.waiting.len() {
            let Some((w, s)) = self.waiting.pop_front() else {
                break;
            };
            let at = self.place(w, &s).expect("placed when it first came");
            if self.try_join(w, &s, at) {
                continue;
            }
            if last || now > s.end + GRACE_NS {
                self.out[w].dirs[s.dir as usize].unseen += 1;
            } else {
                self.waiting.push_back((w, s));
            }
        }
        if now > self.last_sweep + KEEP_NS / 2 {
            self.last_sweep = now;
            let old = now.saturating_sub(KEEP_NS);
            self.requests.retain(|_, r| r.complete_ns >= old);
            self.more.retain(|r| r.complete_ns >= old);
        }
    }

    /// The request at `at` issued and completed inside `s`'s stamps, taken out.
    fn take(&mut self, s: &Stamp, at: DiskPos) -> Option<KernelRecord> {
        let inside = |r: &KernelRecord| r.issue_ns >= s.start && r.complete_ns <= s.end;
        if self.requests.get(&at).is_some_and(inside) {
            let r = self.requests.remove(&at);
            // A request waiting behind it takes its place.
            let same = |m: &KernelRecord| m.dev == at.dev && m.sector == at.sector;
            if let Some(i) = self.more.iter().position(same) {
                self.requests.insert(at, self.more.swap_remove(i));
            }
            return r;
        }
        let i = self
            .more
            .iter()
            .position(|m| m.dev == at.dev && m.sector == at.sector && inside(m))?;
        Some(self.more.swap_remove(i))
    }

    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    fn place(&self, w: usize, s: &Stamp) -> Option<DiskPos> {
        self.places[w].get(s.file as usize)?.as_ref()?.at(s.offset)
    }

    /// Joins `s` with a request at `at` inside its stamps, if one came: the I/O is split
    /// (or counted as split or merged, when the request's length is not the I/O's).
    fn try_join(&mut self, w: usize, s: &Stamp, at: DiskPos) -> bool {
        let Some(r) = self.take(s, at) else {
            return false;
        };
        let split = &mut self.out[w].dirs[s.dir as usize];
        if r.bytes != s.len || r.done_bytes != r.bytes {
            split.split_or_merged += 1;
        } else {
            split.record(
                r.issue_ns - s.start,
                r.complete_ns - r.issue_ns,
                s.end - r.complete_ns,
            );
            if r.driver_done_ns >= r.issue_ns && r.driver_done_ns <= r.complete_ns {
                split.record_nvme(r.driver_done_ns - r.issue_ns);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(sector: u64, issue: u64, done: u64, bytes: u32) -> KernelRecord {
        KernelRecord {
            issue_ns: issue,
            complete_ns: done,
            driver_done_ns: 0,
            sector,
            dev: 7 << 20,
            bytes,
            done_bytes: bytes,
            op: 0,
        }
    }

    fn io(offset: u64, start: u64, end: u64) -> Stamp {
        Stamp {
            start,
            end,
            offset,
            len: 4096,
            ..Stamp::default()
        }
    }

    fn joiner() -> Joiner {
        Joiner::new(vec![vec![Some(Placement::whole_disk(7 << 20))]])
    }

    #[test]
    fn an_io_splits_into_parts_that_add_up_to_its_latency() {
        let mut j = joiner();
        j.request(rec(8, 1_300, 9_300, 4096));
        j.stamp(0, io(4096, 1_000, 10_000));
        let s = &j.out[0].dirs[0];
        assert_eq!((s.issued, s.joined), (1, 1));
        assert_eq!(s.submit.percentile_ticks(50.0), 300);
        assert_eq!(s.device.percentile_ticks(50.0), 8_000);
        assert_eq!(s.completion.percentile_ticks(50.0), 700);
    }

    #[test]
    fn a_stamp_waits_for_its_request_and_gives_up_after_the_grace() {
        let mut j = joiner();
        j.stamp(0, io(0, 1_000, 10_000));
        assert_eq!(j.waiting(), 1);
        j.request(rec(0, 2_000, 9_000, 4096));
        j.retry(20_000, false);
        assert_eq!(j.out[0].dirs[0].joined, 1);
        j.stamp(0, io(8192, 30_000, 40_000));
        j.retry(40_000 + GRACE_NS + 1, false);
        assert_eq!(j.waiting(), 0);
        assert_eq!(j.out[0].dirs[0].unseen, 1);
        assert_eq!(j.out[0].dirs[0].issued, 2);
    }

    #[test]
    fn a_request_outside_the_stamps_or_of_another_length_is_not_the_ios() {
        let mut j = joiner();
        // Same sector, but issued before the I/O was submitted: an earlier I/O's.
        j.request(rec(0, 500, 900, 4096));
        j.stamp(0, io(0, 1_000, 10_000));
        assert_eq!(j.out[0].dirs[0].joined, 0);
        // A longer request at the same place, inside the stamps: merged.
        j.request(rec(0, 2_000, 3_000, 8192));
        j.retry(10_001, false);
        let s = &j.out[0].dirs[0];
        assert_eq!((s.joined, s.split_or_merged), (0, 1));
    }

    #[test]
    fn two_requests_at_one_place_go_to_their_own_ios() {
        let mut j = joiner();
        // A foreign request at the place, never claimed, then two of ours.
        j.request(rec(0, 100, 200, 4096));
        j.request(rec(0, 1_100, 1_900, 4096));
        j.request(rec(0, 3_100, 3_500, 4096));
        j.stamp(0, io(0, 3_000, 4_000));
        j.stamp(0, io(0, 1_000, 2_000));
        let s = &j.out[0].dirs[0];
        assert_eq!(s.joined, 2);
        assert_eq!(s.device.percentile_ticks(100.0), 800);
        assert_eq!(s.device.percentile_ticks(0.0), 400);
    }

    #[test]
    fn the_window_start_forgets_the_ramp() {
        let mut j = joiner();
        j.request(rec(0, 1_100, 1_200, 4096));
        j.stamp(0, io(0, 1_000, 2_000));
        j.stamp(0, io(4096, 3_000, 4_000));
        j.stamp(
            0,
            Stamp {
                kind: Stamp::RESET,
                ..Stamp::default()
            },
        );
        assert_eq!(j.out[0].dirs[0].issued, 0);
        assert_eq!(j.waiting(), 0);
    }
}
