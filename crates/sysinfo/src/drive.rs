//! A drive's identity as its disk's sysfs directory gives it: model, firmware revision and
//! serial number. One reader for every output that names the drive (the review's info step,
//! `doctor`, the PTS header, `compare`'s "firmware changed"), so they cannot disagree.

use std::path::Path;

/// What a disk says of itself; each `None` where sysfs has no such file or it is empty
/// (zram and loop devices have none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriveIdentity {
    pub model: Option<String>,
    /// `device/firmware_rev` (NVMe), else `device/rev` (SCSI and SATA disks).
    pub firmware: Option<String>,
    /// `device/serial` (NVMe), else the SCSI unit serial number page (VPD 0x80).
    pub serial: Option<String>,
}

fn text(p: &Path) -> Option<String> {
    let s = std::fs::read_to_string(p).ok()?;
    let s = s.trim().trim_matches('\0').trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn vpd_serial(disk: &Path) -> Option<String> {
    let raw = std::fs::read(disk.join("device/vpd_pg80")).ok()?;
    let s = String::from_utf8_lossy(raw.get(4..)?).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The identity of the disk whose sysfs directory is `disk` (`/sys/block/nvme0n1`).
pub fn identity(disk: &Path) -> DriveIdentity {
    let dev = disk.join("device");
    DriveIdentity {
        model: text(&dev.join("model")),
        firmware: text(&dev.join("firmware_rev")).or_else(|| text(&dev.join("rev"))),
        serial: text(&dev.join("serial")).or_else(|| vpd_serial(disk)),
    }
}

/// The identity of the disk named `name` in /sys/block.
pub fn of_disk(name: &str) -> DriveIdentity {
    identity(&Path::new("/sys/block").join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvme_and_scsi_name_their_firmware_differently() {
        let d = tempfile::tempdir().unwrap();
        let nvme = d.path().join("nvme0n1");
        std::fs::create_dir_all(nvme.join("device")).unwrap();
        std::fs::write(nvme.join("device/model"), "INTEL SSDPED1K750GA  \n").unwrap();
        std::fs::write(nvme.join("device/firmware_rev"), "E2010435\n").unwrap();
        std::fs::write(nvme.join("device/serial"), "PHKS1234\n").unwrap();
        let scsi = d.path().join("sda");
        std::fs::create_dir_all(scsi.join("device")).unwrap();
        std::fs::write(scsi.join("device/rev"), "0001\n").unwrap();
        let mut page = vec![0, 0x80, 0, 4];
        page.extend(b"S123");
        std::fs::write(scsi.join("device/vpd_pg80"), page).unwrap();
        let n = identity(&nvme);
        assert_eq!(n.model.as_deref(), Some("INTEL SSDPED1K750GA"));
        assert_eq!(n.firmware.as_deref(), Some("E2010435"));
        assert_eq!(n.serial.as_deref(), Some("PHKS1234"));
        let s = identity(&scsi);
        assert_eq!(
            (s.model, s.firmware.as_deref(), s.serial.as_deref()),
            (None, Some("0001"), Some("S123"))
        );
    }
}
