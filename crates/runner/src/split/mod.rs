//! iolab's latency split (`lat_split`), the runner's side: around a phase, the kernel's
//! probe ([`iolab_trace::Probe`]) watches the jobs' disks, each worker pushes its I/Os' own
//! stamps through a [`SplitTap`], and a thread of its own joins the two ([`join`]) while the
//! phase runs, so memory stays bounded however long it runs and no worker waits for it.
//! When the phase is over the split goes into each worker's results, or a one-line note
//! says why it could not be had.

mod join;
mod log;
mod tap;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use iolab_engine::Direction;
use iolab_trace::{Placement, Probe, Unavailable};

use crate::worker::WorkerResult;
use crate::PreparedJob;
use join::{Joiner, WorkerSplit};
pub(crate) use tap::{SplitTap, Stamp};

/// Stamps a worker's ring holds: 64 Ki × 32 bytes, a quarter second of I/O at 250 k IOPS
/// while the joiner drains it every couple of milliseconds.
const RING_STAMPS: usize = 1 << 16;
/// How often the joiner drains the probe and the workers' rings.
const DRAIN_EVERY: std::time::Duration = std::time::Duration::from_millis(2);

/// A tap waiting for its worker to take it.
pub(crate) type TapSlot = Mutex<Option<SplitTap>>;

/// One phase's split: taps for the workers that want it, the joining thread, and what to
/// say for those that cannot have it.
#[derive(Default)]
pub(crate) struct SplitSession {
    /// Per worker of the phase.
    slots: Vec<Option<TapSlot>>,
    /// Per worker: its place in the joiner, and its dropped stamps.
    joined: Vec<Option<(usize, tap::Dropped)>>,
    /// Per worker: why its job has no split.
    notes: Vec<Option<String>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(Joiner, u64)>>,
}

impl SplitSession {
    /// Sets the split up for the phase's `workers` (job index, copy) whose job asks for it;
    /// the phase's first copy is fio's job number `first_number` (split logs are named by it).
    pub fn start(
        jobs: &[PreparedJob],
        workers: &[(usize, u32)],
        first_number: u32,
    ) -> SplitSession {
        let n = workers.len();
        let mut s = SplitSession {
            slots: (0..n).map(|_| None).collect(),
            joined: vec![None; n],
            notes: vec![None; n],
            ..SplitSession::default()
        };
        let (joining, places, windows) = s.placed(jobs, workers);
        if joining.is_empty() {
            return s;
        }
        let mut devs: Vec<u32> = places.iter().flatten().map(Placement::dev).collect();
        devs.sort_unstable();
        devs.dedup();
        let probe = match Probe::attach(&devs, &iolab_trace::btf_path()) {
            Ok(p) => p,
            Err(why) => {
                for &w in &joining {
                    s.notes[w] = Some(off(&why));
                }
                return s;
            }
        };
        let mut joiner = Joiner::new(places, windows);
        s.open_logs(jobs, workers, first_number, &joining, &mut joiner);
        let rxs = s.taps(&joining);
        let stop = s.stop.clone();
        let spawned = std::thread::Builder::new()
            .name("iolab-split".into())
            .spawn(move || join_loop(probe, rxs, joiner, &stop));
        match spawned {
            Ok(h) => s.thread = Some(h),
            Err(e) => {
                for &w in &joining {
                    s.slots[w] = None;
                    s.joined[w] = None;
                    s.notes[w] = Some(format!("lat_split: off: no thread to join on: {e}"));
                }
            }
        }
        s
    }

    /// The workers whose job splits and whose files could be placed on their disks, with
    /// those places and each one's latency window (ns); a note for each that could not.
    fn placed(
        &mut self,
        jobs: &[PreparedJob],
        workers: &[(usize, u32)],
    ) -> (Vec<usize>, Vec<Vec<Placement>>, Vec<u64>) {
        let (mut joining, mut places, mut windows) = (Vec::new(), Vec::new(), Vec::new());
        for (w, &(i, _)) in workers.iter().enumerate() {
            let job = &jobs[i];
            if !job.spec.lat_split {
                continue;
            }
            match place_job(job) {
                Ok(p) => {
                    joining.push(w);
                    places.push(p);
                    let window = job.spec.latency_window.unwrap_or_default();
                    windows.push(window.as_nanos() as u64);
                }
                Err(why) => self.notes[w] = Some(off(&why)),
            }
        }
        (joining, places, windows)
    }

    /// Opens the split log of each joining worker whose job writes one, through the write
    /// guard with every target of the run protected; a note for one that could not be.
    fn open_logs(
        &mut self,
        jobs: &[PreparedJob],
        workers: &[(usize, u32)],
        first_number: u32,
        joining: &[usize],
        joiner: &mut Joiner,
    ) {
        let loggers = joining
            .iter()
            .filter(|&&w| jobs[workers[w].0].spec.split_log.is_some())
            .count() as u64;
        let targets: Vec<&std::path::Path> = jobs
            .iter()
            .flat_map(|j| std::iter::once(&j.spec.filename).chain(&j.spec.extra_files))
            .map(|p| p.as_path())
            .collect();
        for (k, &w) in joining.iter().enumerate() {
            let Some(prefix) = &jobs[workers[w].0].spec.split_log else {
                continue;
            };
            let path = log::path(prefix, first_number + w as u32);
            let cap = log::LOG_MAX_LINES / loggers.max(1);
            match log::SplitLog::open(path, cap, &targets) {
                Ok(l) => joiner.logs[k] = Some(l),
                Err(why) => self.notes[w] = Some(format!("split log: not written: {why}")),
            }
        }
    }

