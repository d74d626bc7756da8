//! The drives' health logs around a run: read once before the first I/O, every
//! `RunOptions::health_every` while the jobs run (a low-rate thread of its own, never on the
//! hot path), and once after the last I/O. Only NVMe drives have one; every other target's
//! drive is listed with the reason, so the run says there is none rather than nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use iolab_engine::EngineKind;
use iolab_results::{DriveHealth, HealthSample, TargetKind};
use iolab_sysinfo::health as smart;

use crate::PreparedJob;

/// The drives of a run and the thread sampling them.
pub struct HealthWatch {
    start: Instant,
    drives: Vec<(DriveHealth, Option<PathBuf>)>,
    sampler: Option<Sampler>,
}

/// The sampling thread: dropping `stop` ends it; it hands back each controller's readings.
struct Sampler {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<Vec<Vec<HealthSample>>>,
}

/// The drive behind a job's file: its controller, or why it has no health log. `None` for
/// jobs that touch no drive the kernel drives (null, cpuio, exec; SPDK owns its controller).
fn drive_of(
    kind: EngineKind,
    facts: &iolab_results::TargetFacts,
) -> Option<(String, Result<PathBuf, String>)> {
    if matches!(
        kind,
        EngineKind::Null | EngineKind::Cpuio | EngineKind::Exec | EngineKind::Spdk
    ) {
        return None;
    }
    if let Some(disk) = &facts.disk_name {
        return Some((disk.clone(), smart::controller_of(disk)));
    }
    let name = facts.path.to_string_lossy().into_owned();
    if facts.kind == TargetKind::NvmeGeneric {
        let generic = facts.path.file_name()?.to_string_lossy().into_owned();
        return Some((name, smart::controller_of_generic(&generic)));
    }
    Some((name.clone(), Err(format!("{name} is on no block device"))))
}

/// A drive's first reading, or why it has none.
fn first_reading(
    disk: &str,
    controller: Result<PathBuf, String>,
    start: Instant,
) -> (DriveHealth, Option<PathBuf>) {
    let c = match controller {
        Ok(c) => c,
        Err(why) => return (DriveHealth::none(disk, why), None),
    };
    let name = c
        .file_name()
        .map_or(disk.to_string(), |n| n.to_string_lossy().into_owned());
    match reading(&c, start) {
        Ok(s) => (
            DriveHealth {
                drive: name,
                samples: vec![s],
                ..DriveHealth::default()
            },
            Some(c),
        ),
        Err(e) => (
            DriveHealth::none(&name, format!("its health log could not be read: {e}")),
            None,
        ),
    }
}

fn reading(controller: &std::path::Path, start: Instant) -> std::io::Result<HealthSample> {
    let mut s = smart::read(controller)?;
    s.at_ms = start.elapsed().as_millis() as u64;
    Ok(s)
}

impl HealthWatch {
    /// Reads every drive of `jobs` once and, with `every`, starts sampling them.
    pub(crate) fn start(jobs: &[PreparedJob], every: Option<Duration>) -> HealthWatch {
        let disks = jobs.iter().flat_map(|job| {
            job.files()
                .filter_map(move |(facts, _)| drive_of(job.spec.engine.kind, facts))
        });
        HealthWatch::of_disks(disks, every)
    }

    /// The drive of whole disk `disk` (`nvme0n1`, or a disk without a log, which says so),
    /// for work the runner does not run (db_bench).
    pub fn of_disk(disk: &str, every: Option<Duration>) -> HealthWatch {
        let controller = smart::controller_of(disk);
        HealthWatch::of_disks([(disk.to_string(), controller)], every)
    }

    /// Reads each disk's drive once (a drive with two namespaces or files once) and, with
    /// `every`, starts sampling them.
    fn of_disks(
        disks: impl IntoIterator<Item = (String, Result<PathBuf, String>)>,
        every: Option<Duration>,
    ) -> HealthWatch {
        let start = Instant::now();
        let mut by_drive: BTreeMap<String, (DriveHealth, Option<PathBuf>)> = BTreeMap::new();
        for (disk, controller) in disks {
            let key = match &controller {
                Ok(c) => c.to_string_lossy().into_owned(),
                Err(_) => disk.clone(),
            };
            let entry = by_drive
                .entry(key)
                .or_insert_with(|| first_reading(&disk, controller, start));
            if !entry.0.disks.contains(&disk) {
                entry.0.disks.push(disk);
            }
        }
        let drives: Vec<_> = by_drive.into_values().collect();
        let controllers: Vec<PathBuf> = drives.iter().filter_map(|(_, c)| c.clone()).collect();
        let sampler = every
            .filter(|_| !controllers.is_empty())
            .and_then(|every| spawn_sampler(controllers, every, start));
        HealthWatch {
            start,
            drives,
            sampler,
        }
    }

    /// Stops the sampling, reads every drive once more and hands back what was read.
    pub fn finish(self) -> Vec<DriveHealth> {
        let mut sampled = match self.sampler {
            Some(Sampler { stop, thread }) => {
                drop(stop);
                thread.join().unwrap_or_default()
            }
            None => Vec::new(),
        }
        .into_iter();
        let mut out = Vec::new();
        for (mut health, controller) in self.drives {
            if let Some(c) = controller {
                health.samples.extend(sampled.next().unwrap_or_default());
                match reading(&c, self.start) {
                    Ok(s) => health.samples.push(s),
                    Err(e) => health.after_failed = Some(e.to_string()),
                }
            }
            out.push(health);
        }
        out
    }
}

/// A thread reading each controller every `every` until its sender is dropped; a reading
/// that fails is skipped (the one after the run says whether the drive still answers).
/// `None` when no thread could be had: the readings before and after still are.
fn spawn_sampler(controllers: Vec<PathBuf>, every: Duration, start: Instant) -> Option<Sampler> {
    let (tx, rx) = mpsc::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("iolab-health".into())
        .spawn(move || {
            let mut samples = vec![Vec::new(); controllers.len()];
            while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(every) {
                for (c, out) in controllers.iter().zip(&mut samples) {
                    if let Ok(s) = reading(c, start) {
                        out.push(s);
                    }
                }
            }
            samples
        })
        .ok()?;
    Some(Sampler { stop: tx, thread })
}
