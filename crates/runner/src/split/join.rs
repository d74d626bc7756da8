//! The join: each of iolab's I/Os matched with the one block request that carried it (same
//! disk, same first sector, inside the I/O's own submit and reap stamps), and its latency
//! cut at the request's issue and completion. Runs on the joiner's thread, never a worker's.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use iolab_results::{LatSplit, LatencyHistogram, SplitWindow};
use iolab_trace::{DiskPos, KernelRecord, Placement};

use super::log::SplitLog;
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
    /// When the measured window began (ns), once it has: I/Os before it are the ramp's.
    start: Option<u64>,
    /// The current latency window's parts, per direction, where the job has windows.
    windows: Option<[Windowing; 3]>,
}

/// The window being filled: where windows start, how long they are, which one this is, and
/// its device and host parts so far.
#[derive(Debug, Clone)]
struct Windowing {
    start: u64,
    len: u64,
    index: u64,
    device: LatencyHistogram,
    host: LatencyHistogram,
}

/// Empty windows filled in at most, for a gap in a worker's I/O (a stall).
const MAX_GAP_WINDOWS: u64 = 1 << 16;

impl WorkerSplit {
    /// A fresh split whose windows (if `len` is not 0 ns) start at `start`.
    fn new(start: Option<u64>, len: u64) -> WorkerSplit {
        let at = start;
        let start = start.unwrap_or(0);
        let w = || Windowing {
            start,
            len,
            index: 0,
            device: LatencyHistogram::new(),
            host: LatencyHistogram::new(),
        };
        WorkerSplit {
            dirs: Default::default(),
            start: at,
            windows: (len > 0).then(|| [w(), w(), w()]),
        }
    }

    /// A joined I/O of direction `d` reaped at `end` into its window.
    fn window(&mut self, d: usize, end: u64, device: u64, host: u64) {
        let Some(ws) = self.windows.as_mut() else {
            return;
        };
        let w = &mut ws[d];
        let index = end.saturating_sub(w.start) / w.len;
        let mut gap = 0;
        while w.index < index && gap < MAX_GAP_WINDOWS {
            self.dirs[d]
                .windows
                .push(SplitWindow::of(&w.device, &w.host));
            w.device.reset();
            w.host.reset();
            w.index += 1;
            gap += 1;
        }
        w.device.record(device);
        w.host.record(host);
    }

    /// Closes each direction's last window.
    pub fn close_windows(&mut self) {
        let Some(ws) = self.windows.as_mut() else {
            return;
        };
        for (d, w) in ws.iter_mut().enumerate() {
            if w.device.count() > 0 {
                self.dirs[d]
                    .windows
                    .push(SplitWindow::of(&w.device, &w.host));
                w.device.reset();
                w.host.reset();
            }
        }
    }
}

pub(crate) struct Joiner {
    /// Requests not yet claimed, by where they start; a second request at a place already
    /// held waits in `more`, by place too. Not rare: another process's I/O on the disk (a
    /// second split run, a benchmark beside this one) is never claimed and stays for
    /// [`KEEP_NS`], so its repeats pile up; a list scanned per join made the joiner fall
    /// behind for good (47 % joined over 90 s with a second split run beside it for 15 s).
    requests: FxHashMap<DiskPos, KernelRecord>,
    more: FxHashMap<DiskPos, Vec<KernelRecord>>,
    /// Stamps whose request has not been seen yet: (worker, stamp, the drain it came in).
    waiting: VecDeque<(usize, Stamp, u64)>,
    /// Drains of the probe so far: a stamp is given up only after drains that came after it
    /// (a joiner held off the CPU finds old stamps whose records are in the next drain).
    drains: u64,
    /// Each worker's files, placed on their disks.
    places: Vec<Vec<Placement>>,
    /// Each worker's latency window (ns; 0: none).
    window_ns: Vec<u64>,
    /// Each worker's split log, if its job writes one.
    pub logs: Vec<Option<SplitLog>>,
    pub out: Vec<WorkerSplit>,
    last_sweep: u64,
}

