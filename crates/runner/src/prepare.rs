//! Everything checked before the first I/O: the job's own settings, the target's existence,
//! the region's bounds, O_DIRECT alignment, write safety (through the guard, with the consent
//! the user gave for each destination), CPUs, and the limits of this machine (threads, buffer
//! memory). A job that fails any check stops the whole run with nothing written. Files that
//! are missing or too short are then laid out (filled with incompressible data, as fio does)
//! by [`lay_out_all`], after a free-space check, interruptibly, removing what it wrote when it
//! does not finish.

use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, FileExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use iolab_engine::{BufferPool, FileOp};
use iolab_job::{JobSpec, Region, SizeSpec};
use iolab_sysinfo::guard::mark_created;
use iolab_sysinfo::target::{disk_max_io_bytes, disk_zoned};
use iolab_sysinfo::{
    check_target_write, probe, probe_new_file, Consent, Pin, SafetyError, TargetFacts, TargetKind,
};

use crate::limits;
use crate::prepared::LayoutHow;
pub use crate::prepared::{Layout, PreparedJob};
use crate::RunError;

/// Checks every job, and what they ask of this machine together; writes nothing. `consent`
/// names the destinations the user allowed to be overwritten.
pub fn prepare(specs: &[JobSpec], consent: &Consent) -> Result<Vec<PreparedJob>, RunError> {
    crate::plan::wait_targets(specs).map_err(|(i, reason)| RunError::Unusable {
        job: specs[i].name.clone(),
        reason,
    })?;
    steady_consistent(specs)?;
    specs.iter().try_for_each(check_atomic)?;
    specs.iter().try_for_each(check_filetype)?;
    let mut jobs = Vec::with_capacity(specs.len());
    // Files an earlier job may create: a later job with allow_create=0 finds them there, as
    // in fio (iolab lays out every job's files before the first runs).
    let mut made = std::collections::HashSet::new();
    for s in specs {
        let found = !s.files.allow_create && s.per_file().all(|f| made.contains(&f.filename));
        let creatable = found.then(|| JobSpec {
            files: iolab_job::FileSetup {
                allow_create: true,
                ..s.files.clone()
            },
            ..s.clone()
        });
        jobs.push(prepare_one(creatable.as_ref().unwrap_or(s), consent)?);
        if s.files.allow_create {
            made.extend(s.per_file().map(|f| f.filename));
        }
    }
    limits::check(specs)?;
    limits::check_kernel_limits(specs)?;
    let cap = limits::log_cap_entries(specs);
    jobs.iter_mut().for_each(|j| j.log_cap_entries = cap);
    crate::claim::claim_written_devices(&mut jobs)?;
    crate::zbd::attach(&mut jobs)?;
    load_verify_states(&mut jobs)?;
    Ok(jobs)
}

/// fio 3.42's `filetype`: every file must be of the type the job says (fio takes it on trust
/// to skip a stat per file; iolab stats each file anyway, for the write guard).
fn check_filetype(spec: &JobSpec) -> Result<(), RunError> {
    use std::os::unix::fs::FileTypeExt;
    let Some(want) = spec.filetype else {
        return Ok(());
    };
    for f in spec.per_file() {
        let found = std::fs::metadata(&f.filename).ok().map(|m| m.file_type());
        let fits = match (want, found) {
            (iolab_job::FileType::File, None) => true,
            (iolab_job::FileType::File, Some(t)) => t.is_file(),
            (iolab_job::FileType::Block, Some(t)) => t.is_block_device(),
            (iolab_job::FileType::Char, Some(t)) => t.is_char_device(),
            (_, None) => false,
        };
        if !fits {
            return Err(RunError::Unusable {
                job: spec.name.clone(),
                reason: format!(
                    "filetype={}: {} is {}",
                    want.name(),
                    f.filename.display(),
                    match found {
                        None => "not there".to_string(),
                        Some(t) if t.is_file() => "a regular file".into(),
                        Some(t) if t.is_block_device() => "a block device".into(),
                        Some(t) if t.is_char_device() => "a character device".into(),
                        Some(_) => "neither a file nor a device".into(),
                    }
                ),
            });
        }
    }
    Ok(())
}

