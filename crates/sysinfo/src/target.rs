//! What a target is: a regular file or a block device, its size, the block sizes O_DIRECT
//! must respect, and whether the device under it has poll queues.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

pub use iolab_results::{TargetFacts, TargetKind};

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: not a regular file, block device or NVMe generic char device (/dev/ngXnY)")]
    NotSupported(PathBuf),
    /// On a pseudo filesystem, or a new file in /dev: never a storage target.
    #[error("{}: {}", .0.path.display(), .0.reason)]
    NotStorage(crate::SafetyError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TargetError + '_ {
    move |source| TargetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Facts about an existing target. Opens it read-only for the ioctls; a target the command
/// claimed is read through its claim, whatever its name leads to now.
pub fn probe(path: &Path) -> Result<TargetFacts, TargetError> {
    crate::storage::check_storage_path(path).map_err(TargetError::NotStorage)?;
    if let Some(pin) = crate::claim::claimed(path) {
        return probe_pin(&pin, path);
    }
    let meta = fs::metadata(path).map_err(io_err(path))?;
    let ft = meta.file_type();
    if ft.is_block_device() || ft.is_file() {
        let file = fs::File::options()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(io_err(path))?;
        probe_open(path, &file)
    } else if let Some(name) = crate::nvme::generic_name(path) {
        probe_nvme_generic(path, &name)
    } else {
        Err(TargetError::NotSupported(path.to_path_buf()))
    }
}

/// Facts about what `pin` holds, read from a descriptor the pin opens (the claimed object
/// itself when it is anchored), said of `named`, the user's name for it.
pub fn probe_pin(pin: &crate::Pin, named: &Path) -> Result<TargetFacts, TargetError> {
    let file = pin
        .open(libc::O_RDONLY | libc::O_NONBLOCK)
        .map_err(|e| TargetError::Io {
            path: named.to_path_buf(),
            source: match e {
                crate::PinError::Io(e) => e,
                other => std::io::Error::other(other.to_string()),
            },
        })?;
    let ft = file.metadata().map_err(io_err(named))?.file_type();
    if ft.is_char_device() {
        if let Some(name) = crate::nvme::generic_name(&pin.resolved) {
            let mut facts = probe_nvme_generic(&pin.resolved, &name)?;
            facts.path = named.to_path_buf();
            return Ok(facts);
        }
    }
    probe_open(named, &file)
}

/// Facts about the open regular file or block device `file`, named `path`.
fn probe_open(path: &Path, file: &fs::File) -> Result<TargetFacts, TargetError> {
    let meta = file.metadata().map_err(io_err(path))?;
    let ft = meta.file_type();
    if ft.is_block_device() {
        let rdev = meta.rdev();
        let device = (libc::major(rdev), libc::minor(rdev));
        let size_bytes = ioctl_u64(file, BLKGETSIZE64).map_err(io_err(path))?;
        let lbs = ioctl_int(file, libc::BLKSSZGET).map_err(io_err(path))? as u32;
        let disk = whole_disk_name(device);
        Ok(TargetFacts {
            path: path.to_path_buf(),
            kind: TargetKind::BlockDevice,
            size_bytes,
            logical_block_size: lbs.max(512),
            polled: disk.as_deref().is_some_and(disk_polls),
            disk_name: disk,
            device,
        })
    } else if ft.is_file() {
        let dev = meta.dev();
        let device = (libc::major(dev), libc::minor(dev));
        let disk = whole_disk_name(device);
        let lbs = dio_offset_align(file)
            .or_else(|| {
                disk.as_deref()
                    .and_then(|d| read_sys_u64(&format!("/sys/block/{d}/queue/logical_block_size")))
                    .map(|v| v as u32)
            })
            .unwrap_or(512);
        Ok(TargetFacts {
            path: path.to_path_buf(),
            kind: TargetKind::File,
            size_bytes: meta.len(),
            logical_block_size: lbs,
            polled: disk.as_deref().is_some_and(disk_polls),
            disk_name: disk,
            device,
        })
    } else {
        Err(TargetError::NotSupported(path.to_path_buf()))
    }
}

/// An NVMe generic char device: its geometry from the drive (Identify Namespace); its disk,
/// device number and poll queues those of the namespace's block device when there is one
/// (the same data, so the same write checks).
fn probe_nvme_generic(path: &Path, name: &str) -> Result<TargetFacts, TargetError> {
    let file = fs::File::open(path).map_err(io_err(path))?;
    let ns = crate::nvme::identify(&file).map_err(io_err(path))?;
    let block = crate::nvme::block_sibling(name);
    let rdev = fs::metadata(block.as_deref().unwrap_or(path))
        .map_err(io_err(path))?
        .rdev();
    let disk = block
        .as_ref()
        .and_then(|_| name.strip_prefix("ng"))
        .map(|n| format!("nvme{n}"));
    Ok(TargetFacts {
        path: path.to_path_buf(),
        kind: TargetKind::NvmeGeneric,
        size_bytes: ns.lbas * ns.lba_bytes as u64,
        logical_block_size: ns.lba_bytes,
        device: (libc::major(rdev), libc::minor(rdev)),
        polled: disk.as_deref().is_some_and(disk_polls),
        disk_name: disk,
    })
}

/// Facts for a regular file that does not exist yet, from the directory it will be created
/// in: size 0, and the block size and poll queues of the disk under that directory.
pub fn probe_new_file(path: &Path) -> Result<TargetFacts, TargetError> {
    crate::storage::check_storage_path(path).map_err(TargetError::NotStorage)?;
    // Missing directories are created with the file (as fio's): the facts are the nearest
    // existing one's.
    let parent = crate::storage::existing_dir(path);
    let parent = parent.as_path();
    let meta = fs::metadata(parent).map_err(io_err(parent))?;
    if !meta.is_dir() {
        return Err(TargetError::NotSupported(parent.to_path_buf()));
    }
    let device = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let disk = whole_disk_name(device);
    let lbs = disk
        .as_deref()
        .and_then(|d| read_sys_u64(&format!("/sys/block/{d}/queue/logical_block_size")))
        .map_or(512, |v| v as u32);
    Ok(TargetFacts {
        path: path.to_path_buf(),
        kind: TargetKind::File,
        size_bytes: 0,
        logical_block_size: lbs,
        polled: disk.as_deref().is_some_and(disk_polls),
        disk_name: disk,
        device,
    })
}

/// `BLKGETSIZE64` = _IOR(0x12, 114, size_t).
const BLKGETSIZE64: u64 = 0x8008_1272;

fn ioctl_u64(file: &fs::File, req: u64) -> std::io::Result<u64> {
    use std::os::fd::AsRawFd;
    let mut v: u64 = 0;
    // SAFETY: the request writes one u64 into v.
    if unsafe { libc::ioctl(file.as_raw_fd(), req as _, &mut v) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v)
}

fn ioctl_int(file: &fs::File, req: u64) -> std::io::Result<i32> {
    use std::os::fd::AsRawFd;
    let mut v: libc::c_int = 0;
    // SAFETY: the request writes one int into v.
    if unsafe { libc::ioctl(file.as_raw_fd(), req as _, &mut v) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v)
}

/// The file-offset alignment direct I/O needs on the open file (statx STATX_DIOALIGN,
/// Linux 6.1+).
fn dio_offset_align(file: &fs::File) -> Option<u32> {
    use std::os::fd::AsRawFd;
    // SAFETY: zeroed statx is a valid out-buffer.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: an empty path with AT_EMPTY_PATH names the open descriptor; stx is writable.
    let r = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if r != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return None;
    }
    Some(stx.stx_dio_offset_align)
}

