//! Setting a worker up before its loop: CPU pinning, opening the job's files as the job
//! asks (direct or buffered, read or read-write), the page-cache advice and invalidation
//! fio gives a file it opens, and the buffer pool.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};

use iolab_engine::{open_targets, AccessHint, BufferPool, Direction, OpenHow};
use iolab_job::{JobSpec, Region};
use iolab_sysinfo::{TargetFacts, TargetKind};

use crate::{PreparedJob, RunError};

/// Gives the calling thread the job's I/O priority and nice value (fio's `prio`,
/// `prioclass`, `nice`), before its files are opened, as fio does.
pub(super) fn prioritize(spec: &JobSpec) -> Result<(), RunError> {
    let failed = |option: &str| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("{option}: {}", std::io::Error::last_os_error()),
    };
    if let Some(value) = spec.priority.ioprio() {
        const IOPRIO_WHO_PROCESS: libc::c_long = 1;
        // SAFETY: ioprio_set takes integers only; who 0 is the calling thread.
        let r = unsafe {
            libc::syscall(
                libc::SYS_ioprio_set,
                IOPRIO_WHO_PROCESS,
                0,
                value as libc::c_long,
            )
        };
        if r == -1 {
            return Err(failed("prio/prioclass (ioprio_set)"));
        }
    }
    if let Some(name) = spec.comm.as_deref() {
        // fio 3.42's `comm`: the thread's name (the kernel keeps 15 bytes and the NUL).
        let name: Vec<u8> = name
            .bytes()
            .filter(|b| *b != 0)
            .take(15)
            .chain([0])
            .collect();
        // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
        let r = unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
        if r == -1 {
            return Err(failed("comm (prctl PR_SET_NAME)"));
        }
    }
    if spec.priority.nice != 0 {
        // SAFETY: plain system call; on Linux it sets the calling thread's nice value.
        let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, spec.priority.nice) };
        if r == -1 {
            return Err(failed("nice (setpriority)"));
        }
    }
    Ok(())
}

/// Pins the calling thread to the job's `cpus_allowed` or NUMA nodes, if any, and sets its
/// NUMA memory policy (before the buffers are allocated, so they follow it).
///
/// With `cpus_allowed_policy=split`, the copy numbered `job_number` (from 1, over the
/// whole run, as fio's `thread_number`) gets one CPU of the set, round robin.
pub(super) fn pin(spec: &JobSpec, job_number: u32) -> Result<(), RunError> {
    let unusable = |option: &str, e: std::io::Error| RunError::Unusable {
        job: spec.name.clone(),
        reason: format!("{option}: {e}"),
    };
    if let Some(cpus) = crate::numa::pinned_cpus(spec) {
        pin_to(&cpus).map_err(|e| unusable("numa_cpu_nodes", e))?;
    } else if let Some(cpus) = &spec.cpus_allowed {
        let all = cpus.cpus();
        let mine = match spec.cpus_split && !all.is_empty() {
            true => &all[(job_number.saturating_sub(1) as usize) % all.len()..][..1],
            false => all,
        };
        pin_to(mine).map_err(|e| unusable(&format!("cpus_allowed={cpus}"), e))?;
    }
    if let Some(policy) = &spec.numa.mem {
        crate::numa::set_mem_policy(policy).map_err(|e| unusable("numa_mem_policy", e))?;
    }
    Ok(())
}

/// Opens every file of the job as its engine uses them (none for an engine that does no
/// I/O, whose file may not even exist), through what the guard checked (`pins`).
pub(super) fn open_files(job: &PreparedJob) -> Result<Vec<File>, RunError> {
    let spec = &job.spec;
    let how = OpenHow {
        direct: spec.direct,
        writes: spec.writes_data(),
        flags: spec.files.open_flags(),
    };
    open_targets(spec.engine.kind, job.pins.iter(), how).map_err(|(path, source)| RunError::Io {
        job: spec.name.clone(),
        path: path.to_path_buf(),
        dir: if spec.writes() {
            Direction::Write
        } else {
            Direction::Read
        },
        offset: 0,
        len: 0,
        source,
    })
}