/// `atomic=1`: every write must be one the target takes with RWF_ATOMIC, checked against its
/// limits before anything is laid out or written (fio 3.42 lets the kernel fail each write
/// with EINVAL instead): O_DIRECT, and each write size a power of two within the target's
/// atomic write unit, at offsets aligned to it.
fn check_atomic(spec: &JobSpec) -> Result<(), RunError> {
    if !spec.engine.options.atomic {
        return Ok(());
    }
    let refuse = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("atomic=1: {reason}"),
    };
    if !spec.direct {
        return Err(refuse(
            "atomic writes need direct=1 (the kernel takes RWF_ATOMIC on O_DIRECT writes only)"
                .into(),
        ));
    }
    let d = iolab_engine::Direction::Write;
    let align = spec.block_align.unwrap_or(spec.min_block_size(d) as u64);
    for f in spec.per_file() {
        let limits = iolab_sysinfo::atomic::atomic_limits(&f.filename);
        for len in spec.block_sizes(d) {
            if let Some(why) = limits.refuses(len, align) {
                return Err(refuse(format!(
                    "{} cannot be written atomically: {why} ({})",
                    f.filename.display(),
                    limits.source
                )));
            }
        }
    }
    Ok(())
}

/// fio rejects a job whose steady-state options differ from another's in its reporting
/// group (its check runs over the group's threads, with or without `ss`).
fn steady_consistent(specs: &[JobSpec]) -> Result<(), RunError> {
    let groups = crate::plan::group_ids(specs);
    for (i, s) in specs.iter().enumerate().skip(1) {
        let first = groups.iter().position(|&g| g == groups[i]).unwrap_or(i);
        if specs[first].steady != s.steady {
            return Err(RunError::Unusable {
                job: s.name.clone(),
                reason: format!(
                    "its steady-state options (ss, ss_dur, ss_ramp) differ from job '{}' in \
                     the same reporting group; fio rejects this too",
                    specs[first].name
                ),
            });
        }
    }
    Ok(())
}

fn prepare_one(spec: &JobSpec, consent: &Consent) -> Result<PreparedJob, RunError> {
    if let Some(d) = spec.directory.as_ref().filter(|d| !d.is_dir()) {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "directory={}: not an existing directory (fio requires it to exist; missing \
                 directories in a file's name are created)",
                d.display()
            ),
        });
    }
    spec.validate().map_err(|source| RunError::Job {
        job: spec.name.clone(),
        source,
    })?;
    limits::check_cpus(spec)?;
    if spec.files.unlink_each_loop && spec.loops > 1 && spec.reads() && !spec.time_based {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: "unlink_each_loop with loops>1 on a job that reads: fio removes the files \
                     after the first loop, and the next finds nothing to read (fio's own job \
                     stops there with ENOENT); drop unlink_each_loop or loops"
                .into(),
        });
    }
    crate::numa::check(spec)?;
    if let Some(reason) = crate::worker::verify_unfit(spec) {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason,
        });
    }
    let filled = filled(spec)?;
    let spec = filled.as_ref().unwrap_or(spec);
    check_share_per_file(spec)?;
    let mut files = spec.per_file();
    let first = files.next().expect("a job has its first file");
    let (facts, region, pin) = prepare_file(&first, consent)?;
    let mut pins = vec![pin];
    let mut extra = Vec::new();
    for one in files {
        let (f, r, p) = prepare_file(&one, consent)?;
        extra.push((f, r));
        pins.push(p);
    }
    let donor = prepare_donor(spec, consent, &pins)?;
    Ok(PreparedJob {
        donor,
        spec: spec.clone(),
        facts,
        region,
        extra,
        log_cap_entries: usize::MAX,
        locks: crate::locks::FileLocks::new(spec.files.lock, pins.len()).map(std::sync::Arc::new),
        pins,
        claims: Vec::new(),
        zbd: None,
        saved_states: Vec::new(),
    })
}

