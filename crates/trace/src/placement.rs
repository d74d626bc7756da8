//! Where a target's bytes sit on its disk, so an I/O can be matched with the block request
//! that carried it: the block tracepoints name a disk and a sector, not a file and an offset.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::{kernel_dev, Unavailable};

/// A place on a disk: the disk (the kernel's `dev_t`) and a sector (512 bytes) on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DiskPos {
    pub dev: u32,
    pub sector: u64,
}

/// One run of a file's bytes on its filesystem's device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Extent {
    logical: u64,
    physical: u64,
    len: u64,
}

/// How a target's offsets map to sectors of the disk its requests go to.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The whole disk: request tracepoints name it, not the partition.
    dev: u32,
    /// The partition's first sector on the disk (0 for a whole disk).
    start: u64,
    /// A file's extents on the partition, by logical offset; `None` for a block device,
    /// whose offsets are its sectors.
    extents: Option<Vec<Extent>>,
}

impl Placement {
    /// Where `file` (a regular file or a block device; `name` for messages) sits. A disk
    /// without request events (bio-based: zram, device-mapper) or a file not on a block
    /// device cannot be placed.
    pub fn of(file: &File, name: &str) -> Result<Placement, Unavailable> {
        let meta = file
            .metadata()
            .map_err(|e| Unavailable::NoMap(name.into(), e.to_string()))?;
        let (dev, start) = disk_of(&meta, name)?;
        let extents = match meta.file_type().is_block_device() {
            true => None,
            false => Some(fiemap(file).map_err(|e| Unavailable::NoMap(name.into(), e))?),
        };
        Ok(Placement {
            dev,
            start,
            extents,
        })
    }

    /// A whole disk (`dev` in the kernel's encoding), whose offsets are its sectors.
    pub fn whole_disk(dev: u32) -> Placement {
        Placement {
            dev,
            start: 0,
            extents: None,
        }
    }

    /// The disk requests for this target go to.
    pub fn dev(&self) -> u32 {
        self.dev
    }

    /// Where the byte at `offset` sits; `None` where the file has no block there (a hole,
    /// data not yet written out, or an extent the filesystem does not map to the disk).
    pub fn at(&self, offset: u64) -> Option<DiskPos> {
        let byte = match &self.extents {
            None => offset,
            Some(ext) => {
                let i = ext
                    .partition_point(|e| e.logical <= offset)
                    .checked_sub(1)?;
                let e = ext[i];
                (offset < e.logical + e.len).then(|| e.physical + (offset - e.logical))?
            }
        };
        Some(DiskPos {
            dev: self.dev,
            sector: self.start + byte / 512,
        })
    }
}

/// The request-based disk under a file (its filesystem's) or a block device, in the kernel's
/// encoding, and the first sector of the partition on it.
pub(crate) fn disk_of(meta: &std::fs::Metadata, name: &str) -> Result<(u32, u64), Unavailable> {
    let devno = match meta.file_type().is_block_device() {
        true => meta.rdev(),
        false => meta.dev(),
    };
    let (major, minor) = (libc::major(devno), libc::minor(devno));
    let sys = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let sys = sys
        .canonicalize()
        .map_err(|_| Unavailable::NoDevice(name.into()))?;
    let (disk, start) = match sys.join("partition").exists() {
        true => (
            sys.parent().map(Path::to_path_buf).unwrap_or_default(),
            read_u64(&sys.join("start")).unwrap_or(0),
        ),
        false => (sys.clone(), 0),
    };
    let disk_name = disk
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !disk.join("mq").exists() {
        return Err(Unavailable::BioBased(format!("{name} (on {disk_name})")));
    }
    let dev = read_devno(&disk.join("dev")).ok_or_else(|| Unavailable::NoDevice(name.into()))?;
    Ok((dev, start))
}

fn read_u64(p: &Path) -> Option<u64> {
    std::fs::read_to_string(p).ok()?.trim().parse().ok()
}

