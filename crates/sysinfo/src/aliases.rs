//! Every other name of the bytes a target covers. A block device is one name among several
//! for what it stores: a partition is a range of its disk, a loop device a range of its
//! backing file (or device), a device-mapper or md device its slaves. A second loop device
//! over the same image, or over it at an offset, writes the bytes a mounted first one serves;
//! a loop device over the results database writes the database. So the guard judges the
//! *bytes*: each block device is reduced to [`Extent`]s of the objects at the bottom (files by
//! `(st_dev, st_ino)`, whole disks by `major:minor`), and every device of the machine whose
//! extents overlap the target's is an alias, judged as the target is (mounted, swap, held).
//!
//! Loop devices are read with `LOOP_GET_STATUS64` (the backing file's device and inode, the
//! offset and size limit), not by the backing file's name, which may have been renamed,
//! deleted or bind-mounted elsewhere.

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::guard::Identity;

/// A device number as sysfs writes it.
pub type DevNum = (u32, u32);

/// What holds a range of bytes at the bottom of the device stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    /// A regular file, by (filesystem device, inode).
    File(u64, u64),
    /// A whole disk (no partition, loop, device-mapper or md above it), by device number.
    Disk(DevNum),
}

/// A range of bytes of a [`Base`]: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub base: Base,
    pub start: u64,
    pub end: u64,
}

impl Extent {
    fn overlaps(&self, o: &Extent) -> bool {
        self.base == o.base && self.start < o.end && o.start < self.end
    }
}

/// How deep a device stack is followed (a loop over a partition of a loop over ...).
const MAX_DEPTH: usize = 16;

fn sys(dev: DevNum) -> PathBuf {
    PathBuf::from(format!("/sys/dev/block/{}:{}", dev.0, dev.1))
}

fn read_u64(p: &Path) -> Option<u64> {
    fs::read_to_string(p).ok()?.trim().parse().ok()
}

fn read_devnum(p: &Path) -> Option<DevNum> {
    let s = fs::read_to_string(p).ok()?;
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The device's size in bytes (sysfs counts 512-byte sectors whatever the block size).
fn size_bytes(dev: DevNum) -> u64 {
    read_u64(&sys(dev).join("size")).map_or(u64::MAX / 2, |s| s.saturating_mul(512))
}

/// A loop device's binding: what backs it, from where, how much.
#[derive(Debug, Clone, Copy)]
struct LoopStatus {
    /// The backing file's filesystem device and inode.
    device: u64,
    inode: u64,
    /// The backing object's own device number when it is a block device (0 for a file).
    rdevice: u64,
    offset: u64,
}

/// `struct loop_info64` of <linux/loop.h> (libc does not define it).
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

/// `LOOP_GET_STATUS64` of <linux/loop.h>.
const LOOP_GET_STATUS64: u64 = 0x4C05;

/// `LOOP_GET_STATUS64` on the loop device `dev`, opened read-only by its node in /dev (its
/// device number checked); `None` when it is not bound.
fn loop_status(dev: DevNum) -> Option<LoopStatus> {
    use std::os::unix::fs::OpenOptionsExt;
    let name = device_name(dev)?;
    let node = Path::new("/dev").join(&name);
    let f = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(&node)
        .ok()?;
    let m = f.metadata().ok()?;
    if !m.file_type().is_block_device() || (libc::major(m.rdev()), libc::minor(m.rdev())) != dev {
        return None;
    }
    // SAFETY: a zeroed loop_info64 is a valid out-buffer for LOOP_GET_STATUS64.
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: the request fills `info`, which outlives the call.
    if unsafe { libc::ioctl(f.as_raw_fd(), LOOP_GET_STATUS64 as _, &mut info) } < 0 {
        return None;
    }
    Some(LoopStatus {
        device: info.lo_device,
        inode: info.lo_inode,
        rdevice: info.lo_rdevice,
        offset: info.lo_offset,
    })
}

/// The kernel's name of the device (`loop3`, `nvme0n1p2`, `dm-0`), from its uevent.
pub fn device_name(dev: DevNum) -> Option<String> {
    let uevent = fs::read_to_string(sys(dev).join("uevent")).ok()?;
    uevent
        .lines()
        .find_map(|l| l.strip_prefix("DEVNAME="))
        .map(str::to_string)
}

/// The extents the block device `dev` stands for, at the bottom of its stack.
pub fn extents(dev: DevNum) -> Vec<Extent> {
    extents_at(dev, MAX_DEPTH)
}

fn extents_at(dev: DevNum, depth: usize) -> Vec<Extent> {
    let whole = || {
        vec![Extent {
            base: Base::Disk(dev),
            start: 0,
            end: size_bytes(dev),
        }]
    };
    if depth == 0 {
        return whole();
    }
    let dir = sys(dev);
    let len = size_bytes(dev);
    // A partition: a range of its disk.
    if dir.join("partition").exists() {
        let start = read_u64(&dir.join("start"))
            .unwrap_or(0)
            .saturating_mul(512);
        let parent = fs::canonicalize(&dir)
            .ok()
            .and_then(|p| read_devnum(&p.parent()?.join("dev")));
        if let Some(parent) = parent {
            return window(extents_at(parent, depth - 1), start, len);
        }
        return whole();
    }
    // A bound loop device: a range of its backing file or device.
    if dir.join("loop").is_dir() {
        if let Some(s) = loop_status(dev) {
            // The device's size is what the kernel made of the file, offset and size limit.
            let span = len;
            if s.rdevice != 0 {
                let backing = (libc::major(s.rdevice), libc::minor(s.rdevice));
                return window(extents_at(backing, depth - 1), s.offset, span);
            }
            return vec![Extent {
                base: Base::File(s.device, s.inode),
                start: s.offset,
                end: s.offset.saturating_add(span),
            }];
        }
    }
    // Device-mapper, md, bcache: their slaves, whole (which range of a slave a mapping uses
    // is the driver's business; the whole slave is the safe answer).
    let slaves: Vec<DevNum> = fs::read_dir(dir.join("slaves"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| read_devnum(&e.path().join("dev")))
        .collect();
    if !slaves.is_empty() {
        return slaves
            .into_iter()
            .flat_map(|s| extents_at(s, depth - 1))
            .collect();
    }
    whole()
}

/// The part `[start, start + len)` of what `inner` lays end to end (a partition of a disk, a
/// loop's window of its backing device).
fn window(inner: Vec<Extent>, start: u64, len: u64) -> Vec<Extent> {
    let end = start.saturating_add(len);
    let mut out = Vec::new();
    let mut at = 0u64;
    for e in inner {
        let n = e.end - e.start;
        let (lo, hi) = (at.max(start), (at + n).min(end));
        if lo < hi {
            out.push(Extent {
                base: e.base,
                start: e.start + (lo - at),
                end: e.start + (hi - at),
            });
        }
        at += n;
    }
    out
}

/// The extent a regular file stands for: all of it.
pub fn file_extent(m: &fs::Metadata) -> Extent {
    Extent {
        base: Base::File(m.dev(), m.ino()),
        start: 0,
        end: u64::MAX,
    }
}

/// Every block device of the machine (disks, partitions, loops, device-mapper, md), by
/// device number, with its kernel name.
fn all_devices() -> Vec<(String, DevNum)> {
    fs::read_dir("/sys/class/block")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let dev = read_devnum(&e.path().join("dev"))?;
            Some((e.file_name().to_string_lossy().into_owned(), dev))
        })
        .collect()
}