/// Reads each copy's saved verify state (`verify_state_load`) up front, so a missing or
/// corrupt file is bad input before anything is written. fio names the file by the copy's
/// number over the whole run, counted from 0 in job order, numjobs copies in turn.
fn load_verify_states(jobs: &mut [PreparedJob]) -> Result<(), RunError> {
    let mut index = 0u32;
    for job in jobs {
        let copies = job.spec.numjobs;
        if let Some(v) = job.spec.verify.as_ref().filter(|v| v.load_state) {
            job.saved_states = (index..index + copies)
                .map(|i| {
                    let path =
                        iolab_verify::state::file_path(v.state_dir.as_deref(), &job.spec.name, i);
                    read_state(&path)
                        .map(|s| Some(Arc::new(s)))
                        .map_err(|why| RunError::Unusable {
                            job: job.spec.name.clone(),
                            reason: format!("verify_state_load: {}: {why}", path.display()),
                        })
                })
                .collect::<Result<_, _>>()?;
        }
        index += copies;
    }
    Ok(())
}

fn read_state(path: &Path) -> Result<iolab_verify::state::SavedState, String> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            "no such file; a write job with verify_state_save (fio's default) writes it when it \
             ends, in the same directory (or --aux-path)"
                .to_string()
        }
        _ => e.to_string(),
    })?;
    iolab_verify::state::SavedState::decode(&bytes).map_err(|e| e.to_string())
}

/// A size split over many files (`nrfiles`, `a:b:c`) must leave each file a block: said
/// with its cause, not as one file's tiny size.
fn check_share_per_file(spec: &JobSpec) -> Result<(), RunError> {
    let n = 1 + spec.extra_files.len() as u64;
    let Some(iolab_job::SizeSpec::Bytes(total)) = spec.size else {
        return Ok(());
    };
    let bs = spec
        .directions()
        .map(|d| spec.min_block_size(d) as u64)
        .min()
        .unwrap_or(4096);
    if n > 1 && total / n < bs {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "size={total} split over {n} files (nrfiles or a:b:c) leaves each {} bytes, \
                 less than one block (bs={bs}): give a larger size or fewer files",
                total / n
            ),
        });
    }
    Ok(())
}

/// e4defrag's donor, checked as a target that is written: ext4 swaps the job file's old
/// blocks into it, so an existing file must be iolab's or consented to, and a regular file.
/// A missing one is made during layout. Never one of the job's own files (`own`): ext4
/// cannot move a file's blocks into itself, and the job would read what it just swapped.
fn prepare_donor(spec: &JobSpec, consent: &Consent, own: &[Pin]) -> Result<Option<Pin>, RunError> {
    if spec.engine.kind != iolab_engine::EngineKind::E4defrag {
        return Ok(None);
    }
    let Some(path) = spec.engine.options.defrag.donor.as_ref() else {
        return Ok(None);
    };
    let pin = Pin::any(path).map_err(|e| RunError::Safety {
        job: spec.name.clone(),
        source: SafetyError {
            path: path.clone(),
            reason: e.to_string(),
        },
    })?;
    let same = |p: &Pin| {
        (pin.identity.is_some() && p.identity == pin.identity) || p.resolved == pin.resolved
    };
    if own.iter().any(same) {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "donorname={}: it is the job's own file; the donor must be another file on \
                 the same ext4 file system",
                path.display()
            ),
        });
    }
    if pin.identity.is_some() {
        let facts = probe(path).map_err(|source| RunError::Target {
            job: spec.name.clone(),
            source,
        })?;
        if facts.kind != TargetKind::File {
            return Err(RunError::Unusable {
                job: spec.name.clone(),
                reason: format!("donorname={}: not a regular file", path.display()),
            });
        }
        check_pinned_write(spec, &facts, &pin, consent)?;
    }
    Ok(Some(pin))
}

/// fio's `fill_device`: the job sized to fill its regular file's file system (see
/// [`limits::fill_size`]); `None` when it does not ask, when it gives a `size` (fio's
/// fixup_options() sizes a job to the device only where `size` is unset: with one, the job
/// moves `size` per loop and only stops early, cleanly, at ENOSPC), or when its target is
/// a device (whose size is known).
fn filled(spec: &JobSpec) -> Result<Option<JobSpec>, RunError> {
    if !spec.files.fill_device || !spec.extra_files.is_empty() || spec.size.is_some() {
        return Ok(None);
    }
    let existing = match std::fs::metadata(&spec.filename) {
        Ok(m) if !m.is_file() => return Ok(None),
        Ok(m) => m.len(),
        Err(_) => 0,
    };
    let bs = spec.max_block_size() as u64;
    let size =
        limits::fill_size(&spec.filename, existing, bs).map_err(|reason| RunError::Unusable {
            job: spec.name.clone(),
            reason,
        })?;
    Ok(Some(JobSpec {
        size: Some(SizeSpec::Bytes(size)),
        offset: SizeSpec::Bytes(0),
        ..spec.clone()
    }))
}

