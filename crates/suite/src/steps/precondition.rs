//! Step 2: put the target in a known state, as the reviews did before measuring: deallocate
//! the whole region (BLKDISCARD on a device, hole punching on a file), then write it
//! sequentially end to end N times (128 KiB, QD32), so every later read hits written data and
//! every later write lands on a drive that has been filled.

use std::os::fd::AsRawFd;

use std::time::Duration;

use iolab_engine::{EngineConfig, EngineKind};
use iolab_job::{Pattern, SizeSpec};
use iolab_report::format::bytes_binary;
use iolab_results::review::{Pass, PreconditionStep};
use iolab_sysinfo::guard::{mark_created, remark};
use iolab_sysinfo::nvme;
use iolab_sysinfo::{check_target_write, probe, Pin, PinError, SafetyError, TargetKind};

use super::{point_spec, Findings, Nums, StepOutput, Workload};
use crate::exec::{Executor, Point};
use crate::table::Table;
use crate::{ReviewConfig, Step, SuiteError};

/// `BLKDISCARD` = _IO(0x12, 119): discard a byte range [start, start + len).
const BLKDISCARD: u64 = 0x1277;

/// Deallocates `len` bytes from the start of a block device.
fn discard_device(pin: &Pin, len: u64) -> std::io::Result<()> {
    let f = pin.open(libc::O_WRONLY).map_err(io_error)?;
    let range: [u64; 2] = [0, len];
    // SAFETY: BLKDISCARD reads two u64 from the pointer; `range` outlives the call.
    if unsafe { libc::ioctl(f.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// An NVMe Format NVM done: what it erased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formatted {
    /// The line the purge says.
    pub text: String,
    /// The Secure Erase Setting the drive took: 1 user data erase, 2 cryptographic erase, 0
    /// none (the drive refused both; SNIA's PTS counts only an erase as a purge).
    pub ses: u8,
}

/// Format NVM on the namespace behind `pin` with a user data erase, else a cryptographic
/// erase, else none, decided on the opened descriptor (not an NVMe namespace: `None`).
/// `Some(Err)`: the drive or kernel refused it.
fn format_namespace(pin: &Pin) -> Option<Result<Formatted, String>> {
    let f = pin.open(libc::O_WRONLY).ok()?;
    let ns = nvme::identify(&f).ok()?;
    // A partition answers for its namespace, but the user named only the partition: a
    // Format would erase the others too.
    match is_partition(&f) {
        Ok(false) => {}
        Ok(true) => {
            return Some(Err(
                "the target is a partition; a Format erases the whole namespace".into(),
            ))
        }
        Err(e) => return Some(Err(format!("cannot tell whether it is a partition: {e}"))),
    }
    let how = |ses: u8| match ses {
        1 => "user data erase",
        2 => "cryptographic erase",
        _ => "no secure erase",
    };
    let mut last = None;
    for ses in [1u8, 2, 0] {
        match nvme::format_nvm(&f, &ns, ses) {
            Ok(()) => {
                return Some(Ok(Formatted {
                    text: format!(
                        "NVMe Format NVM of namespace {} ({}, LBA format {} kept)",
                        ns.nsid,
                        how(ses),
                        ns.format
                    ),
                    ses,
                }))
            }
            Err(e) => last = Some(e.to_string()),
        }
    }
    Some(Err(last.unwrap_or_default()))
}

/// Whether the opened block device is a partition (sysfs has `partition` for it).
fn is_partition(f: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let rdev = f.metadata()?.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    Ok(std::path::Path::new(&format!("/sys/dev/block/{major}:{minor}/partition")).exists())
}

/// A pinned open's refusal as an I/O error, for the step's note.
fn io_error(e: PinError) -> std::io::Error {
    match e {
        PinError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    }
}

/// Creates the file at `len` bytes if shorter (sparse, marked as iolab's when it creates it),
/// and punches a hole over it; always through what was checked (`pin`).
fn punch_file(pin: &mut Pin, len: u64) -> std::io::Result<()> {
    let created = pin.identity.is_none();
    let f = match created {
        true => pin.create(libc::O_WRONLY),
        false => pin.open(libc::O_WRONLY),
    }
    .map_err(io_error)?;
    if f.metadata()?.len() < len {
        f.set_len(len)?;
    }
    // SAFETY: plain syscall on an open fd.
    let r = unsafe {
        libc::fallocate(
            f.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            0,
            len as libc::off_t,
        )
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if created {
        mark_created(&f);
    } else {
        remark(&f);
    }
    Ok(())
}

/// The step as the review (and, for QD1, the main job) runs it.
pub struct Precondition;

impl super::ReviewStep for Precondition {
    fn step(&self) -> Step {
        Step::Precondition
    }

    fn points(&self, cfg: &ReviewConfig, _polled: bool) -> usize {
        cfg.precondition_passes as usize
    }

    /// Planned at 1 GB/s per pass; the bar shows the real rate.
    fn estimate(&self, cfg: &ReviewConfig, target_bytes: u64, polled: bool) -> (usize, Duration) {
        let secs = target_bytes as f64 / 1e9 * cfg.precondition_passes as f64;
        (self.points(cfg, polled), Duration::from_secs_f64(secs))
    }

    fn run(
        &self,
        cfg: &ReviewConfig,
        ex: &mut Executor<'_>,
        _findings: &mut Findings,
    ) -> Result<StepOutput, SuiteError> {
        run(cfg, ex)
    }
}

/// What deallocating a target did.
#[derive(Debug, Clone)]
pub struct Deallocated {
    /// The bytes deallocated from the start of the target.
    pub region: u64,
    pub device: bool,
    /// An NVMe Format asked for on an NVMe namespace: what it erased (then no BLKDISCARD
    /// was needed), or why it was not done (BLKDISCARD was used instead).
    pub nvme_format: Option<Result<Formatted, String>>,
    /// `None`: done; the error otherwise (the writes that follow still fill the region).
    pub error: Option<String>,
}

impl Deallocated {
    /// One line: what was deallocated and how, or why it could not be.
    pub fn text(&self) -> String {
        match &self.nvme_format {
            Some(Ok(f)) => format!("purged by {}", f.text),
            Some(Err(why)) => format!("{}; {why}", self.discard_text()),
            None => self.discard_text(),
        }
    }

    fn discard_text(&self) -> String {
        match &self.error {
            None => format!(
                "deallocated {} ({})",
                bytes_binary(self.region as f64),
                if self.device {
                    "BLKDISCARD"
                } else {
                    "hole punched"
                }
            ),
            Some(e) => format!("could not deallocate ({e}); the writes still fill the region"),
        }
    }
}

/// Deallocates `size` bytes of `target` (its whole size when `None`): BLKDISCARD on a block
/// device, a punched hole in a file (created sparse when missing, and then the user's
/// consent covers it). Deallocating destroys what the target holds: a device or an existing
/// file needs the user's consent. `Err`: the reason it may not or cannot be touched.
pub fn deallocate(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
) -> Result<Deallocated, String> {
    clear(target, size, consent, false)
}

/// As [`deallocate`], but an NVMe namespace is first purged by Format NVM with a user data
/// erase (its format kept), as SNIA's PTS asks; BLKDISCARD when the drive or the kernel
/// refuses it. A Format erases the whole namespace, beyond `size`.
pub fn purge(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
) -> Result<Deallocated, String> {
    clear(target, size, consent, true)
}

fn clear(
    target: &std::path::Path,
    size: Option<u64>,
    consent: &mut iolab_sysinfo::Consent,
    try_format: bool,
) -> Result<Deallocated, String> {
    let mut pin = Pin::any(target).map_err(|e| format!("{}: {e}", target.display()))?;
    let existing = probe(&pin.resolved).ok();
    let device = existing
        .as_ref()
        .is_some_and(|f| f.kind == TargetKind::BlockDevice);
    let region = match (size, &existing) {
        (Some(s), _) => s,
        (None, Some(f)) => f.size_bytes,
        (None, None) => {
            return Err(format!(
                "{} does not exist; give --size to have iolab create it",
                target.display()
            ))
        }
    };
    if let Some(f) = &existing {
        check_target_write(f, consent).map_err(|e| e.to_string())?;
    }
    // A device is claimed before anything touches it, and stays claimed until the discard or
    // the Format is done (the command's own claim, when it holds one, is this claim).
    let _claim = match &existing {
        Some(f) if device => Some(iolab_sysinfo::claim::exclusive(&pin).map_err(|e| {
            SafetyError {
                path: f.path.clone(),
                reason: iolab_sysinfo::claim::refusal(&e, f.device, consent.flag()),
            }
            .to_string()
        })?),
        _ => None,
    };
    let nvme_format = (device && try_format)
        .then(|| format_namespace(&pin))
        .flatten()
        .map(|r| r.map_err(|e| format!("no NVMe Format ({e}), BLKDISCARD instead")));
    let done = if device {
        match nvme_format {
            Some(Ok(_)) => Ok(()),
            _ => discard_device(&pin, region),
        }
    } else {
        let r = punch_file(&mut pin, region);
        if existing.is_none() && pin.identity.is_some() {
            consent.grant(&pin.resolved);
        }
        r
    };
    Ok(Deallocated {
        region,
        device,
        nvme_format,
        error: done.err().map(|e| e.to_string()),
    })
}

pub fn run(cfg: &ReviewConfig, ex: &mut Executor<'_>) -> Result<StepOutput, SuiteError> {
    let dealloc = match deallocate(&cfg.target, cfg.size, &mut ex.consent) {
        Ok(d) => d,
        Err(why) => return Ok(StepOutput::skipped(why)),
    };
    let region = dealloc.region;
    let dealloc_text = dealloc.text();
    let mut t = Table::new(["pass", "written", "MB/s", "mean latency"]);
    let mut passes = Vec::new();
    for pass in 1..=cfg.precondition_passes {
        let mut spec = point_spec(
            cfg,
            Step::Precondition,
            format!("precondition-pass-{pass}"),
            Workload {
                engine: EngineConfig::new(EngineKind::Libaio),
                pattern: Pattern::Sequential,
                read_percent: 0,
                bs: 128 << 10,
                iodepth: 32,
            },
        );
        spec.time_based = false;
        spec.runtime = None;
        spec.ramp_time = std::time::Duration::ZERO;
        spec.size = Some(SizeSpec::Bytes(region));
        // Throughput every 100 ms, so even a short pass draws its curve (the report's
        // throughput over time: where the drive's write cache runs out).
        spec.avg_ms = [100, 100];
        let label = format!("sequential write pass {pass}");
        match ex.run_point(Step::Precondition, &label, spec, Some(region))? {
            Point::Done(r) => {
                let n = Nums::of(&r, &ex.clock);
                let mbs = n.map_or(0.0, |n| n.bytes_per_sec / 1e6);
                t.row([
                    pass.to_string(),
                    bytes_binary(region as f64),
                    format!("{mbs:.0}"),
                    n.map_or("-".into(), |n| iolab_report::format::micros(n.mean_ns)),
                ]);
                passes.push(Pass {
                    pass,
                    bytes: region,
                    mb_per_sec: mbs,
                });
            }
            Point::Unavailable(why) => return Ok(StepOutput::skipped(why)),
        }
    }
    let text = format!(
        "{dealloc_text}; then {} full sequential write pass(es), 128 KiB at QD32 (libaio)\n\n{}",
        cfg.precondition_passes,
        t.render()
    );
    Ok(StepOutput::ok(
        serde_json::to_value(PreconditionStep {
            deallocated: dealloc.error.is_none(),
            deallocate_note: Some(dealloc_text),
            region_bytes: region,
            passes,
        })
        .unwrap_or_default(),
        text,
    ))
}