impl Joiner {
    pub fn new(places: Vec<Vec<Placement>>, window_ns: Vec<u64>) -> Joiner {
        let out = window_ns
            .iter()
            .map(|&w| WorkerSplit::new(None, w))
            .collect();
        Joiner {
            logs: window_ns.iter().map(|_| None).collect(),
            window_ns,
            requests: FxHashMap::default(),
            more: FxHashMap::default(),
            waiting: VecDeque::new(),
            drains: 0,
            places,
            out,
            last_sweep: 0,
        }
    }

    /// The probe was drained (once per round, before the stamps are taken).
    pub fn drained(&mut self) {
        self.drains += 1;
    }

    /// A completed request from the probe.
    pub fn request(&mut self, r: KernelRecord) {
        let at = DiskPos {
            dev: r.dev,
            sector: r.sector,
        };
        if let Some(held) = self.requests.insert(at, r) {
            self.more.entry(at).or_default().push(held);
        }
    }

    /// One of worker `w`'s stamps; a stamp whose request is not in yet waits.
    pub fn stamp(&mut self, w: usize, s: Stamp) {
        if s.kind == Stamp::RESET {
            // The mark's `start` is when the measured window began: windows count from it.
            self.out[w] = WorkerSplit::new(Some(s.start), self.window_ns[w]);
            self.waiting.retain(|(v, _, _)| *v != w);
            return;
        }
        let d = s.dir as usize;
        self.out[w].dirs[d].issued += 1;
        let Some(at) = self.place(w, &s) else {
            self.out[w].dirs[d].unmapped += 1;
            return;
        };
        if !self.try_join(w, &s, at) {
            self.waiting.push_back((w, s, self.drains));
        }
    }

    /// Tries the waiting stamps again; those reaped more than [`GRACE_NS`] before `now`, with
    /// two drains of the probe since they came (or all, when `last`), are given up as unseen.
    /// Forgets old unclaimed requests.
    pub fn retry(&mut self, now: u64, last: bool) {
        for _ in 0..self.waiting.len() {
            let Some((w, s, came)) = self.waiting.pop_front() else {
                break;
            };
            let at = self.place(w, &s).expect("placed when it first came");
            if self.try_join(w, &s, at) {
                continue;
            }
            let waited = self.drains >= came + 2 && now > s.end + GRACE_NS;
            if last || waited {
                self.out[w].dirs[s.dir as usize].unseen += 1;
            } else {
                self.waiting.push_back((w, s, came));
            }
        }
        if now > self.last_sweep + KEEP_NS / 2 {
            self.last_sweep = now;
            let old = now.saturating_sub(KEEP_NS);
            self.requests.retain(|_, r| r.complete_ns >= old);
            self.more.retain(|_, held| {
                held.retain(|r| r.complete_ns >= old);
                !held.is_empty()
            });
        }
    }

    /// The request at `at` issued and completed inside `s`'s stamps, taken out.
    fn take(&mut self, s: &Stamp, at: DiskPos) -> Option<KernelRecord> {
        let inside = |r: &KernelRecord| r.issue_ns >= s.start && r.complete_ns <= s.end;
        if self.requests.get(&at).is_some_and(inside) {
            let r = self.requests.remove(&at);
            // A request waiting behind it takes its place.
            if let Some(next) = self.held_at(at, |_| true) {
                self.requests.insert(at, next);
            }
            return r;
        }
        self.held_at(at, inside)
    }

    /// A request held in `more` at `at` that `fits`, taken out.
    fn held_at(
        &mut self,
        at: DiskPos,
        fits: impl Fn(&KernelRecord) -> bool,
    ) -> Option<KernelRecord> {
        let held = self.more.get_mut(&at)?;
        let i = held.iter().position(fits)?;
        let r = held.swap_remove(i);
        if held.is_empty() {
            self.more.remove(&at);
        }
        Some(r)
    }

