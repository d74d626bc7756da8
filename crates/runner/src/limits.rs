//! What a run may ask of this machine, checked before anything is written: threads, buffer
//! memory, CPUs and free space. A job file that asks for 100,000 job copies, 64 GiB of I/O
//! buffers or 100 TB of layout is refused with one line instead of panicking, swapping or
//! filling the disk.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use iolab_job::JobSpec;

use crate::prepared::{Layout, PreparedJob};
use crate::RunError;

/// Most worker threads one run starts: fio's own limit on jobs.
pub const MAX_THREADS: u64 = 4096;

/// Address space a worker thread maps besides its I/O buffers: its stack (2 MiB, Rust's
/// default) and its records (histograms, log chunks, the engine's rings), measured under
/// `ulimit -v` at about 2 MiB more.
const WORKER_ADDRESS_BYTES: u64 = 4 << 20;

/// Share of the available memory the I/O buffers may take.
const MEMORY_SHARE: f64 = 0.5;

/// Share of a filesystem left free after layout.
const FREE_RESERVE: f64 = 0.05;

/// Threads and buffer memory of all the jobs together.
pub fn check(specs: &[JobSpec]) -> Result<(), RunError> {
    let threads: u64 = specs.iter().map(|s| s.numjobs as u64).sum();
    if threads > MAX_THREADS {
        return Err(RunError::Limit(format!(
            "the jobs start {threads} threads (numjobs summed over jobs); at most \
             {MAX_THREADS} can run at once"
        )));
    }
    let buffers: u64 = specs.iter().map(buffer_bytes).sum();
    if let Some((room, what)) = iolab_sysinfo::host::memory_room() {
        if buffers > (room as f64 * MEMORY_SHARE) as u64 {
            return Err(RunError::Limit(format!(
                "the jobs' I/O buffers need {} (iodepth x largest bs x numjobs), more than \
                 half of the {} of {what}; lower iodepth, bs or numjobs",
                bytes(buffers),
                bytes(room)
            )));
        }
    }
    // Under `ulimit -v` every thread's stack and record counts too: refused here with a
    // reason rather than aborted by a failed allocation mid-run.
    let mapped = buffers.saturating_add(threads * WORKER_ADDRESS_BYTES);
    if let Some(room) = iolab_sysinfo::host::address_space_room() {
        if mapped > (room as f64 * MEMORY_SHARE) as u64 {
            return Err(RunError::Limit(format!(
                "the jobs need {} of address space (I/O buffers {}, and {} per thread for its \
                 stack and records), more than half of the {} ulimit -v (RLIMIT_AS) leaves; \
                 raise ulimit -v or lower iodepth, bs or numjobs",
                bytes(mapped),
                bytes(buffers),
                bytes(WORKER_ADDRESS_BYTES),
                bytes(room)
            )));
        }
    }
    Ok(())
}

/// What the kernel allows the jobs' engines and files, checked before any layout: io_uring's
/// ring size, the SQPOLL CPU, libaio's system-wide event budget (`fs.aio-max-nr`), open
/// files (`ulimit -n`), and names the filesystem cannot hold. Each would otherwise fail
/// mid-run with exit 1 after the files were laid out.
pub fn check_kernel_limits(specs: &[JobSpec]) -> Result<(), RunError> {
    for s in specs {
        check_engine_limits(s)?;
        check_names(s)?;
    }
    check_aio_budget(specs)?;
    check_open_files(specs)
}

/// io_uring's most entries (`IORING_MAX_ENTRIES`).
const IORING_MAX_ENTRIES: u32 = 32768;

fn check_engine_limits(s: &JobSpec) -> Result<(), RunError> {
    use iolab_engine::EngineKind;
    let unusable = |reason: String| RunError::Unusable {
        job: s.name.clone(),
        reason,
    };
    let uring = matches!(s.engine.kind, EngineKind::IoUring | EngineKind::IoUringCmd);
    if uring && s.iodepth > IORING_MAX_ENTRIES {
        return Err(unusable(format!(
            "iodepth={}: an io_uring ring holds at most {IORING_MAX_ENTRIES} entries",
            s.iodepth
        )));
    }
    if let Some(cpu) = s.engine.options.sqthread_poll_cpu.filter(|_| uring) {
        let usable = usable_cpus();
        if !usable.contains(&(cpu as usize)) {
            return Err(unusable(format!(
                "sqthread_poll_cpu={cpu}: not a CPU this process may run on (usable: {})",
                cpu_list(&usable)
            )));
        }
    }
    Ok(())
}

