//! A disk's interrupts, from /proc/interrupts, to tell whether I/O that asked to be polled
//! really was. A poll queue has no interrupt vector: polled completions raise no count, while
//! completions by interrupt raise the disk's count about one per I/O. Reading `io_poll` only
//! says the device *can* poll; the kernel may still complete the I/O by interrupt (it ignores
//! RWF_HIPRI on synchronous direct I/O since about 5.18), and only the count shows that.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The interrupt lines of the PCI function behind `/sys/block/DISK` (its MSI/MSI-X vectors:
/// every queue's interrupt, admin queue included). Empty for disks with no PCI function
/// (zram, loop, virtual devices) or whose function uses no MSI. A native NVMe multipath head
/// (`/sys/devices/virtual/nvme-subsystem/…/nvme0n1`, what a drive whose controller says it
/// can share namespaces gets, QEMU 10's included) has no function of its own: its paths'
/// functions (its hidden path disks, `nvme0c0n1`, … beside `nvme0n1`) are taken instead.
pub fn disk_irqs(disk: &str) -> Vec<u32> {
    let block = Path::new("/sys/block");
    let Ok(dir) = fs::canonicalize(block.join(disk)) else {
        return Vec::new();
    };
    let mut irqs: Vec<u32> = match dir.starts_with("/sys/devices/virtual/nvme-subsystem") {
        true => fs::read_dir(block)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(|n| is_path_of(n, disk)))
            .filter_map(|e| fs::canonicalize(e.path()).ok())
            .flat_map(function_irqs)
            .collect(),
        false => function_irqs(dir),
    };
    irqs.sort_unstable();
    irqs.dedup();
    irqs
}

/// Whether the disk `name` is a path of the multipath head `head`: `nvme0c1n2` of `nvme0n2`
/// (subsystem 0, any controller, namespace 2).
fn is_path_of(name: &str, head: &str) -> bool {
    let Some((subsys, ns)) = head.strip_prefix("nvme").and_then(|h| h.split_once('n')) else {
        return false;
    };
    name.strip_prefix("nvme")
        .and_then(|n| n.strip_prefix(subsys))
        .and_then(|n| n.strip_prefix('c'))
        .and_then(|n| n.split_once('n'))
        .is_some_and(|(ctrl, n)| {
            !ctrl.is_empty() && ctrl.bytes().all(|b| b.is_ascii_digit()) && n == ns
        })
}

/// The MSI vectors of the PCI function above the sysfs directory `dir`.
fn function_irqs(mut dir: std::path::PathBuf) -> Vec<u32> {
    // /sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1: walk up to the function.
    loop {
        if let Ok(entries) = fs::read_dir(dir.join("msi_irqs")) {
            return entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect();
        }
        if !dir.pop() || dir == Path::new("/sys/devices") {
            return Vec::new();
        }
    }
}

/// Every numbered interrupt line's count, summed over CPUs.
pub fn read_interrupts() -> std::io::Result<BTreeMap<u32, u64>> {
    Ok(parse_interrupts(&fs::read_to_string("/proc/interrupts")?))
}

/// Parses /proc/interrupts text: `IRQ: count count ... chip name`; named lines (NMI, LOC) and
/// the CPU header are skipped.
pub fn parse_interrupts(text: &str) -> BTreeMap<u32, u64> {
    let cpus = text
        .lines()
        .next()
        .map_or(0, |h| h.split_whitespace().count());
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let (irq, rest) = line.split_once(':')?;
            let irq = irq.trim().parse().ok()?;
            let total = rest
                .split_whitespace()
                .take(cpus)
                .map_while(|c| c.parse::<u64>().ok())
                .sum();
            Some((irq, total))
        })
        .collect()
}

/// How many interrupts `irqs` took between two readings.
pub fn rise(irqs: &[u32], before: &BTreeMap<u32, u64>, after: &BTreeMap<u32, u64>) -> u64 {
    irqs.iter()
        .map(|i| {
            let b = before.get(i).copied().unwrap_or(0);
            after.get(i).copied().unwrap_or(b).saturating_sub(b)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "           CPU0       CPU1       \n\
  0:         34          0   IO-APIC   2-edge      timer\n\
 24:         16          0   PCI-MSI 65536-edge      nvme0q0\n\
 25:          0          0   PCI-MSI 65537-edge      nvme0q1\n\
 26:          0      16387   PCI-MSI 65538-edge      nvme0q2\n\
NMI:          0          0   Non-maskable interrupts\n\
LOC:      12345      23456   Local timer interrupts\n";

    #[test]
    fn counts_are_summed_over_cpus_and_named_lines_skipped() {
        let m = parse_interrupts(SAMPLE);
        assert_eq!(m.get(&26), Some(&16387));
        assert_eq!(m.get(&24), Some(&16));
        assert_eq!(m.get(&0), Some(&34));
        assert_eq!(m.len(), 4);
    }

    #[test]
    fn the_rise_counts_only_the_disks_lines() {
        let before = parse_interrupts(SAMPLE);
        let mut after = before.clone();
        *after.get_mut(&26).unwrap() += 100;
        *after.get_mut(&0).unwrap() += 7;
        assert_eq!(rise(&[24, 25, 26], &before, &after), 100);
        assert_eq!(rise(&[99], &before, &after), 0);
    }

    #[test]
    fn a_disk_without_a_pci_function_has_no_lines() {
        assert!(disk_irqs("no-such-disk").is_empty());
        assert!(is_path_of("nvme0c0n1", "nvme0n1"));
        assert!(is_path_of("nvme0c12n1", "nvme0n1"));
        assert!(!is_path_of("nvme0c0n11", "nvme0n1"));
        assert!(!is_path_of("nvme10c0n1", "nvme1n1"));
        assert!(!is_path_of("nvme0n1", "nvme0n1"));
        // The machine's own disks: a virtio or NVMe disk has lines, zram and loop none.
        if Path::new("/sys/block/zram0").exists() {
            assert!(disk_irqs("zram0").is_empty());
        }
    }
}
