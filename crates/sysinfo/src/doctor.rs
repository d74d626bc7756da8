//! `iolab doctor`: the machine's settings that move storage figures, each with what a
//! benchmark wants (the SPDK blog's setup, `scripts/prep_benchmarks.sh` of SPDK: performance
//! governor, Turbo Boost off, irqbalance stopped, NVMe queues with `nomerges=1`, `io_poll=1`,
//! classic polling) and what the user can do. Read from sysfs and procfs only; nothing is
//! changed.

use std::fs;
use std::path::Path;

use iolab_results::{MachineCheck, Verdict};

fn read(p: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn check(name: &str, value: String, want: &str, verdict: Verdict, advice: &str) -> MachineCheck {
    MachineCheck {
        name: name.into(),
        value,
        want: want.into(),
        verdict,
        advice: advice.into(),
    }
}

fn na(name: &str, why: &str, want: &str) -> MachineCheck {
    check(name, why.into(), want, Verdict::NotApplicable, "")
}

/// The machine's checks (no target): CPU frequency and idle states, interrupts, the clock,
/// io_uring, swap, load, NVMe power states.
pub fn machine() -> Vec<MachineCheck> {
    vec![
        governor(),
        turbo(),
        irqbalance(),
        idle_states(),
        clock_source(),
        io_uring_disabled(),
        swap(),
        load(),
        steal(),
        nvme_power_states(),
        virtual_machine(),
        memory(),
        numa(),
    ]
}

/// The machine's memory: the page cache a buffered job reads from is bounded by it, and a
/// file smaller than it can be served from memory. Its total only (the free share is the
/// moment's, and a stored run's checks are compared between runs).
fn memory() -> MachineCheck {
    let meminfo = read("/proc/meminfo").unwrap_or_default();
    let kib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
    match kib {
        None => na("memory", "unknown (/proc/meminfo unreadable)", ""),
        // A fact, not a setting: a buffered job on a file smaller than this may be served
        // from the page cache, which the run's own page-cache check says where it happens.
        Some(k) => check(
            "memory",
            format!("{:.1} GiB", k as f64 / (1024.0 * 1024.0)),
            "",
            Verdict::Ok,
            "",
        ),
    }
}

/// NUMA nodes: with more than one, a job's CPUs and buffers on the far node from the drive
/// add a hop to every I/O.
fn numa() -> MachineCheck {
    match numa_nodes() {
        0 | 1 => check("NUMA nodes", "1".into(), "1", Verdict::Ok, ""),
        n => check(
            "NUMA nodes",
            n.to_string(),
            "1",
            Verdict::Note,
            "pin the jobs to the drive's node (numa_cpu_nodes=, numa_mem_policy=; the \
             device's node is its `NUMA node` check) so no I/O crosses the interconnect",
        ),
    }
}

/// A guest says so in its CPU flags (`hypervisor`, which every x86 hypervisor sets). Its
/// figures are the host's too: a virtio disk is the host's storage stack and cache, and the
/// guest's CPUs can be taken away (steal time) in the middle of an I/O.
fn virtual_machine() -> MachineCheck {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let guest = cpuinfo
        .lines()
        .filter(|l| l.starts_with("flags"))
        .any(|l| l.split_whitespace().any(|f| f == "hypervisor"));
    match guest {
        false => check("virtual machine", "no".into(), "no", Verdict::Ok, ""),
        true => check(
            "virtual machine",
            "yes (the CPUs carry the hypervisor flag)".into(),
            "no",
            Verdict::Distorts,
            "figures include the host: a virtio disk is the host's storage stack and cache, \
             and steal time lands in latency; measure a device on bare metal to review it",
        ),
    }
}

fn governor() -> MachineCheck {
    let mut govs: Vec<String> = (0..1024)
        .map_while(|c| {
            let cpu = format!("/sys/devices/system/cpu/cpu{c}");
            Path::new(&cpu)
                .exists()
                .then(|| read(format!("{cpu}/cpufreq/scaling_governor")))
        })
        .flatten()
        .collect();
    govs.sort();
    govs.dedup();
    let want = "performance";
    match govs.as_slice() {
        [] => na("cpu governor", "no cpufreq (a VM, or the firmware sets the clock)", want),
        [g] if g == want => check("cpu governor", g.clone(), want, Verdict::Ok, ""),
        _ => check(
            "cpu governor",
            govs.join(", "),
            want,
            Verdict::Distorts,
            "the clock moves with load, and QD1 latency with it: cpupower frequency-set -g performance",
        ),
    }
}

fn turbo() -> MachineCheck {
    let want = "off";
    let advice = "turbo moves the clock with temperature and load (the SPDK blog turns it off): \
                  echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo (or 0 > cpufreq/boost)";
    if let Some(v) = read("/sys/devices/system/cpu/intel_pstate/no_turbo") {
        return match v.as_str() {
            "1" => check("turbo", "off".into(), want, Verdict::Ok, ""),
            _ => check("turbo", "on".into(), want, Verdict::Distorts, advice),
        };
    }
    match read("/sys/devices/system/cpu/cpufreq/boost").as_deref() {
        Some("0") => check("turbo", "off".into(), want, Verdict::Ok, ""),
        Some(_) => check("turbo", "on".into(), want, Verdict::Distorts, advice),
        None => na("turbo", "no boost control (a VM, or none)", want),
    }
}

fn irqbalance() -> MachineCheck {
    let running = fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| read(e.path().join("comm")).is_some_and(|c| c == "irqbalance"));
    match running {
        false => check(
            "irqbalance",
            "not running".into(),
            "not running",
            Verdict::Ok,
            "",
        ),
        true => check(
            "irqbalance",
            "running".into(),
            "not running",
            Verdict::Note,
            "it moves interrupts during a run: systemctl stop irqbalance",
        ),
    }
}

