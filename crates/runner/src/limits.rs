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
    if let Some(avail) = iolab_sysinfo::host::mem_available_bytes() {
        let allowed = (avail as f64 * MEMORY_SHARE) as u64;
        if buffers > allowed {
            return Err(RunError::Limit(format!(
                "the jobs' I/O buffers need {} (iodepth x largest bs x numjobs), more than \
                 half of the {} of memory available; lower iodepth, bs or numjobs",
                bytes(buffers),
                bytes(avail)
            )));
        }
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
    let avail = iolab_sysinfo::host::mem_available_bytes().unwrap_or(1 << 30);
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

/// Every filesystem keeps 5 % of itself free after the layouts it receives.
pub fn check_free_space(layouts: &[Layout], jobs: &[PreparedJob]) -> Result<(), RunError> {
    // Bytes to lay out per filesystem (by device number), with one layout to name.
    let mut per_fs: BTreeMap<u64, (u64, &Layout, PathBuf)> = BTreeMap::new();
    for l in layouts {
        // A missing directory is created on the filesystem of its nearest existing ancestor.
        let dir = iolab_sysinfo::existing_dir(&l.path);
        let dev = std::fs::metadata(&dir).map(|m| m.dev()).unwrap_or(0);
        per_fs.entry(dev).or_insert((0, l, dir)).0 += l.to_bytes - l.from_bytes;
    }
    for (need, l, dir) in per_fs.values() {
        let (need, l, dir) = (*need, *l, dir.as_path());
        let Ok(space) = iolab_sysinfo::fsspace::fs_space(dir) else {
            continue;
        };
        let reserve = (space.total_bytes as f64 * FREE_RESERVE) as u64;
        if need.saturating_add(reserve) > space.free_bytes {
            let job = jobs
                .iter()
                .find(|j| j.files().any(|(f, _)| f.path == l.path))
                .map_or_else(String::new, |j| j.spec.name.clone());
            return Err(RunError::Unusable {
                job,
                reason: format!(
                    "laying out {} needs {} but its filesystem has {} free (iolab leaves 5% \
                     of it, {}, free); lower size or use another directory",
                    l.path.display(),
                    bytes(need),
                    bytes(space.free_bytes),
                    bytes(reserve)
                ),
            });
        }
    }
    Ok(())
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
        };
        let e = check_free_space(&[l], &[]).unwrap_err().to_string();
        assert!(e.contains("free"), "{e}");
        let small = Layout {
            path: dir.path().join("small"),
            from_bytes: 0,
            to_bytes: 4096,
            pin: iolab_sysinfo::Pin::new_file(&dir.path().join("small")).unwrap(),
        };
        check_free_space(&[small], &[]).unwrap();
    }
}