/// Resolves the job's file once; everything after judges and opens what this found.
fn pin_file(spec: &JobSpec) -> Result<Pin, RunError> {
    let path = &spec.filename;
    Pin::any(path).map_err(|e| RunError::Safety {
        job: spec.name.clone(),
        source: SafetyError {
            path: path.clone(),
            reason: e.to_string(),
        },
    })
}

/// The guard's verdict on the pinned file: judged at its resolved path (a symlink swapped
/// at the user's name after the pin changes nothing), said of the user's name. A target the
/// command claimed is judged by its name, which every lookup resolves to the claimed object.
fn check_pinned_write(
    spec: &JobSpec,
    facts: &TargetFacts,
    pin: &Pin,
    consent: &Consent,
) -> Result<(), RunError> {
    let judged = TargetFacts {
        path: match pin.is_anchored() {
            true => facts.path.clone(),
            false => pin.resolved.clone(),
        },
        ..facts.clone()
    };
    check_target_write(&judged, consent).map_err(|mut source| {
        if source.path == pin.resolved {
            source.path = facts.path.clone();
        }
        RunError::Safety {
            job: spec.name.clone(),
            source,
        }
    })
}

/// Checks one file of a job (`spec` as seen from that file).
fn prepare_file(spec: &JobSpec, consent: &Consent) -> Result<(TargetFacts, Region, Pin), RunError> {
    if spec.engine.kind.def().accepts.user_space_nvme {
        return prepare_namespace(spec, consent);
    }
    let job = || spec.name.clone();
    let path = &spec.filename;
    let exists = path.exists();
    let file_op = spec.engine.kind.def().file_op;
    let on_dirs = file_op.is_some_and(FileOp::on_directories);
    let mut facts = if on_dirs {
        facts_for_directory(spec)?
    } else if exists {
        probe(path).map_err(|source| RunError::Target { job: job(), source })?
    } else {
        facts_for_new_file(spec)?
    };
    let pin = pin_file(spec)?;
    let no_target = spec.engine.kind.def().accepts.nothing();
    if no_target && (!exists || on_dirs) {
        // An engine that does no I/O (null): its "file" is never created, only sized.
        if let Some(SizeSpec::Bytes(b)) = spec.size {
            facts.size_bytes = b.saturating_add(spec.offset.resolve(b));
        }
    }
    check_engine_takes(spec, &facts)?;
    if !no_target && spec.writes_data() && spec.zbd.is_none() {
        check_not_zoned(spec, &facts)?;
    }
    let growable = facts.kind == TargetKind::File;
    let appended = appended(spec, &facts);
    let spec = appended.as_ref().unwrap_or(spec);
    let region = Region::resolve(spec, facts.size_bytes, growable)
        .map_err(|source| RunError::Job { job: job(), source })?;
    if spec.direct || facts.kind == TargetKind::NvmeGeneric {
        check_alignment(spec, &facts, &region)?;
        if spec.engine.asks_polling() && facts.polled {
            check_polled_size(spec, &facts)?;
        }
    }
    // Writing, or laying out past an existing file's end, changes the target.
    let grows = exists && growable && region.span_end(spec, facts.size_bytes) > facts.size_bytes;
    // Removing a file the user had is as destructive as writing it (only regular files are
    // removed, as fio's unlink).
    let deletes = file_op.is_some_and(FileOp::deletes);
    let removes = exists && growable && (spec.files.unlinks() || deletes);
    // Removing is judged even for an engine that opens nothing (dirdelete, or unlink=1).
    if removes || (!no_target && (spec.writes_data() || grows)) {
        check_pinned_write(spec, &facts, &pin, consent)?;
    }
    Ok((facts, region, pin))
}