/// A file name longer than the filesystem takes (NAME_MAX, PATH_MAX).
fn check_names(s: &JobSpec) -> Result<(), RunError> {
    use std::os::unix::ffi::OsStrExt;
    for f in s.files() {
        let long = f.as_os_str().len() >= libc::PATH_MAX as usize
            || f.components().any(|c| c.as_os_str().len() > 255);
        if long {
            return Err(RunError::Unusable {
                job: s.name.clone(),
                reason: format!(
                    "filename: a name of {} bytes is longer than a filesystem takes (255 per \
                     name, {} in all)",
                    f.as_os_str().as_bytes().len(),
                    libc::PATH_MAX
                ),
            });
        }
    }
    Ok(())
}

/// libaio's events come from one system-wide budget: `io_setup` takes
/// 2 x max(iodepth, 4 x CPUs) of `fs.aio-max-nr` per context and fails with EAGAIN past it.
fn check_aio_budget(specs: &[JobSpec]) -> Result<(), RunError> {
    let read = |f: &str| {
        std::fs::read_to_string(f)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let (Some(max), Some(used)) = (read("/proc/sys/fs/aio-max-nr"), read("/proc/sys/fs/aio-nr"))
    else {
        return Ok(());
    };
    let cpus = possible_cpus().unwrap_or(num_cpus()) as u64;
    let need: u64 = specs
        .iter()
        .filter(|s| s.engine.kind == iolab_engine::EngineKind::Libaio)
        .map(|s| s.numjobs as u64 * 2 * (s.iodepth as u64).max(4 * cpus))
        .sum();
    if need > max.saturating_sub(used) {
        return Err(RunError::Limit(format!(
            "the libaio jobs need {need} AIO events (2 x iodepth per copy, as the kernel \
             counts them) and fs.aio-max-nr leaves {} ({max} less {used} in use); lower \
             iodepth or numjobs, or raise fs.aio-max-nr",
            max.saturating_sub(used)
        )));
    }
    Ok(())
}

/// CPUs the kernel could ever bring up (`/sys/devices/system/cpu/possible`, "0-N"): what
/// `io_setup` multiplies by, which may be more than the CPUs this process may use.
fn possible_cpus() -> Option<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/possible").ok()?;
    let mut n = 0;
    for part in text.trim().split(',') {
        n += match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().ok()? - a.parse::<usize>().ok()? + 1,
            None => 1,
        };
    }
    Some(n)
}

/// Descriptors the run keeps open beside the jobs' files: the results database, logs,
/// rings, the process's own.
const FD_BASELINE: u64 = 64;

/// Every copy keeps each of its files open, and io_uring a ring: within `ulimit -n`.
fn check_open_files(specs: &[JobSpec]) -> Result<(), RunError> {
    // SAFETY: getrlimit fills a plain struct.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return Ok(());
    }
    let files: u64 = specs
        .iter()
        .map(|s| {
            // An engine that takes no target (null, filecreate) opens none of the files.
            let opened = match s.engine.kind.def().accepts.nothing() {
                true => 0,
                false => s.files().count() as u64,
            };
            s.numjobs as u64 * (opened + 1)
        })
        .sum();
    let need = files + FD_BASELINE;
    if need > lim.rlim_cur as u64 {
        return Err(RunError::Limit(format!(
            "the jobs keep {files} files open (each copy its files and its engine), and with \
             iolab's own that is more than the {} ulimit -n allows; raise ulimit -n or lower \
             numjobs or nrfiles",
            lim.rlim_cur
        )));
    }
    Ok(())
}

/// Share of the available memory per-I/O logs may take, all loggers together.
const LOG_SHARE: f64 = 0.25;

/// Most per-I/O log entries one run keeps, all loggers together: 400 MB in memory, and about
/// 1.3 GB of text once written (five files for a latency log), so a fast engine left
/// logging cannot fill a disk either.
const LOG_MAX_ENTRIES: u64 = 10_000_000;

/// Most per-I/O log entries one logging worker keeps: the smaller of the loggers' share of
/// available memory and [`LOG_MAX_ENTRIES`], split evenly over every copy of every job that
/// logs per I/O.
pub fn log_cap_entries(specs: &[JobSpec]) -> usize {
    let loggers: u64 = specs
        .iter()
        .filter(|s| s.logs.any() && s.logs.avg_msec == 0)
        .map(|s| s.numjobs as u64)
        .sum();
    let avail = iolab_sysinfo::host::memory_room().map_or(1 << 30, |r| r.0);
    let avail = iolab_sysinfo::host::address_space_room().map_or(avail, |a| avail.min(a));
    let by_memory =
        (avail as f64 * LOG_SHARE) as u64 / std::mem::size_of::<crate::IoEntry>() as u64;
    (by_memory.min(LOG_MAX_ENTRIES) / loggers.max(1)) as usize
}