fn idle_states() -> MachineCheck {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cpuidle");
    let mut deep = Vec::new();
    for i in 0..16 {
        let s = dir.join(format!("state{i}"));
        let Some(name) = read(s.join("name")) else {
            break;
        };
        let latency: u64 = read(s.join("latency"))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if latency > 2 && read(s.join("disable")).as_deref() == Some("0") {
            deep.push(format!("{name} ({latency} µs exit)"));
        }
    }
    let want = "none deeper than C1";
    match (dir.exists(), deep.is_empty()) {
        (false, _) => na("deep C-states", "no cpuidle", want),
        (true, true) => check(
            "deep C-states",
            "none enabled".into(),
            want,
            Verdict::Ok,
            "",
        ),
        (true, false) => check(
            "deep C-states",
            deep.join(", "),
            want,
            Verdict::Note,
            "an idle CPU waking for a completion adds its exit latency to QD1 figures: \
             cpupower idle-set -D 2, or poll (hipri)",
        ),
    }
}

fn clock_source() -> MachineCheck {
    let v = read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .unwrap_or_else(|| "unknown".into());
    let verdict = if v == "tsc" {
        Verdict::Ok
    } else {
        Verdict::Note
    };
    let advice = "iolab stamps with clock_gettime instead of the TSC: a few ns more per I/O";
    check(
        "clock source",
        v,
        "tsc",
        verdict,
        if verdict == Verdict::Ok { "" } else { advice },
    )
}

fn io_uring_disabled() -> MachineCheck {
    match read("/proc/sys/kernel/io_uring_disabled").as_deref() {
        None => na(
            "io_uring_disabled",
            "no such sysctl (kernel before 6.6)",
            "0",
        ),
        Some("0") => check("io_uring_disabled", "0".into(), "0", Verdict::Ok, ""),
        Some(v) => check(
            "io_uring_disabled",
            v.into(),
            "0",
            Verdict::Distorts,
            "io_uring is refused (2) or only for a group (1): sysctl kernel.io_uring_disabled=0",
        ),
    }
}

fn swap() -> MachineCheck {
    let swaps = read("/proc/swaps").unwrap_or_default();
    let active: Vec<&str> = swaps
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    match active.is_empty() {
        true => check("swap", "none".into(), "none", Verdict::Ok, ""),
        false => check(
            "swap",
            active.join(", "),
            "none",
            Verdict::Note,
            "a job's buffers paged out stall it: swapoff -a while measuring",
        ),
    }
}