    #[cfg(test)]
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    fn place(&self, w: usize, s: &Stamp) -> Option<DiskPos> {
        self.places[w].get(s.file as usize)?.at(s.offset)
    }

    /// Joins `s` with a request at `at` inside its stamps, if one came: the I/O is split
    /// (or counted as split or merged, when the request's length is not the I/O's).
    fn try_join(&mut self, w: usize, s: &Stamp, at: DiskPos) -> bool {
        let Some(r) = self.take(s, at) else {
            return false;
        };
        let d = s.dir as usize;
        let split = &mut self.out[w].dirs[d];
        if r.bytes != s.len || r.done_bytes != r.bytes {
            split.split_or_merged += 1;
            return true;
        }
        let (submit, device) = (r.issue_ns - s.start, r.complete_ns - r.issue_ns);
        let completion = s.end - r.complete_ns;
        split.record(submit, device, completion);
        let nvme = (r.driver_done_ns >= r.issue_ns && r.driver_done_ns <= r.complete_ns)
            .then(|| r.driver_done_ns - r.issue_ns);
        if let Some(n) = nvme {
            split.record_nvme(n);
        }
        self.out[w].window(d, s.end, device, submit + completion);
        if let (Some(log), Some(start)) = (self.logs[w].as_mut(), self.out[w].start) {
            let ms = s.end.saturating_sub(start) as f64 / 1e6;
            log.line(
                ms,
                (s.dir, s.len, s.offset),
                [submit, device, completion],
                nvme,
            );
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
        Joiner::new(vec![vec![Placement::whole_disk(7 << 20)]], vec![0])
    }

    #[test]
    fn windows_hold_the_parts_of_the_ios_reaped_in_them() {
        let mut j = Joiner::new(vec![vec![Placement::whole_disk(7 << 20)]], vec![1_000_000]);
        let mark = Stamp {
            kind: Stamp::RESET,
            start: 10_000_000,
            ..Stamp::default()
        };
        j.stamp(0, mark);
        // One I/O in the first window, one in the third (the second had none).
        j.request(rec(0, 10_100_000, 10_500_000, 4096));
        j.stamp(0, io(0, 10_000_000, 10_600_000));
        j.request(rec(8, 12_200_000, 12_300_000, 4096));
        j.stamp(0, io(4096, 12_100_000, 12_400_000));
        j.out[0].close_windows();
        let w = &j.out[0].dirs[0].windows;
        assert_eq!(w.len(), 3, "{w:?}");
        assert_eq!((w[0].ios, w[1].ios, w[2].ios), (1, 0, 1));
        assert_eq!(w[0].device_p99, 400_000);
        assert_eq!(w[0].host_p99, 200_000);
        assert_eq!(w[2].device_p50, 100_000);
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
        // Late by the clock, but no drain since it came: its record may be in the next one.
        j.retry(40_000 + GRACE_NS + 1, false);
        assert_eq!(j.waiting(), 1);
        j.drained();
        j.drained();
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

    #[test]
    fn another_runs_requests_pile_up_by_place_and_age_out() {
        let mut j = joiner();
        // Another process reads the same few places over and over; none of it is ours.
        for i in 0..10_000u64 {
            j.request(rec((i % 8) * 8, i * 10, i * 10 + 5, 4096));
        }
        assert_eq!(j.more.len(), 8, "held by place");
        // Ours, at a place the other run keeps busy, joins the one inside its stamps.
        j.request(rec(8, 200_000, 200_400, 4096));
        j.stamp(0, io(4096, 199_000, 201_000));
        assert_eq!(j.out[0].dirs[0].joined, 1);
        assert_eq!(j.out[0].dirs[0].device.percentile_ticks(100.0), 400);
        // A sweep past KEEP_NS drops what nobody claimed.
        j.retry(KEEP_NS * 3, false);
        assert!(j.more.is_empty() && j.requests.is_empty());
    }
}