pub(crate) fn read_sys_u64(path: &str) -> Option<u64> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn disk_polls(disk: &str) -> bool {
    read_sys_u64(&format!("/sys/block/{disk}/queue/io_poll")) == Some(1)
}

/// The disk's zone model when it has zones (`host-managed`, `host-aware`), from
/// `queue/zoned`; `None` for a conventional disk.
pub fn disk_zoned(disk: &str) -> Option<String> {
    let model = fs::read_to_string(format!("/sys/block/{disk}/queue/zoned")).ok()?;
    let model = model.trim();
    (model != "none" && !model.is_empty()).then(|| model.to_string())
}

/// The most zones the disk keeps open for writing (`queue/max_open_zones`; 0: no limit).
pub fn disk_max_open_zones(disk: &str) -> u32 {
    read_sys_u64(&format!("/sys/block/{disk}/queue/max_open_zones")).map_or(0, |n| n as u32)
}

/// The largest I/O the disk takes without the block layer splitting it (`max_sectors_kb`).
pub fn disk_max_io_bytes(disk: &str) -> Option<u64> {
    read_sys_u64(&format!("/sys/block/{disk}/queue/max_sectors_kb")).map(|kb| kb * 1024)
}

/// `/sys/dev/block/MAJOR:MINOR` resolved (the device's sysfs directory), remembered per
/// device number for the process: a job of 500,000 files on one filesystem asks for the
/// same disk's name for every file, and each resolution walks a dozen sysfs links. A device
/// keeps its sysfs node while it exists; the write guard's own checks (holders, mounts,
/// signatures) are read afresh every time and never come from here.
fn sys_dev_link(device: (u32, u32)) -> Option<std::path::PathBuf> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Links = Mutex<HashMap<(u32, u32), Option<std::path::PathBuf>>>;
    static LINKS: OnceLock<Links> = OnceLock::new();
    let links = LINKS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(l) = links.lock().ok()?.get(&device) {
        return l.clone();
    }
    let link = fs::canonicalize(format!("/sys/dev/block/{}:{}", device.0, device.1)).ok();
    if let Ok(mut m) = links.lock() {
        m.insert(device, link.clone());
    }
    link
}