/// `major:minor` from a sysfs `dev` file, in the kernel's encoding.
fn read_devno(p: &Path) -> Option<u32> {
    let s = std::fs::read_to_string(p).ok()?;
    let (ma, mi) = s.trim().split_once(':')?;
    Some(kernel_dev(ma.parse().ok()?, mi.parse().ok()?))
}

// FS_IOC_FIEMAP (linux/fiemap.h, linux/fs.h): _IOWR('f', 11, struct fiemap).
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const FIEMAP_FLAG_SYNC: u32 = 0x1;
const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// Extents whose bytes are not (or not only) at `fe_physical` on the device: unknown,
/// delayed allocation, encoded, inline, not block-aligned, unwritten (read as zeros without
/// touching the disk).
const FIEMAP_EXTENT_UNMAPPED: u32 = 0x2 | 0x4 | 0x8 | 0x100 | 0x200 | 0x800;
const EXTENTS_PER_CALL: usize = 256;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct FiemapExtent {
    fe_logical: u64,
    fe_physical: u64,
    fe_length: u64,
    fe_reserved64: [u64; 2],
    fe_flags: u32,
    fe_reserved: [u32; 3],
}

#[repr(C)]
struct Fiemap {
    fm_start: u64,
    fm_length: u64,
    fm_flags: u32,
    fm_mapped_extents: u32,
    fm_extent_count: u32,
    fm_reserved: u32,
    fm_extents: [FiemapExtent; EXTENTS_PER_CALL],
}

/// The file's extents that sit plainly on the device, after writing its dirty pages out
/// (`FIEMAP_FLAG_SYNC`), so the map is the one reads and writes will use.
fn fiemap(file: &File) -> Result<Vec<Extent>, String> {
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let mut fm = Box::new(Fiemap {
            fm_start: start,
            fm_length: u64::MAX - start,
            fm_flags: FIEMAP_FLAG_SYNC,
            fm_mapped_extents: 0,
            fm_extent_count: EXTENTS_PER_CALL as u32,
            fm_reserved: 0,
            fm_extents: [FiemapExtent::default(); EXTENTS_PER_CALL],
        });
        // SAFETY: `fm` is a valid struct fiemap with room for `fm_extent_count` extents.
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, &mut *fm) };
        if rc != 0 {
            return Err(format!("FIEMAP: {}", std::io::Error::last_os_error()));
        }
        let got = &fm.fm_extents[..fm.fm_mapped_extents as usize];
        for e in got
            .iter()
            .filter(|e| e.fe_flags & FIEMAP_EXTENT_UNMAPPED == 0)
        {
            out.push(Extent {
                logical: e.fe_logical,
                physical: e.fe_physical,
                len: e.fe_length,
            });
        }
        match got.last() {
            Some(last) if last.fe_flags & FIEMAP_EXTENT_LAST == 0 => {
                start = last.fe_logical + last.fe_length;
            }
            _ => return Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_written_file_maps_every_block_to_its_disk() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let path = dir.path().join("f");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let p = match Placement::of(&f, "f") {
            Ok(p) => p,
            Err(e) => {
                eprintln!("skipped: {e}");
                return;
            }
        };
        let first = p.at(0).expect("block 0 mapped");
        let last = p.at((1 << 20) - 4096).expect("last block mapped");
        assert_eq!(first.dev, p.dev());
        assert!(last.sector != first.sector);
        assert!(p.at(1 << 21).is_none(), "past the end is a hole");
    }

    #[test]
    fn a_block_device_maps_offsets_to_sectors() {
        let p = Placement {
            dev: kernel_dev(7, 0),
            start: 0,
            extents: None,
        };
        assert_eq!(p.at(8192).unwrap().sector, 16);
        let q = Placement {
            dev: kernel_dev(254, 0),
            start: 2048,
            extents: Some(vec![Extent {
                logical: 0,
                physical: 1 << 20,
                len: 1 << 16,
            }]),
        };
        assert_eq!(q.at(4096).unwrap().sector, 2048 + (1 << 20) / 512 + 8);
        assert!(q.at(1 << 16).is_none());
    }
}