/// fio's open-time cache handling of each file: `invalidate` and `fadvise_hint`. What
/// fails is a note, not an error.
pub(super) fn prepare_cache(job: &PreparedJob, fds: &[RawFd]) -> Vec<String> {
    let spec = &job.spec;
    let mut notes = Vec::new();
    for (fd, (facts, region)) in fds.iter().zip(job.files()) {
        if facts.kind == TargetKind::NvmeGeneric {
            continue; // NVMe commands bypass every cache: nothing to drop or advise
        }
        if spec.invalidate {
            if let Err(e) = invalidate_cache(*fd, facts, region) {
                notes.push(format!(
                    "cache invalidation of {} failed: {e}",
                    facts.path.display()
                ));
            }
        }
        if let Err(e) = advise(*fd, spec, region) {
            notes.push(format!("fadvise hint failed: {e}"));
        }
    }
    notes
}

/// A note for each file this job reads that holds little written data (zram's store, a
/// sparse file's holes): its reads would measure no stored data. Taken before the clock.
pub(super) fn unwritten(job: &PreparedJob, fds: &[RawFd]) -> Vec<String> {
    use iolab_engine::EngineKind as K;
    let moves_data = matches!(
        job.spec.engine.kind,
        K::Sync
            | K::Psync
            | K::Vsync
            | K::Pvsync
            | K::Pvsync2
            | K::Mmap
            | K::Libaio
            | K::Posixaio
            | K::IoUring
            | K::Splice
    );
    if !job.spec.reads() || !moves_data {
        return Vec::new();
    }
    fds.iter()
        .zip(job.files())
        .filter_map(|(fd, (facts, region))| {
            let s = iolab_sysinfo::stored::stored_share(*fd, region.start, region.len)?;
            iolab_sysinfo::stored::unwritten_note(&facts.path, &s)
        })
        .collect()
}

/// fio's `ioscheduler`: switches the disk under each file (or the device itself) to the
/// named scheduler, and checks that it took, as fio's `set_ioscheduler()`. A file whose disk
/// is not known (tmpfs) is left alone, as fio leaves it.
pub(super) fn set_ioscheduler(job: &PreparedJob) -> Result<(), RunError> {
    let Some(name) = &job.spec.files.ioscheduler else {
        return Ok(());
    };
    let failed = |reason: String| RunError::Unusable {
        job: job.spec.name.clone(),
        reason: format!("ioscheduler={name}: {reason}"),
    };
    for (facts, _) in job.files() {
        let Some(disk) = facts.disk_name.as_deref() else {
            continue;
        };
        if facts.kind == TargetKind::NvmeGeneric {
            continue;
        }
        let path = format!("/sys/block/{disk}/queue/scheduler");
        let now = std::fs::read_to_string(&path).map_err(|e| {
            failed(format!(
                "{disk} has no I/O scheduler to switch ({path}: {e})"
            ))
        })?;
        if now.contains(&format!("[{name}]")) {
            continue;
        }
        std::fs::write(&path, name).map_err(|e| failed(format!("{path}: {e}")))?;
        let after = std::fs::read_to_string(&path).unwrap_or_default();
        if !after.contains(&format!("[{name}]")) {
            return Err(failed(format!("{disk} offers only: {}", after.trim())));
        }
    }
    Ok(())
}

/// fio's `write_hint`: the files' expected data lifetime (`fcntl(F_SET_RW_HINT)`).
pub(super) fn set_write_hint(spec: &JobSpec, files: &[File]) -> Result<(), RunError> {
    /// `F_SET_RW_HINT` (Linux's fcntl.h: F_LINUX_SPECIFIC_BASE + 12).
    const F_SET_RW_HINT: libc::c_int = 1036;
    let Some(hint) = spec.files.write_hint else {
        return Ok(());
    };
    for f in files {
        let value: u64 = hint;
        // SAFETY: F_SET_RW_HINT reads one u64 through the pointer, alive for the call.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), F_SET_RW_HINT, &value as *const u64) };
        if r != 0 {
            return Err(RunError::Unusable {
                job: spec.name.clone(),
                reason: format!("write_hint: {}", std::io::Error::last_os_error()),
            });
        }
    }
    Ok(())
}

