//! Facts about the machine a run happened on, stored with every result so runs from
//! different hosts can be told apart.

/// Host name, kernel release, CPU model and count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostFacts {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: String,
    pub cpus: usize,
}

fn read_trim(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Reads the facts from /proc; a fact that cannot be read is left empty.
pub fn host_facts() -> HostFacts {
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default();
    HostFacts {
        hostname: read_trim("/proc/sys/kernel/hostname"),
        kernel: read_trim("/proc/sys/kernel/osrelease"),
        cpu_model,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The model string a disk reports in sysfs (`device/model`), if any (zram and loop have
/// none).
pub fn disk_model(disk: &str) -> Option<String> {
    crate::drive::of_disk(disk).model
}

/// The firmware revision a disk reports in sysfs ([`crate::drive::DriveIdentity`]), if any:
/// a firmware update moves figures, so `compare` names a change of it.
pub fn disk_firmware(disk: &str) -> Option<String> {
    crate::drive::of_disk(disk).firmware
}

/// `MemTotal` of /proc/meminfo in bytes: what the page cache can grow toward, so what a
/// working set must exceed before reads reach the device.
pub fn mem_total_bytes() -> Option<u64> {
    parse_mem_total(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` of /proc/meminfo in bytes: what a run can allocate without pushing the
/// machine into swap or the OOM killer.
pub fn mem_available_bytes() -> Option<u64> {
    meminfo_bytes(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable:",
    )
}

/// The memory this process may still take, and what limits it: the smallest of the
/// machine's available memory and its cgroup's room (`memory.max` less `memory.current`).
pub fn memory_room() -> Option<(u64, &'static str)> {
    let mut room: Vec<(u64, &'static str)> = Vec::new();
    room.extend(mem_available_bytes().map(|b| (b, "memory available")));
    room.extend(cgroup_room().map(|b| (b, "room under the cgroup's memory.max")));
    room.into_iter().min_by_key(|r| r.0)
}

/// The address space this process may still map under `ulimit -v` (RLIMIT_AS, less what it
/// maps already), when a limit is set: thread stacks and every allocation count there.
pub fn address_space_room() -> Option<u64> {
    // SAFETY: getrlimit fills a plain struct.
    let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = meminfo_bytes(&status, "VmSize:").unwrap_or(0);
    Some((lim.rlim_cur as u64).saturating_sub(mapped))
}

/// `memory.max` less `memory.current` of this process's cgroup (v2), when it has a limit.
fn cgroup_room() -> Option<u64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = format!("/sys/fs/cgroup{}", path.trim());
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?;
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

fn parse_mem_total(meminfo: &str) -> Option<u64> {
    meminfo_bytes(meminfo, "MemTotal:")
}

fn meminfo_bytes(meminfo: &str, key: &str) -> Option<u64> {
    let kb = meminfo
        .lines()
        .find_map(|l| l.strip_prefix(key))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_host_has_a_kernel_and_cpus() {
        let h = host_facts();
        assert!(!h.kernel.is_empty());
        assert!(h.cpus >= 1);
        assert_eq!(disk_model("no-such-disk"), None);
        assert!(mem_total_bytes().unwrap() > 1 << 20);
        assert_eq!(
            parse_mem_total("MemTotal:       24596432 kB\nMemFree: 1 kB\n"),
            Some(24_596_432 * 1024)
        );
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert!(mem_available_bytes().unwrap() <= mem_total_bytes().unwrap());
    }
}