/// Checks a job of the spdk engine against its namespace: the name parses, SPDK attaches the
/// controller (this starts SPDK's environment, once per process), the job fits the namespace
/// and its blocks, and a write has the user's consent for that name. Nothing the kernel opens:
/// the pin only records the name.
fn prepare_namespace(
    spec: &JobSpec,
    consent: &Consent,
) -> Result<(TargetFacts, Region, Pin), RunError> {
    let unusable = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason,
    };
    let name = spec.filename.to_string_lossy();
    let (size_bytes, lbs) =
        iolab_engine::spdk::namespace_size(&name).map_err(|e| unusable(format!("{name}: {e}")))?;
    let facts = TargetFacts {
        path: spec.filename.clone(),
        kind: TargetKind::SpdkNvme,
        size_bytes,
        logical_block_size: lbs,
        device: (0, 0),
        disk_name: None,
        polled: true,
    };
    let region =
        Region::resolve(spec, facts.size_bytes, false).map_err(|source| RunError::Job {
            job: spec.name.clone(),
            source,
        })?;
    check_alignment(spec, &facts, &region)?;
    if spec.writes_data() {
        check_target_write(&facts, consent).map_err(|source| RunError::Safety {
            job: spec.name.clone(),
            source,
        })?;
    }
    Ok((facts, region, pin_file(spec)?))
}

/// fio's `file_append`: the job's I/O starts at the regular file's end (`offset` = its size);
/// `None` when the job does not append or the target is not a regular file.
fn appended(spec: &JobSpec, facts: &TargetFacts) -> Option<JobSpec> {
    (spec.files.append && facts.kind == TargetKind::File).then(|| JobSpec {
        offset: SizeSpec::Bytes(facts.size_bytes),
        ..spec.clone()
    })
}

/// Facts for a directory of fio 3.42's dir engines (dircreate, dirstat, dirdelete): those
/// of the file system it is (or will be) on. A name that is there and is not a directory is
/// refused: the engine would fail on it every time.
fn facts_for_directory(spec: &JobSpec) -> Result<TargetFacts, RunError> {
    let path = &spec.filename;
    let unusable = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason,
    };
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.is_dir() {
            return Err(unusable(format!(
                "{} exists and is not a directory (ioengine={} works on directories)",
                path.display(),
                spec.engine.kind
            )));
        }
    }
    probe_new_file(path).map_err(|e| unusable(format!("{}: {e}", path.display())))
}

/// Facts for a file iolab will create: it needs a byte size to be created with.
fn facts_for_new_file(spec: &JobSpec) -> Result<TargetFacts, RunError> {
    let path = &spec.filename;
    let unusable = |reason: String| RunError::Unusable {
        job: spec.name.clone(),
        reason,
    };
    match spec.size {
        None => Err(unusable(format!(
            "{} does not exist; give size= to have iolab create it",
            path.display()
        ))),
        Some(SizeSpec::Percent(_)) => Err(unusable(format!(
            "{} does not exist, so size= cannot be a percentage of it",
            path.display()
        ))),
        Some(SizeSpec::Bytes(_)) if !spec.files.allow_create => Err(unusable(format!(
            "{} does not exist, and allow_file_create=0 forbids creating it",
            path.display()
        ))),
        Some(SizeSpec::Bytes(_)) => {
            probe_new_file(path).map_err(|e| unusable(format!("cannot create it: {e}")))
        }
    }
}

fn check_alignment(spec: &JobSpec, facts: &TargetFacts, region: &Region) -> Result<(), RunError> {
    let lbs = facts.logical_block_size as u64;
    let what = format!(
        "the logical block size of {} ({lbs} bytes), which direct=1 (O_DIRECT) requires; \
         the kernel would fail every I/O with EINVAL",
        facts.path.display()
    );
    let fail = |setting: String| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("{setting} is not a multiple of {what}"),
    };
    for d in spec.directions() {
        for bs in spec.block_sizes(d) {
            if !(bs as u64).is_multiple_of(lbs) {
                return Err(fail(format!("bs={bs}")));
            }
        }
    }
    if let Some(a) = spec.block_align {
        if a % lbs != 0 {
            return Err(fail(format!("blockalign={a}")));
        }
    }
    if !region.start.is_multiple_of(lbs) {
        return Err(fail(format!("offset={}", region.start)));
    }
    Ok(())
}