/// fio's `pre_read`: reads each file's region once through the page cache, before the
/// measured I/O, so a buffered job starts warm. A file that cannot be read is a note.
pub(super) fn pre_read(job: &PreparedJob) -> Vec<String> {
    const CHUNK: usize = 1 << 20;
    if !job.spec.files.pre_read {
        return Vec::new();
    }
    let mut buf = vec![0u8; CHUNK];
    let mut notes = Vec::new();
    for (pin, (facts, region)) in job.pins.iter().zip(job.files()) {
        if facts.kind == TargetKind::NvmeGeneric {
            continue; // no page cache to warm
        }
        let read = pin
            .open(libc::O_RDONLY)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|f| read_region(&f, region, &mut buf));
        if let Err(e) = read {
            notes.push(format!("pre_read of {} failed: {e}", facts.path.display()));
        }
    }
    notes
}

/// Reads `region` of `f` in `buf`-sized pieces, to its end or the file's.
fn read_region(f: &File, region: &Region, buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let mut off = region.start;
    let end = region.start.saturating_add(region.len);
    while off < end {
        let n = ((end - off) as usize).min(buf.len());
        match f.read_at(&mut buf[..n], off)? {
            0 => break,
            got => off += got as u64,
        }
    }
    Ok(())
}

/// Syncs each written file as the job closes it (fio's `fsync_on_close`), untimed.
pub(super) fn fsync_on_close(spec: &JobSpec, fds: &[RawFd]) -> Option<std::io::Error> {
    if !spec.files.fsync_on_close || !spec.writes_data() {
        return None;
    }
    // SAFETY: fsync on descriptors the worker holds open.
    fds.iter()
        .filter(|fd| unsafe { libc::fsync(**fd) } != 0)
        .map(|_| std::io::Error::last_os_error())
        .next()
}

/// Removes the job's regular files when it ends (fio's `unlink`), each only while its name
/// still leads to the file the guard checked. Others (devices) stay. `unlink_each_loop`
/// alone removes nothing at the end: fio 3.33 and 3.42 remove the files only between
/// loops, and the last loop's stay (the worker empties them between loops).
pub(super) fn unlink_files(job: &PreparedJob) -> Vec<String> {
    if !job.spec.files.unlink {
        return Vec::new();
    }
    if let Some(op) = job.spec.engine.kind.def().file_op {
        if op.on_directories() {
            return remove_dirs(job);
        }
    }
    job.pins
        .iter()
        .zip(job.files())
        .filter(|(_, (facts, _))| facts.kind == TargetKind::File)
        .filter(|(pin, _)| pin.still_there())
        .filter_map(|(pin, _)| match std::fs::remove_file(&pin.resolved) {
            Ok(()) => None,
            // A copy of the job sharing the file removed it first.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(format!("unlink of {} failed: {e}", pin.resolved.display())),
        })
        .collect()
}

/// Removes the directories of fio 3.42's dir engines when the job ends (`unlink`, fio's
/// `remove_dir`): `rmdir`, which removes only an empty directory and follows no symlink.
/// One already gone (dirdelete's, or a copy's) is no error.
fn remove_dirs(job: &PreparedJob) -> Vec<String> {
    job.pins
        .iter()
        .filter_map(|pin| match std::fs::remove_dir(&pin.resolved) {
            Ok(()) => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(format!("rmdir of {} failed: {e}", pin.resolved.display())),
        })
        .collect()
}

/// The buffers of `depth` I/Os of the job's largest block, filled as its buffer options say.
pub(super) fn buffer_pool(spec: &JobSpec, depth: u32, seed: u64) -> Result<BufferPool, RunError> {
    let bs = spec.max_block_size() as usize;
    let memory = match spec.engine.kind {
        // SPDK's DMA memory, whatever `mem` says, as SPDK's fio plugin allocates it.
        iolab_engine::EngineKind::Spdk => iolab_engine::memory::Memory {
            kind: iolab_engine::memory::MemKind::Dma,
            ..spec.memory
        },
        _ => spec.memory,
    };
    let mut pool = BufferPool::with_memory(depth as usize, bs, seed, &memory).map_err(|e| {
        RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "mem={}: the I/O buffers: {e}",
                format!("{:?}", spec.memory.kind).to_lowercase()
            ),
        }
    })?;
    if spec.buffers.zero || spec.buffers.compress_percent > 0 || spec.buffers.pattern.is_some() {
        let b = &spec.buffers;
        let chunk = b.compress_chunk as usize;
        pool.fill_with(seed, b.zero, b.compress_percent, chunk, b.pattern.as_ref());
    }
    Ok(pool)
}