/// The sysfs name of the whole disk for a device number: the device itself, or the parent of
/// a partition. `None` for devices outside /sys/block (e.g. overlay or tmpfs st_dev).
pub fn whole_disk_name(device: (u32, u32)) -> Option<String> {
    let link = sys_dev_link(device)?;
    let dir = if link.join("partition").exists() {
        link.parent()?.to_path_buf()
    } else {
        link
    };
    Some(dir.file_name()?.to_string_lossy().into_owned())
}

/// The block device under the filesystem holding `path`: (its own name as /proc/diskstats
/// lists it — a partition's name for a partition — and the whole disk's name). `None` for a
/// filesystem on no block device (tmpfs, overlay).
pub fn block_device_of(path: &Path) -> Option<(String, String)> {
    let dev = fs::metadata(path).ok()?.dev();
    let device = (libc::major(dev), libc::minor(dev));
    let link = sys_dev_link(device)?;
    let own = link.file_name()?.to_string_lossy().into_owned();
    Some((own, whole_disk_name(device)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, vec![0u8; 8192]).unwrap();
        let f = probe(&p).unwrap();
        assert_eq!(f.kind, TargetKind::File);
        assert_eq!(f.size_bytes, 8192);
        assert!(f.logical_block_size >= 512 && f.logical_block_size.is_power_of_two());
    }

    #[test]
    fn the_block_device_under_a_directory() {
        // /sys itself is on no block device; a directory on one names it and its disk.
        assert_eq!(block_device_of(Path::new("/sys")), None);
        let dir = tempfile::tempdir().unwrap();
        match block_device_of(dir.path()) {
            Some((own, whole)) => {
                assert!(own.starts_with(&whole), "{own} is not on {whole}");
                assert!(Path::new("/sys/block").join(&whole).exists());
            }
            None => println!("skipped: the temp directory is on no block device"),
        }
    }

    #[test]
    fn a_new_file_gets_its_directory_facts() {
        let dir = tempfile::tempdir().unwrap();
        let f = probe_new_file(&dir.path().join("new")).unwrap();
        assert_eq!((f.kind, f.size_bytes), (TargetKind::File, 0));
        assert!(f.logical_block_size >= 512);
        // A missing directory is made with the file: its facts are the nearest existing one's.
        let deep = probe_new_file(&dir.path().join("a/b/new")).unwrap();
        assert_eq!(deep.device, f.device);
        assert!(probe_new_file(Path::new("/proc/nonexistent/f")).is_err());
    }

    #[test]
    fn missing_and_odd_targets_are_errors() {
        assert!(probe(Path::new("/nonexistent/iolab"))
            .unwrap_err()
            .to_string()
            .contains("/nonexistent/iolab"));
        assert!(matches!(
            probe(Path::new("/dev/null")),
            Err(TargetError::NotSupported(_))
        ));
    }
}
