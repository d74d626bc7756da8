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
    let m = read_trim(&format!("/sys/block/{disk}/device/model"));
    (!m.is_empty()).then_some(m)
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
    }
}
