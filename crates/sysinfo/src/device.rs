//! What a reviewer writes down about a disk before measuring it (the review's `info` step):
//! model, capacity, block sizes, rotational, scheduler, queue size, polling, write cache and
//! discard support, read from sysfs for the whole disk behind a file or block device. Each
//! fact is optional: virtual devices lack some, and a missing fact is shown as such rather
//! than guessed.

use std::path::Path;

use crate::target::read_sys_u64;

/// sysfs facts of one whole disk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DiskFacts {
    /// The sysfs name (`nvme0n1`, `zram0`, `vda`).
    pub name: String,
    pub model: Option<String>,
    pub capacity_bytes: Option<u64>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub rotational: Option<bool>,
    /// The active I/O scheduler (the bracketed entry of `queue/scheduler`).
    pub scheduler: Option<String>,
    pub nr_requests: Option<u64>,
    /// `queue/io_poll`: the device accepts polled I/O (it has poll queues).
    pub io_poll: Option<bool>,
    /// The NVMe driver's `poll_queues` module parameter, where the driver is loaded.
    pub nvme_poll_queues: Option<u64>,
    /// `queue/write_cache`: "write back" or "write through".
    pub write_cache: Option<String>,
    /// Largest discard the device takes in one request; 0 means no discard support.
    pub discard_max_bytes: Option<u64>,
}

fn read_str(path: &str) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The entry in brackets of a sysfs choice list: `none [mq-deadline] kyber` → `mq-deadline`.
pub fn active_choice(list: &str) -> Option<String> {
    let start = list.find('[')?;
    let end = list[start..].find(']')? + start;
    Some(list[start + 1..end].to_string())
}

impl DiskFacts {
    /// Reads the facts of the disk `name` (as in /sys/block/NAME).
    pub fn read(name: &str) -> DiskFacts {
        Self::read_from(Path::new("/sys"), name)
    }

    /// As [`DiskFacts::read`], under another sysfs root (for tests).
    pub fn read_from(sys: &Path, name: &str) -> DiskFacts {
        let base = sys.join("block").join(name);
        let at = |rel: &str| base.join(rel).display().to_string();
        let num = |rel: &str| read_sys_u64(&at(rel));
        DiskFacts {
            name: name.to_string(),
            model: crate::drive::identity(&base).model,
            // `size` counts 512-byte sectors whatever the block size.
            capacity_bytes: num("size").map(|s| s * 512),
            logical_block_size: num("queue/logical_block_size"),
            physical_block_size: num("queue/physical_block_size"),
            rotational: num("queue/rotational").map(|v| v == 1),
            scheduler: read_str(&at("queue/scheduler")).and_then(|s| {
                active_choice(&s).or(Some(s)) // a single entry has no brackets
            }),
            nr_requests: num("queue/nr_requests"),
            io_poll: num("queue/io_poll").map(|v| v == 1),
            nvme_poll_queues: read_sys_u64(
                &sys.join("module/nvme/parameters/poll_queues")
                    .display()
                    .to_string(),
            ),
            write_cache: read_str(&at("queue/write_cache")),
            discard_max_bytes: num("queue/discard_max_bytes"),
        }
    }

    /// Whether the device can deallocate (TRIM/discard): `None` when unknown.
    pub fn discard_supported(&self) -> Option<bool> {
        self.discard_max_bytes.map(|b| b > 0)
    }
}

/// CPU frequency governor of CPU 0 (`performance`, `powersave`, ...), if cpufreq is present.
pub fn cpu_governor() -> Option<String> {
    read_str("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
}

/// The kernel's clock source (`tsc`, `kvm-clock`, ...).
pub fn kernel_clocksource() -> Option<String> {
    read_str("/sys/devices/system/clocksource/clocksource0/current_clocksource")
}

/// The filesystem type a path lives on (`ext4`, `xfs`, `tmpfs`), from /proc/self/mountinfo:
/// the longest mount point that prefixes the path.
pub fn filesystem_of(path: &Path) -> Option<String> {
    let path = std::fs::canonicalize(path).ok()?;
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String)> = None;
    for line in info.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let Some(sep) = f.iter().position(|x| *x == "-") else {
            continue;
        };
        let (Some(mnt), Some(fstype)) = (f.get(4), f.get(sep + 1)) else {
            continue;
        };
        let mnt = mnt.replace("\\040", " ");
        if path.starts_with(&mnt) && best.as_ref().is_none_or(|(l, _)| mnt.len() >= *l) {
            best = Some((mnt.len(), fstype.to_string()));
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_fake_sysfs_disk() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("block/nvme9n1/queue");
        std::fs::create_dir_all(&q).unwrap();
        std::fs::create_dir_all(dir.path().join("block/nvme9n1/device")).unwrap();
        std::fs::create_dir_all(dir.path().join("module/nvme/parameters")).unwrap();
        let w = |rel: &str, v: &str| std::fs::write(dir.path().join(rel), v).unwrap();
        w("block/nvme9n1/device/model", "INTEL SSDPED1K750GA  \n");
        w("block/nvme9n1/size", "1465149168\n");
        w("block/nvme9n1/queue/logical_block_size", "512\n");
        w("block/nvme9n1/queue/physical_block_size", "4096\n");
        w("block/nvme9n1/queue/rotational", "0\n");
        w(
            "block/nvme9n1/queue/scheduler",
            "[none] mq-deadline kyber\n",
        );
        w("block/nvme9n1/queue/nr_requests", "1023\n");
        w("block/nvme9n1/queue/io_poll", "1\n");
        w("block/nvme9n1/queue/write_cache", "write through\n");
        w("block/nvme9n1/queue/discard_max_bytes", "2199023255040\n");
        w("module/nvme/parameters/poll_queues", "2\n");
        let f = DiskFacts::read_from(dir.path(), "nvme9n1");
        assert_eq!(f.model.as_deref(), Some("INTEL SSDPED1K750GA"));
        assert_eq!(f.capacity_bytes, Some(1465149168 * 512));
        assert_eq!(f.scheduler.as_deref(), Some("none"));
        assert_eq!((f.io_poll, f.nvme_poll_queues), (Some(true), Some(2)));
        assert_eq!(f.discard_supported(), Some(true));
        assert_eq!(f.write_cache.as_deref(), Some("write through"));
        let none = DiskFacts::read_from(dir.path(), "sdz");
        assert_eq!((none.model, none.rotational), (None, None));
    }

    #[test]
    fn picks_the_bracketed_choice() {
        assert_eq!(
            active_choice("none [mq-deadline] kyber").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(active_choice("none"), None);
    }

    #[test]
    fn the_root_filesystem_has_a_type() {
        assert!(filesystem_of(Path::new("/")).is_some());
    }
}
