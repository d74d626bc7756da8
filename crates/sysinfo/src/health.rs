//! An NVMe drive's SMART / health information log (log page 02h) and its over-temperature
//! threshold (Get Features 04h), read through the controller's char device (`/dev/nvme0`)
//! with the kernel's admin passthrough ioctl, as `nvme smart-log` reads them.
//!
//! Read-only: Get Log Page and Get Features change nothing on the drive. The controller is
//! found through sysfs from the disk a target lies on, so a file on an NVMe filesystem has
//! its drive's health read too; any other disk has none, and the reason says so.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use iolab_results::HealthSample;

use crate::nvme::{admin, NvmeCommand};

const NVME_ADMIN_GET_LOG_PAGE: u8 = 0x02;
const NVME_ADMIN_GET_FEATURES: u8 = 0x0a;
const LOG_SMART: u32 = 0x02;
const FEATURE_TEMPERATURE_THRESHOLD: u32 = 0x04;
/// The health log's size: 512 bytes.
const LOG_BYTES: usize = 512;

/// The controller's char device (`/dev/nvme0`) behind whole disk `disk` (`nvme0n1`), found
/// through sysfs: the disk's `device` is the controller, or (native multipath) the
/// subsystem, whose first controller is taken. `Err` says why there is none.
pub fn controller_of(disk: &str) -> Result<PathBuf, String> {
    let device = fs::canonicalize(format!("/sys/class/block/{disk}/device"))
        .map_err(|_| format!("{disk} is not an NVMe drive"))?;
    let class = fs::read_link(device.join("subsystem"))
        .ok()
        .and_then(|c| c.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let name = match class.as_str() {
        "nvme" => device.file_name().map(|n| n.to_string_lossy().into_owned()),
        "nvme-subsystem" => first_controller(&device),
        _ => None,
    }
    .ok_or_else(|| format!("{disk} is not an NVMe drive"))?;
    let path = PathBuf::from("/dev").join(&name);
    match fs::metadata(&path) {
        Ok(m) if m.file_type().is_char_device() => Ok(path),
        _ => Err(format!("{disk}'s controller has no {}", path.display())),
    }
}

/// The first controller (`nvmeN`) of an NVMe subsystem's sysfs directory.
fn first_controller(subsystem: &Path) -> Option<String> {
    let mut names: Vec<String> = fs::read_dir(subsystem)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.strip_prefix("nvme").is_some_and(is_number))
        .collect();
    names.sort_by_key(|n| n[4..].parse::<u32>().unwrap_or(u32::MAX));
    names.into_iter().next()
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The controller's char device for an NVMe generic device with no block device
/// (`/dev/ng0n1`): its sysfs `device`.
pub fn controller_of_generic(generic: &str) -> Result<PathBuf, String> {
    let device = fs::canonicalize(format!("/sys/class/nvme-generic/{generic}/device"))
        .map_err(|e| format!("{generic}: no controller in sysfs ({e})"))?;
    let name = device
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.strip_prefix("nvme").is_some_and(is_number))
        .or_else(|| first_controller(&device))
        .ok_or_else(|| format!("{generic}: no controller in sysfs"))?;
    Ok(PathBuf::from("/dev").join(name))
}

/// One reading: the health log and the threshold in force (0 when the drive does not say).
/// `at_ms` is left 0 for the caller to set.
pub fn read(controller: &Path) -> io::Result<HealthSample> {
    let file = File::open(controller)?;
    let mut log = [0u8; LOG_BYTES];
    let mut cmd = NvmeCommand {
        opcode: NVME_ADMIN_GET_LOG_PAGE,
        nsid: 0xffff_ffff,
        addr: log.as_mut_ptr() as u64,
        data_len: LOG_BYTES as u32,
        // NUMDL (dwords, zero-based) in bits 31:16, the log's id in 7:0.
        cdw10: ((LOG_BYTES as u32 / 4 - 1) << 16) | LOG_SMART,
        ..NvmeCommand::default()
    };
    admin(&file, &mut cmd, "Get Log Page (SMART / health)")?;
    let mut sample = parse_log(&log);
    let mut feature = NvmeCommand {
        opcode: NVME_ADMIN_GET_FEATURES,
        // SEL 0 (current); TMPSEL 0 (composite) and THSEL 0 (over) in cdw11.
        cdw10: FEATURE_TEMPERATURE_THRESHOLD,
        ..NvmeCommand::default()
    };
    if admin(&file, &mut feature, "Get Features (temperature threshold)").is_ok() {
        sample.threshold_k = (feature.result & 0xffff) as u16;
    }
    Ok(sample)
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The low 64 bits of one of the log's 128-bit counters (2^64 units is beyond any drive).
fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The fields iolab keeps, at the offsets NVMe's base specification (2.0, figure 207) gives.
fn parse_log(b: &[u8; LOG_BYTES]) -> HealthSample {
    HealthSample {
        at_ms: 0,
        critical_warning: b[0],
        temperature_k: le16(b, 1),
        available_spare: b[3],
        spare_threshold: b[4],
        percent_used: b[5],
        data_units_written: le64(b, 48),
        media_errors: le64(b, 160),
        warning_temp_minutes: le32(b, 192),
        critical_temp_minutes: le32(b, 196),
        thermal_transitions: [le32(b, 216), le32(b, 220)],
        thermal_seconds: [le32(b, 224), le32(b, 228)],
        threshold_k: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_read_at_the_specifications_offsets() {
        let mut b = [0u8; LOG_BYTES];
        b[0] = 0x02;
        b[1..3].copy_from_slice(&323u16.to_le_bytes());
        b[3] = 100;
        b[4] = 10;
        b[5] = 3;
        b[48..56].copy_from_slice(&12_345u64.to_le_bytes());
        b[160..168].copy_from_slice(&7u64.to_le_bytes());
        b[192..196].copy_from_slice(&5u32.to_le_bytes());
        b[196..200].copy_from_slice(&1u32.to_le_bytes());
        b[216..220].copy_from_slice(&4u32.to_le_bytes());
        b[220..224].copy_from_slice(&2u32.to_le_bytes());
        b[224..228].copy_from_slice(&60u32.to_le_bytes());
        b[228..232].copy_from_slice(&9u32.to_le_bytes());
        let s = parse_log(&b);
        assert_eq!(s.critical_warning, 2);
        assert_eq!(s.temperature_k, 323);
        assert_eq!(
            (s.available_spare, s.spare_threshold, s.percent_used),
            (100, 10, 3)
        );
        assert_eq!((s.data_units_written, s.media_errors), (12_345, 7));
        assert_eq!((s.warning_temp_minutes, s.critical_temp_minutes), (5, 1));
        assert_eq!(s.thermal_transitions, [4, 2]);
        assert_eq!(s.thermal_seconds, [60, 9]);
    }

    #[test]
    fn disks_that_are_not_nvme_say_so() {
        assert_eq!(
            controller_of("no-such-disk"),
            Err("no-such-disk is not an NVMe drive".into())
        );
        // This machine's disks (virtio, zram, loop) have no NVMe controller.
        for d in ["vda", "zram0", "loop0"] {
            if Path::new("/sys/class/block").join(d).exists() {
                assert_eq!(controller_of(d), Err(format!("{d} is not an NVMe drive")));
            }
        }
    }
}