/// The CPUs' use by other work just before the run: (CPUs busy, share of time stolen by the
/// hypervisor), from two reads of `/proc/stat` 100 ms apart while iolab itself waits; taken
/// once per process (the warning and the run's record read the same sample).
fn cpu_sample() -> Option<(f64, f64)> {
    static SAMPLE: std::sync::OnceLock<Option<(f64, f64)>> = std::sync::OnceLock::new();
    *SAMPLE.get_or_init(|| {
        let fields = || -> Option<Vec<u64>> {
            let stat = read("/proc/stat")?;
            let line = stat.lines().find(|l| l.starts_with("cpu "))?;
            line.split_whitespace()
                .skip(1)
                .map(|f| f.parse().ok())
                .collect()
        };
        let a = fields()?;
        std::thread::sleep(std::time::Duration::from_millis(100));
        let b = fields()?;
        let d: Vec<u64> = b
            .iter()
            .zip(&a)
            .map(|(x, y)| x.saturating_sub(*y))
            .collect();
        // user nice system idle iowait irq softirq steal (guest time is inside user).
        let total: u64 = d.iter().take(8).sum();
        if total == 0 {
            return None;
        }
        let idle = d.get(3).copied().unwrap_or(0) + d.get(4).copied().unwrap_or(0);
        let steal = d.get(7).copied().unwrap_or(0);
        let cpus = crate::host::host_facts().cpus.max(1) as f64;
        let busy = (total - idle - steal) as f64 / total as f64 * cpus;
        Some((busy, steal as f64 / total as f64))
    })
}

/// Other work on the CPUs now: a distortion past half of them (it shares the CPUs that
/// submit and complete I/O); the minute's load average beside it, which counts iolab's own
/// last run too and so is only context.
fn load() -> MachineCheck {
    let cpus = crate::host::host_facts().cpus.max(1) as f64;
    let load: f64 = read("/proc/loadavg")
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    let Some((busy, _)) = cpu_sample() else {
        return na("load from others", "no /proc/stat", "idle");
    };
    let value = format!("{busy:.1} of {cpus} CPUs busy now (load {load:.2} over 1 min)");
    match busy / cpus > 0.5 {
        false => check("load from others", value, "idle", Verdict::Ok, ""),
        true => check(
            "load from others",
            value,
            "idle",
            Verdict::Distorts,
            "other work shares the CPUs that submit and complete I/O: stop it, or pin with taskset",
        ),
    }
}

/// Time the hypervisor gave the guest's CPUs to others: over 2 %, it lands in latency.
fn steal() -> MachineCheck {
    let Some((_, steal)) = cpu_sample() else {
        return na("steal time", "no /proc/stat", "0 %");
    };
    let value = format!("{:.1} % of CPU time now", steal * 100.0);
    match steal > 0.02 {
        false => check("steal time", value, "0 %", Verdict::Ok, ""),
        true => check(
            "steal time",
            value,
            "0 %",
            Verdict::Distorts,
            "the host runs other guests on these CPUs: an I/O's CPU can vanish mid-flight; \
             measure on an idle host or bare metal",
        ),
    }
}

fn nvme_power_states() -> MachineCheck {
    let want = "0 (APST off)";
    match read("/sys/module/nvme_core/parameters/default_ps_max_latency_us") {
        None => na("NVMe power states", "no NVMe driver loaded", want),
        Some(v) if v == "0" => check("NVMe power states", v, want, Verdict::Ok, ""),
        Some(v) => check(
            "NVMe power states",
            format!("APST up to {v} µs"),
            want,
            Verdict::Note,
            "an idle drive drops to a power state whose exit shows in the first I/Os after a \
             pause: nvme_core.default_ps_max_latency_us=0",
        ),
    }
}

/// The checks of the disk under `target`: model, firmware and format, and its queue's
/// settings against the SPDK setup's.
pub fn device(target: &Path) -> Vec<MachineCheck> {
    let mut v: Vec<MachineCheck> = filesystem(target).into_iter().collect();
    let Some(disk) = disk_dir(target) else {
        v.push(na("device", "not on a block device", ""));
        return v;
    };
    v.extend(disk_checks(target, &disk));
    v
}