/// Bytes of I/O buffers one job's copies allocate.
pub fn buffer_bytes(spec: &JobSpec) -> u64 {
    spec.numjobs as u64 * spec.effective_iodepth() as u64 * spec.max_block_size() as u64
}

/// The job's CPUs must be ones this process may run on.
pub fn check_cpus(spec: &JobSpec) -> Result<(), RunError> {
    let Some(set) = &spec.cpus_allowed else {
        return Ok(());
    };
    let usable = usable_cpus();
    if let Some(c) = set.cpus().iter().find(|c| !usable.contains(c)) {
        return Err(RunError::Unusable {
            job: spec.name.clone(),
            reason: format!(
                "cpus_allowed={set}: CPU {c} is not one this process may run on (usable: {})",
                cpu_list(&usable)
            ),
        });
    }
    Ok(())
}

/// CPUs in this process's affinity mask.
pub fn usable_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..num_cpus()).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn cpu_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// fio's `fill_device` on a regular file: the size that fills its file system up to the
/// reserve iolab always leaves (5 % of it), less what other files of the run take there,
/// within the process's file size limit (RLIMIT_FSIZE), in whole blocks of `bs`. fio writes
/// until ENOSPC instead; iolab never fills a disk to the last block.
pub fn fill_size(path: &std::path::Path, existing: u64, bs: u64) -> Result<u64, String> {
    let dir = iolab_sysinfo::existing_dir(path);
    let space = iolab_sysinfo::fsspace::fs_space(&dir).map_err(|e| e.to_string())?;
    let reserve = (space.total_bytes as f64 * FREE_RESERVE) as u64;
    let mut size = existing + space.free_bytes.saturating_sub(reserve);
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim) } == 0
        && lim.rlim_cur != libc::RLIM_INFINITY
    {
        size = size.min(lim.rlim_cur);
    }
    let size = size / bs.max(1) * bs.max(1);
    if size <= existing {
        return Err(format!(
            "fill_device: {} has no room left beyond the {} iolab leaves free",
            dir.display(),
            reserve
        ));
    }
    Ok(size)
}

/// Every filesystem keeps 5 % of itself free after the layouts and the I/O logs it receives
/// (a log is written after the run, so a run whose logs do not fit would measure for
/// nothing).
pub fn check_free_space(layouts: &[Layout], jobs: &[PreparedJob]) -> Result<(), RunError> {
    let job_of = |path: &std::path::Path| {
        jobs.iter()
            .find(|j| j.files().any(|(f, _)| f.path == path))
            .map_or_else(String::new, |j| j.spec.name.clone())
    };
    let mut wants: Vec<Want> = layouts
        .iter()
        .map(|l| Want {
            what: format!("laying out {}", l.path.display()),
            at: l.path.clone(),
            bytes: l.to_bytes - l.from_bytes,
            job: job_of(&l.path),
        })
        .collect();
    wants.extend(jobs.iter().flat_map(log_wants));
    // Bytes per filesystem (by device number), with the first want to name.
    let mut per_fs: BTreeMap<u64, (u64, &Want, PathBuf)> = BTreeMap::new();
    for w in &wants {
        // A missing directory is created on the filesystem of its nearest existing ancestor.
        let dir = iolab_sysinfo::existing_dir(&w.at);
        let dev = std::fs::metadata(&dir).map(|m| m.dev()).unwrap_or(0);
        let e = per_fs.entry(dev).or_insert((0, w, dir));
        e.0 = e.0.saturating_add(w.bytes);
    }
    for (need, w, dir) in per_fs.values() {
        let Ok(space) = iolab_sysinfo::fsspace::fs_space(dir) else {
            continue;
        };
        let reserve = (space.total_bytes as f64 * FREE_RESERVE) as u64;
        if need.saturating_add(reserve) > space.free_bytes {
            return Err(RunError::Unusable {
                job: w.job.clone(),
                reason: format!(
                    "{} needs {} on a filesystem with {} free (iolab leaves 5% of it, {}, \
                     free); lower size, log less (log_avg_msec) or use another directory",
                    if *need == w.bytes {
                        w.what.clone()
                    } else {
                        format!("{} and the rest on its filesystem", w.what)
                    },
                    bytes(*need),
                    bytes(space.free_bytes),
                    bytes(reserve)
                ),
            });
        }
    }
    Ok(())
}

/// Bytes a run will write somewhere, and what to call them in a refusal.
struct Want {
    what: String,
    at: PathBuf,
    bytes: u64,
    job: String,
}