/// An NVMe generic char device takes NVMe commands only (io_uring_cmd), and io_uring_cmd
/// sends nothing else, as fio refuses both ways.
fn check_engine_takes(spec: &JobSpec, facts: &TargetFacts) -> Result<(), RunError> {
    let def = spec.engine.kind.def();
    if def.accepts.nothing() || def.accepts.target(facts.kind) {
        return Ok(());
    }
    let path = facts.path.display();
    let reason = if facts.kind == TargetKind::NvmeGeneric {
        format!(
            "{path} is an NVMe generic char device: it takes NVMe commands only, through \
             --ioengine=io_uring_cmd --cmd_type=nvme, not {}",
            def.name
        )
    } else {
        let is = match facts.kind {
            TargetKind::File => "a regular file",
            TargetKind::BlockDevice => "a block device",
            TargetKind::NvmeGeneric => "an NVMe generic char device",
            TargetKind::SpdkNvme => "an NVMe controller for SPDK",
        };
        let wants = match def.accepts {
            a if a.nvme_generic && !a.files && !a.block_devices => {
                "sends NVMe commands: it needs an NVMe generic char device (/dev/ngXnY)"
            }
            a if a.files && !a.block_devices => "works on regular files only",
            a if a.block_devices && !a.files => "works on block devices only",
            _ => "cannot take this kind of target",
        };
        format!("{} {wants}, and {path} is {is}", def.name)
    };
    Err(RunError::Unusable {
        job: spec.name.clone(),
        reason,
    })
}

/// A host-managed zoned disk takes writes only in order at each zone's write pointer; any
/// other write fails with a bare EIO. fio and iolab write there with `zonemode=zbd` (write
/// pointers, zone resets, open-zone limits); without it, refused with the reason.
fn check_not_zoned(spec: &JobSpec, facts: &TargetFacts) -> Result<(), RunError> {
    let Some(disk) = facts.disk_name.as_deref() else {
        return Ok(());
    };
    match disk_zoned(disk).as_deref() {
        Some("host-managed") => Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "{disk} is a host-managed zoned device: it takes writes only in order at each \
                 zone's write pointer; add zonemode=zbd to the job, as fio needs too"
            ),
        }),
        _ => Ok(()),
    }
}

/// Polled I/O larger than the disk takes in one request is split by the block layer, and
/// split polled I/O can wait for ever (Linux 6.1 with an NVMe poll queue never completes a
/// 1 MiB IOPOLL read, and the process cannot be killed; fio hangs the same way), so it is
/// refused up front.
fn check_polled_size(spec: &JobSpec, facts: &TargetFacts) -> Result<(), RunError> {
    let Some(max) = facts.disk_name.as_deref().and_then(disk_max_io_bytes) else {
        return Ok(());
    };
    let bs = spec.max_block_size() as u64;
    if bs <= max {
        return Ok(());
    }
    Err(RunError::Unusable {
        job: spec.name.clone(),
        reason: format!(
            "bs={bs} with --hipri: polled I/O larger than {} takes in one request \
             (queue/max_sectors_kb={}) is split by the block layer, and split polled I/O can \
             hang for good; use bs<={}k or drop --hipri",
            facts.path.display(),
            max / 1024,
            max / 1024
        ),
    })
}

/// The files the prepared jobs need grown, each once, to the furthest end any job uses.
pub fn layouts_needed(jobs: &[PreparedJob]) -> Vec<Layout> {
    // By where each name resolved: `f` and `./f` are one file, laid out once.
    let mut ends: BTreeMap<&Path, Layout> = BTreeMap::new();
    for (spec, ((facts, region), pin)) in jobs
        .iter()
        .filter(|j| !j.spec.engine.kind.def().accepts.nothing())
        .flat_map(|j| j.files().zip(&j.pins).map(move |f| (&j.spec, f)))
        .filter(|(_, ((f, _), _))| f.kind == TargetKind::File)
    {
        let how = LayoutHow::for_job(spec, pin.identity.is_some());
        let e = ends.entry(&pin.resolved).or_insert_with(|| Layout {
            path: facts.path.clone(),
            from_bytes: facts.size_bytes,
            to_bytes: facts.size_bytes,
            pin: pin.clone(),
            how,
        });
        e.to_bytes = e.to_bytes.max(region.span_end(spec, facts.size_bytes));
        e.how = e.how.max(how);
    }
    for (j, pin) in jobs
        .iter()
        .filter_map(|j| Some((j, j.donor.as_ref()?)))
        .filter(|(_, p)| p.identity.is_none())
    {
        // fio reserves the donor's blocks over the file at the job's start, unless inplace.
        let (how, to_bytes) = match j.spec.engine.options.defrag.inplace {
            true => (LayoutHow::Create, 0),
            false => (
                LayoutHow::Reserve(iolab_job::Fallocate::Native),
                j.region.span_end(&j.spec, j.facts.size_bytes),
            ),
        };
        let e = ends.entry(&pin.resolved).or_insert_with(|| Layout {
            path: j
                .spec
                .engine
                .options
                .defrag
                .donor
                .clone()
                .unwrap_or_default(),
            from_bytes: 0,
            to_bytes,
            pin: pin.clone(),
            how,
        });
        e.to_bytes = e.to_bytes.max(to_bytes);
        e.how = e.how.max(how);
    }
    ends.into_values()
        .filter(|l| {
            l.to_bytes > l.from_bytes || (l.pin.identity.is_none() && l.how == LayoutHow::Create)
        })
        .collect()
}