/// The filesystem a file target lies on, with its mount options (from
/// `/proc/self/mountinfo`, matched by device number); `None` for a device target.
fn filesystem(target: &Path) -> Option<MachineCheck> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = fs::metadata(target)
        .or_else(|_| fs::metadata(target.parent().unwrap_or(Path::new("."))))
        .ok()?;
    if meta.file_type().is_block_device() || meta.file_type().is_char_device() {
        return None;
    }
    let dev = format!("{}:{}", libc::major(meta.dev()), libc::minor(meta.dev()));
    let mountinfo = read("/proc/self/mountinfo")?;
    // Fields: id parent major:minor root mountpoint options ... - fstype source super-options.
    let line = mountinfo
        .lines()
        .rfind(|l| l.split_whitespace().nth(2) == Some(dev.as_str()))?;
    let (head, tail) = line.split_once(" - ")?;
    let head: Vec<&str> = head.split_whitespace().collect();
    let tail: Vec<&str> = tail.split_whitespace().collect();
    let (mount, options) = (head.get(4)?, head.get(5)?);
    let (fstype, source, sup) = (tail.first()?, tail.get(1)?, tail.get(2).unwrap_or(&""));
    let mut all: Vec<&str> = Vec::new();
    for o in options.split(',').chain(sup.split(',')) {
        if !o.is_empty() && !all.contains(&o) {
            all.push(o);
        }
    }
    let risky: Vec<&str> = all
        .iter()
        .copied()
        .filter(|o| {
            ["sync", "dirsync", "nobarrier", "barrier=0", "data=journal"].contains(o)
                || o.starts_with("compress")
        })
        .collect();
    let value = format!("{fstype} on {mount} from {source} ({})", all.join(","));
    Some(match (fstype, risky.is_empty()) {
        (&"tmpfs" | &"ramfs", _) => check(
            "filesystem",
            value,
            "a disk's filesystem",
            Verdict::Distorts,
            "a file in memory measures memory, not a drive: put the file on the drive's \
             filesystem",
        ),
        (_, true) => check("filesystem", value, "", Verdict::Ok, ""),
        (_, false) => check(
            "filesystem",
            value,
            "default options",
            Verdict::Note,
            &format!(
                "{} change what a write costs: figures are this mount's, not the drive's",
                risky.join(", ")
            ),
        ),
    })
}

/// The checks of the whole disk whose sysfs directory is `disk`.
fn disk_checks(target: &Path, disk: &Path) -> Vec<MachineCheck> {
    let q = |f: &str| read(disk.join("queue").join(f));
    let name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nvme = name.starts_with("nvme");
    let id = crate::drive::identity(disk);
    let model = id.model.unwrap_or_else(|| "unknown".into());
    let firmware = id.firmware.unwrap_or_else(|| "unknown".into());
    let mut v = vec![
        check(
            "device",
            format!("{name}: {model}, firmware {firmware}"),
            "",
            Verdict::Note,
            "",
        ),
        check(
            "format",
            format!(
                "{} B logical, {} B physical blocks",
                q("logical_block_size").unwrap_or_default(),
                q("physical_block_size").unwrap_or_default()
            ),
            "",
            Verdict::Note,
            "",
        ),
    ];
    // A bio-based device (zram, device-mapper, md) has no request queue: no scheduler, no
    // rq_affinity, so no advice about them.
    let sched = q("scheduler");
    let bio_based = sched.is_none();
    let missing = match bio_based {
        true => "none here: a bio-based device has no request queue",
        false => "not on this kernel",
    };
    let active = sched.as_deref().map(|sched| {
        sched
            .split_whitespace()
            .find(|s| s.starts_with('['))
            .map(|s| s.trim_matches(['[', ']']).to_string())
            .unwrap_or(sched.to_string())
    });
    v.push(match active {
        None => na("I/O scheduler", missing, "none"),
        Some(a) if a == "none" => check("I/O scheduler", a, "none", Verdict::Ok, ""),
        Some(a) => check(
            "I/O scheduler",
            a,
            "none",
            Verdict::Note,
            "a scheduler adds to the submit path of a fast SSD: echo none > queue/scheduler",
        ),
    });
    let setting = |f: &str, want: &str, advice: &str| match q(f) {
        None => na(f, missing, want),
        Some(x) if x == want => check(f, x, want, Verdict::Ok, ""),
        Some(x) => check(f, x, want, Verdict::Note, advice),
    };
    if nvme {
        v.push(setting(
            "nomerges",
            "1",
            "prep_benchmarks.sh sets it: echo 1 > queue/nomerges",
        ));
        v.push(setting(
            "io_poll",
            "1",
            "polling needs poll queues: nvme.poll_queues=N",
        ));
        v.push(setting(
            "io_poll_delay",
            "-1",
            "classic polling, as the SPDK blog measured: echo -1 > queue/io_poll_delay",
        ));
    }
    v.push(setting(
        "rq_affinity",
        "1",
        "completions run on the submitting CPU's group at 1",
    ));
    v.push(setting(
        "wbt_lat_usec",
        "0",
        "write-back throttling holds writes back under load: echo 0 > queue/wbt_lat_usec",
    ));
    v.extend(numa_node(disk));
    v.extend(partitions(target, disk, &name));
    v
}

/// The NUMA node the drive hangs off, on a machine with more than one.
/// The machine's NUMA nodes (`nodeN` entries; the directory also holds masks such as
/// `online`), 0 when sysfs does not say.
fn numa_nodes() -> usize {
    fs::read_dir("/sys/devices/system/node")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| {
                    n.strip_prefix("node")
                        .is_some_and(|k| k.parse::<u32>().is_ok())
                })
                .count()
        })
        .unwrap_or(0)
}