/// Bytes of one line of fio's log format at its longest likely: time, value, direction,
/// size, offset, priority ("123456789, 1234567890, 1, 1048576, 0, 0" plus a margin).
const LOG_LINE_BYTES: u64 = 48;

/// The I/O logs a job will write, with an upper estimate of their size: per-I/O logs at
/// most the entries a logger keeps (`log_cap_entries`, fewer for a job whose bytes bound
/// its I/Os), averaged logs one line per window and direction.
fn log_wants(job: &PreparedJob) -> Vec<Want> {
    let s = &job.spec;
    let l = &s.logs;
    let cap = job.log_cap_entries as u64;
    // One entry per I/O at most (bounded by what a copy keeps in memory).
    let per_io = match s.time_based {
        false => {
            let bs = s
                .directions()
                .map(|d| s.min_block_size(d))
                .min()
                .unwrap_or(512);
            let ios = job.region.len / bs.max(1) as u64 * s.loops.max(1) as u64;
            cap.min(ios.saturating_add(1))
        }
        true => cap,
    };
    // An averaged log has an entry per window and direction: by the runtime where there is
    // one; a size-based job without one ends by its I/Os, which bound the windows with any.
    let entries = match (l.avg_msec, s.runtime) {
        (0, _) | (_, None) => per_io,
        (avg, Some(r)) => ((s.ramp_time + r).as_millis() as u64 / avg as u64) * 3 + 3,
    };
    let per_file = entries.saturating_mul(LOG_LINE_BYTES);
    let files = [
        (&l.lat, "lat", 3u64),
        (&l.iops, "iops", 1),
        (&l.bw, "bw", 1),
    ];
    // The merged blktrace (`merge_blktrace_file`) is written when the run starts.
    let merged = s
        .replay
        .as_ref()
        .and_then(|r| r.merged.as_ref())
        .map(|m| Want {
            what: format!("the merged blktrace {}", m.path.display()),
            at: m.path.clone(),
            bytes: m.bytes.len() as u64,
            job: s.name.clone(),
        });
    files
        .into_iter()
        .filter_map(|(p, kind, n)| {
            let p = p.as_ref()?;
            Some(Want {
                what: format!("the {kind} log {p}_{kind}.*.log"),
                at: PathBuf::from(format!("{p}_{kind}.1.log")),
                bytes: per_file.saturating_mul(n * s.numjobs as u64),
                job: s.name.clone(),
            })
        })
        .chain(merged)
        .collect()
}

/// Bytes for a message: "64.0 GiB", "512.0 MiB", "4096 B".
fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut unit = "B";
    for u in UNITS {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    if unit == "B" {
        format!("{b} B")
    } else {
        format!("{x:.1} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_threads_and_too_much_buffer_memory_are_refused() {
        let mut s = JobSpec::new("j", "/tmp/x");
        s.numjobs = 100_000;
        assert!(
            matches!(check(&[s.clone()]), Err(RunError::Limit(m)) if m.contains("100000 threads"))
        );
        s.numjobs = 1;
        s.engine = iolab_engine::EngineConfig::new(iolab_engine::EngineKind::Libaio);
        s.iodepth = 65536;
        s.block_size = [1 << 20; 3];
        let e = check(&[s.clone()]).unwrap_err().to_string();
        assert!(e.contains("64.0 GiB"), "{e}");
        s.iodepth = 32;
        check(&[s]).unwrap();
    }

    #[test]
    fn cpus_outside_the_affinity_mask_are_refused() {
        let mut s = JobSpec::new("j", "/tmp/x");
        s.cpus_allowed = Some("999".parse().unwrap());
        let e = check_cpus(&s).unwrap_err().to_string();
        assert!(e.contains("CPU 999"), "{e}");
        s.cpus_allowed = Some("0".parse().unwrap());
        if usable_cpus().contains(&0) {
            check_cpus(&s).unwrap();
        }
    }

    #[test]
    fn a_layout_larger_than_the_free_space_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let l = Layout {
            path: dir.path().join("big"),
            from_bytes: 0,
            to_bytes: 1 << 60,
            pin: iolab_sysinfo::Pin::new_file(&dir.path().join("big")).unwrap(),
            how: crate::prepared::LayoutHow::Fill { fsync: true },
        };
        let e = check_free_space(&[l], &[]).unwrap_err().to_string();
        assert!(e.contains("free"), "{e}");
        let small = Layout {
            path: dir.path().join("small"),
            from_bytes: 0,
            to_bytes: 4096,
            pin: iolab_sysinfo::Pin::new_file(&dir.path().join("small")).unwrap(),
            how: crate::prepared::LayoutHow::Fill { fsync: true },
        };
        check_free_space(&[small], &[]).unwrap();
    }
}