/// How the engine names the target in its notes: `/tmp/f (on disk vda)`.
pub(super) fn target_name(job: &PreparedJob) -> String {
    let facts = &job.facts;
    match (&facts.kind, &facts.disk_name) {
        (TargetKind::File, Some(disk)) => {
            format!("{} (on disk {disk})", job.spec.filename.display())
        }
        _ => job.spec.filename.display().to_string(),
    }
}

/// Drops the page cache of the job's region of one file, as fio's `invalidate` does when it
/// opens a file: `posix_fadvise(DONTNEED)` for a regular file, `BLKFLSBUF` for a block device.
pub(super) fn invalidate_cache(
    fd: RawFd,
    facts: &TargetFacts,
    region: &Region,
) -> std::io::Result<()> {
    /// `BLKFLSBUF` = _IO(0x12, 97).
    const BLKFLSBUF: u64 = 0x1261;
    // SAFETY: plain syscalls on an open fd; BLKFLSBUF takes no argument.
    let r = unsafe {
        match facts.kind {
            TargetKind::File => {
                let e = libc::posix_fadvise(
                    fd,
                    region.start as libc::off_t,
                    region.len as libc::off_t,
                    libc::POSIX_FADV_DONTNEED,
                );
                if e != 0 {
                    return Err(std::io::Error::from_raw_os_error(e));
                }
                0
            }
            TargetKind::BlockDevice => libc::ioctl(fd, BLKFLSBUF as _, 0),
            TargetKind::NvmeGeneric | TargetKind::SpdkNvme => 0,
        }
    };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// How the job walks its files (fio's `fadvise_hint`: by the job's pattern, or as given).
pub(super) fn access_hint(spec: &JobSpec) -> AccessHint {
    use iolab_job::{FadviseHint, Pattern};
    match (spec.fadvise_hint, spec.pattern) {
        (FadviseHint::None, _) => AccessHint::None,
        (FadviseHint::Random, _) | (FadviseHint::Type, Pattern::Random) => AccessHint::Random,
        (FadviseHint::Sequential, _) | (FadviseHint::Type, _) => AccessHint::Sequential,
    }
}

/// fio's `fadvise_hint` when a file is opened: random or sequential advice for the region.
fn advise(fd: RawFd, spec: &JobSpec, region: &Region) -> std::io::Result<()> {
    let advice = match access_hint(spec) {
        AccessHint::None => return Ok(()),
        AccessHint::Random => libc::POSIX_FADV_RANDOM,
        AccessHint::Sequential => libc::POSIX_FADV_SEQUENTIAL,
    };
    // SAFETY: a plain syscall on an open fd.
    let e = unsafe {
        libc::posix_fadvise(
            fd,
            region.start as libc::off_t,
            region.len as libc::off_t,
            advice,
        )
    };
    if e != 0 {
        return Err(std::io::Error::from_raw_os_error(e));
    }
    Ok(())
}

fn pin_to(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes within it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            if c >= libc::CPU_SETSIZE as usize {
                return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
            }
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// fio 3.42's `end_syncfs`: one syncfs(2) for each filesystem the job's files are on (by
/// their device numbers), not an fsync a file. The first failure, if any.
pub(super) fn syncfs_each(fds: &[std::os::fd::RawFd]) -> Option<std::io::Error> {
    let mut done: Vec<u64> = Vec::new();
    for &fd in fds {
        // SAFETY: fstat writes into a zeroed stat of the right type; fd is the job's own.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 {
            return Some(std::io::Error::last_os_error());
        }
        if done.contains(&st.st_dev) {
            continue;
        }
        done.push(st.st_dev);
        // SAFETY: plain system call on the job's own descriptor.
        if unsafe { libc::syncfs(fd) } != 0 {
            return Some(std::io::Error::last_os_error());
        }
    }
    None
}