/// Another block device whose bytes overlap `mine`.
#[derive(Debug, Clone)]
pub struct Alias {
    pub name: String,
    pub dev: DevNum,
}

/// Every block device but `except` whose extents overlap `mine`.
pub fn overlapping(mine: &[Extent], except: Option<DevNum>) -> Vec<Alias> {
    all_devices()
        .into_iter()
        .filter(|(_, d)| Some(*d) != except)
        .filter(|(_, d)| {
            let theirs = extents(*d);
            theirs.iter().any(|t| mine.iter().any(|m| m.overlaps(t)))
        })
        .map(|(name, dev)| Alias { name, dev })
        .collect()
}

/// Whether `extents` hold any byte of the regular file `id` (a loop device over it, or over
/// a device under it).
pub fn holds_file(extents: &[Extent], id: Identity) -> bool {
    let Identity::Inode(dev, ino) = id else {
        return false;
    };
    extents.iter().any(|e| e.base == Base::File(dev, ino))
}

/// What makes an alias of a target untouchable, in the user's words: mounted (with where),
/// swap, or held by another device (device-mapper, md, bcache) that is not `target` itself
/// or above it.
pub fn in_use(alias: &Alias, target: Option<DevNum>) -> Option<String> {
    let id = format!("{}:{}", alias.dev.0, alias.dev.1);
    if let Ok(info) = fs::read_to_string("/proc/self/mountinfo") {
        for line in info.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.get(2) == Some(&id.as_str()) {
                return Some(format!("mounted on {}", f.get(4).unwrap_or(&"?")));
            }
        }
    }
    if let Ok(swaps) = fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            let Some(path) = line.split_whitespace().next() else {
                continue;
            };
            if let Ok(m) = fs::metadata(path) {
                if m.file_type().is_block_device()
                    && (libc::major(m.rdev()), libc::minor(m.rdev())) == alias.dev
                {
                    return Some("in use as swap".into());
                }
            }
        }
    }
    let holders: Vec<String> = fs::read_dir(sys(alias.dev).join("holders"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let d = read_devnum(&e.path().join("dev"));
            d.is_some() && d != target
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    (!holders.is_empty()).then(|| format!("held by {}", holders.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_cuts_the_inner_extents_where_the_range_lies() {
        let d = |n| Base::Disk((7, n));
        let inner = vec![
            Extent {
                base: d(1),
                start: 0,
                end: 100,
            },
            Extent {
                base: d(2),
                start: 50,
                end: 150,
            },
        ];
        let w = window(inner, 80, 40);
        assert_eq!(
            w,
            vec![
                Extent {
                    base: d(1),
                    start: 80,
                    end: 100
                },
                Extent {
                    base: d(2),
                    start: 50,
                    end: 70
                }
            ]
        );
        let a = Extent {
            base: d(1),
            start: 0,
            end: 10,
        };
        let b = Extent {
            base: d(1),
            start: 10,
            end: 20,
        };
        assert!(!a.overlaps(&b), "touching ranges share no byte");
        assert!(a.overlaps(&Extent { start: 9, ..b }));
    }
}