    /// A tap for each joining worker; the joiner's ends, in the joiner's order.
    fn taps(&mut self, joining: &[usize]) -> Vec<rtrb::Consumer<Stamp>> {
        let mut rxs = Vec::new();
        for (k, &w) in joining.iter().enumerate() {
            let (tx, rx) = rtrb::RingBuffer::new(RING_STAMPS);
            let dropped: tap::Dropped = Arc::new(Default::default());
            self.slots[w] = Some(Mutex::new(Some(SplitTap::new(tx, dropped.clone()))));
            self.joined[w] = Some((k, dropped));
            rxs.push(rx);
        }
        rxs
    }

    /// Worker `w`'s tap, if its job splits.
    pub fn slot(&self, w: usize) -> Option<&TapSlot> {
        self.slots.get(w)?.as_ref()
    }

    /// After the phase's workers have ended: the split into each one's results.
    pub fn finish(mut self, results: &mut [Result<Option<WorkerResult>, crate::RunError>]) {
        let joined = self.thread.take().map(|h| {
            self.stop.store(true, Ordering::Release);
            h.join()
        });
        let (mut joiner, lost) = match joined {
            Some(Ok(j)) => (Some(j.0), j.1),
            Some(Err(_)) => (None, 0),
            None => (None, 0),
        };
        for (w, res) in results.iter_mut().enumerate() {
            let Ok(Some(r)) = res else { continue };
            if let Some(note) = self.notes[w].take() {
                r.notes.push(note);
            }
            let Some((k, dropped)) = &self.joined[w] else {
                continue;
            };
            match joiner.as_mut() {
                Some(j) => {
                    give(r, &j.out[*k], dropped, lost);
                    if let Some(log) = j.logs[*k].take() {
                        r.notes.push(log.finish());
                    }
                }
                None => r
                    .notes
                    .push("lat_split: off: the joining thread failed".into()),
            }
        }
    }
}

/// The one-line note of a split that could not be had.
fn off(why: &Unavailable) -> String {
    format!("lat_split: off: {why}; the run went on without it")
}

/// Where each of a job's files sits on its disk.
fn place_job(job: &PreparedJob) -> Result<Vec<Placement>, Unavailable> {
    if job.spec.engine.kind.def().accepts.nothing() {
        let name = job.spec.engine.kind.def().name;
        return Err(Unavailable::NoDevice(format!("the {name} engine's I/O")));
    }
    let names = std::iter::once(&job.spec.filename).chain(&job.spec.extra_files);
    job.pins
        .iter()
        .zip(names)
        .map(|(pin, name)| {
            let name = name.display().to_string();
            let file = pin
                .open(libc::O_RDONLY | libc::O_NONBLOCK)
                .map_err(|e| Unavailable::NoMap(name.clone(), e.to_string()))?;
            Placement::of(&file, &name)
        })
        .collect()
}

/// The joiner's thread: drains the probe and the workers' rings every [`DRAIN_EVERY`]
/// until told to stop, then once more (every stamp is in by then, and every request of
/// theirs completed before it was reaped). Returns the joiner and the requests the probe
/// had no room for.
fn join_loop(
    mut probe: Probe,
    mut rxs: Vec<rtrb::Consumer<Stamp>>,
    mut j: Joiner,
    stop: &AtomicBool,
) -> (Joiner, u64) {
    loop {
        let last = stop.load(Ordering::Acquire);
        probe.drain(|r| j.request(r));
        j.drained();
        for (k, rx) in rxs.iter_mut().enumerate() {
            while let Ok(s) = rx.pop() {
                j.stamp(k, s);
            }
        }
        let now = iolab_stats::clock::monotonic_ns();
        j.retry(now, false);
        if last {
            j.retry(now, true);
            j.out.iter_mut().for_each(WorkerSplit::close_windows);
            return (j, probe.lost());
        }
        std::thread::sleep(DRAIN_EVERY);
    }
}

/// A worker's split into its results, with a note for each direction too little of whose
/// I/O was joined to stand for it.
fn give(r: &mut WorkerResult, split: &WorkerSplit, dropped: &tap::Dropped, lost: u64) {
    for d in Direction::ALL {
        let Some(dir) = r.dirs[d.index()].as_mut() else {
            continue;
        };
        let mut s = split.dirs[d.index()].clone();
        // The worker's own latency windows end with the last whole one; so do the split's.
        s.windows.truncate(dir.windows.len());
        let dropped = dropped[d.index()].load(Ordering::Relaxed);
        s.issued += dropped;
        s.not_recorded = dropped;
        if s.issued > 0 && s.joined_share() < 0.99 {
            r.notes.push(format!(
                "lat_split: {}: {} of {} I/Os joined ({} split or merged by the block layer, \
                 {} not on the disk, {} with no request seen, {} not recorded, {} requests \
                 lost by the probe)",
                d.name(),
                s.joined,
                s.issued,
                s.split_or_merged,
                s.unmapped,
                s.unseen,
                dropped,
                lost
            ));
        }
        dir.lat_split = Some(s);
    }
}