/// Lays out every file `layouts` names, after checking that they fit in their filesystems'
/// free space (leaving 5 % of each free). SIGINT/SIGTERM stop it (handlers are installed
/// here); a file it does not finish is removed when it created it, or cut back to its old
/// length, so an interrupted or failed layout leaves nothing behind. `announce` is told of
/// each file before it starts.
pub fn lay_out_all(
    layouts: &[Layout],
    jobs: &mut [PreparedJob],
    mut announce: impl FnMut(&Layout),
) -> Result<(), RunError> {
    limits::check_free_space(layouts, jobs)?;
    crate::signal::install();
    for l in layouts {
        announce(l);
        lay_out(l, jobs)?;
    }
    Ok(())
}

/// Creates or extends the file with incompressible data and syncs it, then refreshes the
/// size in the jobs' facts (and, for a file it created, the identity in their pins). Undoes
/// itself when it does not finish.
fn lay_out(layout: &Layout, jobs: &mut [PreparedJob]) -> Result<(), RunError> {
    let job = jobs
        .iter()
        .find(|j| {
            let mut pins = j.pins.iter().chain(&j.donor);
            pins.any(|p| p.resolved == layout.pin.resolved)
        })
        .map(|j| j.spec.name.clone())
        .unwrap_or_default();
    let mut pin = layout.pin.clone();
    let created = pin.identity.is_none();
    let new_dirs = make_parent_dirs(&pin.resolved);
    let result = match &new_dirs {
        Ok(_) => match layout.how {
            LayoutHow::Fill { fsync } => fill(layout, &mut pin, fsync),
            LayoutHow::Reserve(mode) => reserve(layout, &mut pin, mode),
            LayoutHow::Create => create_empty(&mut pin).map_err(Some),
        },
        Err(e) => Err(Some(std::io::Error::new(
            e.kind(),
            format!("creating its directory: {e}"),
        ))),
    };
    if let Err(e) = result {
        undo_layout(layout, &pin, created, new_dirs.unwrap_or_default());
        return Err(match e {
            None => RunError::Interrupted,
            Some(source) => RunError::Layout {
                job,
                path: layout.path.clone(),
                source,
            },
        });
    }
    for j in jobs.iter_mut() {
        let at: Vec<bool> = j
            .pins
            .iter()
            .map(|p| p.resolved == layout.pin.resolved)
            .collect();
        for (f, _) in j.files_mut().zip(&at).filter(|(_, here)| **here) {
            f.size_bytes = layout.to_bytes;
        }
        for (p, _) in j.pins.iter_mut().zip(&at).filter(|(_, here)| **here) {
            *p = pin.clone();
        }
        if let Some(d) = j
            .donor
            .as_mut()
            .filter(|d| d.resolved == layout.pin.resolved)
        {
            *d = pin.clone();
        }
    }
    Ok(())
}

/// Leaves the file as it was: gone when iolab made it (and its name still leads to what iolab
/// made), its old length otherwise; and the directories made for it gone too (only while
/// empty).
fn undo_layout(layout: &Layout, pin: &Pin, created: bool, new_dirs: Vec<PathBuf>) {
    if created {
        if pin.still_there() {
            let _ = std::fs::remove_file(&pin.resolved);
        }
        for d in new_dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    } else if let Ok(f) = pin.open(libc::O_WRONLY) {
        let _ = f.set_len(layout.from_bytes);
    }
}