fn numa_node(disk: &Path) -> Option<MachineCheck> {
    let node = read(disk.join("device/numa_node"))
        .or_else(|| read(disk.join("device/device/numa_node")))?;
    (numa_nodes() > 1 && node != "-1").then(|| {
        check(
            "NUMA node",
            node.clone(),
            "",
            Verdict::Note,
            &format!("run the jobs on node {node}'s CPUs: numa_cpu_nodes={node}"),
        )
    })
}

/// A whole disk named as the target that holds partitions: writing it would destroy them
/// (the write guard refuses), and reading it reads them all.
fn partitions(target: &Path, disk: &Path, name: &str) -> Option<MachineCheck> {
    use std::os::unix::fs::FileTypeExt;
    let is_device = fs::metadata(target).is_ok_and(|m| m.file_type().is_block_device());
    let parts: Vec<String> = fs::read_dir(disk)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(name) && disk.join(n).join("partition").exists())
        .collect();
    let whole = fs::canonicalize(target)
        .ok()
        .is_some_and(|p| p.file_name().is_some_and(|n| n == name));
    (is_device && whole && !parts.is_empty()).then(|| {
        check(
            "partitions",
            parts.join(", "),
            "none",
            Verdict::Note,
            "the disk holds partitions: writing it is refused (it would destroy them); \
             measure a partition or a spare drive",
        )
    })
}

/// The sysfs directory of the whole disk under `target`.
fn disk_dir(target: &Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = fs::metadata(target)
        .or_else(|_| fs::metadata(target.parent().unwrap_or(Path::new("."))))
        .ok()?;
    let devno = match meta.file_type().is_block_device() {
        true => meta.rdev(),
        false => meta.dev(),
    };
    let sys = Path::new("/sys/dev/block")
        .join(format!("{}:{}", libc::major(devno), libc::minor(devno)))
        .canonicalize()
        .ok()?;
    match sys.join("partition").exists() {
        true => sys.parent().map(Path::to_path_buf),
        false => Some(sys),
    }
}

/// The one line a run prints before it starts when something here distorts figures.
pub fn distortions(checks: &[MachineCheck]) -> Option<String> {
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| c.verdict == Verdict::Distorts)
        .map(|c| format!("{} {}", c.name, c.value))
        .collect();
    (!bad.is_empty()).then(|| {
        format!(
            "iolab: this machine distorts figures: {} (iolab doctor says what to do)",
            bad.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_machine_check_has_a_value_and_a_verdict_with_advice_when_off() {
        let checks = machine();
        assert_eq!(checks.len(), 13);
        for c in &checks {
            assert!(!c.value.is_empty(), "{c:?}");
            if matches!(c.verdict, Verdict::Distorts | Verdict::Note) && c.name != "device" {
                assert!(!c.advice.is_empty(), "{c:?}");
            }
        }
        let tmp = device(&std::env::temp_dir());
        assert!(tmp.iter().any(|c| c.name == "device"), "{tmp:?}");
    }

    /// zram is bio-based: no scheduler and no rq_affinity to advise about.
    #[test]
    fn a_bio_based_device_gets_no_request_queue_advice() {
        let zram = Path::new("/dev/zram0");
        if !zram.exists() {
            eprintln!("skipped: no /dev/zram0 here");
            return;
        }
        let checks = device(zram);
        for name in ["I/O scheduler", "rq_affinity"] {
            let c = checks.iter().find(|c| c.name == name).unwrap();
            assert_eq!(c.verdict, Verdict::NotApplicable, "{c:?}");
            assert!(c.value.contains("bio-based"), "{c:?}");
            assert!(c.advice.is_empty(), "{c:?}");
        }
    }

    #[test]
    fn a_distortion_is_one_line_naming_each() {
        let c = |n: &str, v: Verdict| MachineCheck {
            name: n.into(),
            value: "x".into(),
            verdict: v,
            ..MachineCheck::default()
        };
        assert_eq!(
            distortions(&[c("a", Verdict::Ok), c("b", Verdict::Note)]),
            None
        );
        let line = distortions(&[
            c("governor", Verdict::Distorts),
            c("turbo", Verdict::Distorts),
        ]);
        let line = line.unwrap();
        assert!(
            line.contains("governor x; turbo x") && !line.contains('\n'),
            "{line}"
        );
    }
}