/// Creates the missing directories above `path` (fio's `mkdir -p` for a new file's
/// directory); the ones it made, outermost first.
fn make_parent_dirs(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(Vec::new());
    };
    let mut missing: Vec<PathBuf> = parent
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    if let Some(first) = missing.first() {
        // fio makes them private (0700).
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", first.display())))?;
    }
    Ok(missing)
}

/// Opens the pinned file for laying out: created exclusively when new.
fn open_for_layout(pin: &mut Pin) -> std::io::Result<std::fs::File> {
    let pinned = match pin.identity {
        None => pin.create(libc::O_WRONLY),
        Some(_) => pin.open(libc::O_WRONLY),
    };
    pinned.map_err(|e| match e {
        iolab_sysinfo::PinError::Io(e) => e,
        other => std::io::Error::other(other.to_string()),
    })
}

/// Makes the new file, empty (`create_on_open`), marked as iolab's.
fn create_empty(pin: &mut Pin) -> std::io::Result<()> {
    let f = open_for_layout(pin)?;
    mark_created(&f);
    Ok(())
}

/// Makes the new file and reserves its space as `fallocate` says, writing no data (fio's
/// layout for a job that only writes); `native` gives up quietly where the file system
/// cannot, as fio's does.
fn reserve(
    layout: &Layout,
    pin: &mut Pin,
    mode: iolab_job::Fallocate,
) -> Result<(), Option<std::io::Error>> {
    use iolab_job::Fallocate;
    let f = open_for_layout(pin)?;
    let len = (layout.to_bytes - layout.from_bytes) as libc::off_t;
    let from = layout.from_bytes as libc::off_t;
    let fd = f.as_raw_fd();
    // SAFETY: fallocate/posix_fallocate on a descriptor we own.
    let failed = match mode {
        Fallocate::None => None,
        Fallocate::Truncate => f.set_len(layout.to_bytes).err(),
        Fallocate::Native | Fallocate::Keep => {
            let flags = match mode {
                Fallocate::Keep => libc::FALLOC_FL_KEEP_SIZE,
                _ => 0,
            };
            let r = unsafe { libc::fallocate(fd, flags, from, len) };
            let e = (r != 0).then(std::io::Error::last_os_error);
            // native falls back to nothing where it is not supported.
            e.filter(|e| mode == Fallocate::Keep || e.raw_os_error() != Some(libc::EOPNOTSUPP))
        }
        Fallocate::Posix => match unsafe { libc::posix_fallocate(fd, from, len) } {
            0 => None,
            errno => Some(std::io::Error::from_raw_os_error(errno)),
        },
    };
    if let Some(e) = failed {
        return Err(Some(std::io::Error::new(
            e.kind(),
            format!("fallocate={mode:?}: {e}").to_lowercase(),
        )));
    }
    mark_created(&f);
    Ok(())
}

/// Writes the layout's bytes into the pinned file (created exclusively when new, and marked
/// as iolab's), synced when `fsync`; `Err(None)` when a signal stopped it.
fn fill(layout: &Layout, pin: &mut Pin, fsync: bool) -> Result<(), Option<std::io::Error>> {
    const CHUNK: usize = 1 << 20;
    let f = open_for_layout(pin)?;
    let pool = BufferPool::new(1, CHUNK, 0x10ad);
    // SAFETY: slot 0 of the pool is CHUNK bytes, alive for this function.
    let data = unsafe { std::slice::from_raw_parts(pool.slot_ptr(0), CHUNK) };
    let stop = crate::signal::stop_flag();
    let mut off = layout.from_bytes;
    while off < layout.to_bytes {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(None);
        }
        let n = ((layout.to_bytes - off) as usize).min(CHUNK);
        // Vary each chunk so compressing or deduplicating devices cannot fold them.
        let salt = (off / CHUNK as u64).to_le_bytes();
        f.write_all_at(&salt, off)?;
        f.write_all_at(&data[salt.len().min(n)..n], off + salt.len().min(n) as u64)?;
        off += n as u64;
    }
    if fsync {
        f.sync_all()?;
    }
    // Marked as iolab's as it is now: a later change by anyone else unmarks it.
    mark_created(&f);
    Ok(())
}
