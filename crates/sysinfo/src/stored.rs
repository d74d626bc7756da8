//! How much of a target holds data that was ever written, where the target can tell.
//!
//! A read of a block never written measures no stored data: zram serves a never-written page
//! without touching its store (a fresh zram read 554k IOPS where the same device filled read
//! 260k), a file's hole reads as zeros from the page cache's zero page, and an SSD answers
//! an unmapped LBA without reading flash. A figure from such reads is no read figure of the
//! device, so a reader must be told. zram says how much it stores (`mm_stat`), a file where
//! its holes are (`SEEK_DATA`); a plain block device cannot say, and nothing is claimed.

use std::fs;
use std::os::fd::RawFd;
use std::path::Path;

/// The written share of a target, and how it was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stored {
    /// 0 to 1: the share of the looked-at range that holds written data.
    pub share: f64,
    /// Where the share comes from, for the note that says it.
    pub how: &'static str,
}

/// The written share of the target open as `fd` in `[start, start + len)`, decided on the
/// descriptor (what was opened, whatever its path names now): a zram device's from its
/// `mm_stat` (the whole device: zram keeps no map a reader can query), a regular file's
/// from its holes; `None` where the target cannot tell.
pub fn stored_share(fd: RawFd, start: u64, len: u64) -> Option<Stored> {
    // SAFETY: fstat writes only into `st`, from a descriptor the caller holds open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    match st.st_mode & libc::S_IFMT {
        libc::S_IFBLK => zram_share(libc::major(st.st_rdev), libc::minor(st.st_rdev)),
        libc::S_IFREG if len > 0 => {
            let size = st.st_size.max(0) as u64;
            file_share(fd, start, len.min(size.saturating_sub(start)))
        }
        _ => None,
    }
}

/// zram (the block device `major:minor`): bytes stored (`mm_stat`'s first field,
/// same-filled pages included) over its size. Other devices have no `mm_stat`.
fn zram_share(major: u32, minor: u32) -> Option<Stored> {
    let sys = Path::new("/sys/dev/block").join(format!("{major}:{minor}"));
    let stored: f64 = fs::read_to_string(sys.join("mm_stat"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let size: f64 = fs::read_to_string(sys.join("disksize"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (size > 0.0).then(|| Stored {
        share: (stored / size).min(1.0),
        how: "zram's mm_stat",
    })
}

/// A file: the bytes of `[start, start + len)` outside holes, by `SEEK_DATA`/`SEEK_HOLE`
/// (the descriptor's offset put back after). Gives up (`None`) past 100,000 extents.
fn file_share(fd: RawFd, start: u64, len: u64) -> Option<Stored> {
    if len == 0 {
        return None;
    }
    // SAFETY: lseek on a descriptor the caller holds open; only its offset changes, and it
    // is restored below.
    let saved = unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) };
    let end = start + len;
    let mut at = start;
    let mut data = 0u64;
    let mut extents = 0;
    let result = loop {
        if at >= end {
            break Some(data);
        }
        extents += 1;
        if extents > 100_000 {
            break None;
        }
        // SAFETY: as above.
        let d = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
        if d < 0 {
            // ENXIO: no data past `at`; anything else: the filesystem cannot say.
            let e = std::io::Error::last_os_error().raw_os_error();
            break (e == Some(libc::ENXIO)).then_some(data);
        }
        let d = d as u64;
        if d >= end {
            break Some(data);
        }
        // SAFETY: as above.
        let h = unsafe { libc::lseek(fd, d as libc::off_t, libc::SEEK_HOLE) };
        if h < 0 {
            break None;
        }
        let h = (h as u64).min(end);
        data += h - d;
        at = h;
    };
    if saved >= 0 {
        // SAFETY: as above.
        unsafe { libc::lseek(fd, saved, libc::SEEK_SET) };
    }
    result.map(|d| Stored {
        share: d as f64 / len as f64,
        how: "the file's holes",
    })
}

/// The note a reading job gets when under 99 % of what it reads was ever written; `None`
/// when (nearly) all was, or the target cannot tell.
pub fn unwritten_note(path: &Path, s: &Stored) -> Option<String> {
    (s.share < 0.99).then(|| {
        format!(
            "reads of {}: {:.0} % of it held written data when the job began ({}); a block \
             never written is served without reading stored data, so these read figures \
             are not the device's: write it whole first",
            path.display(),
            s.share * 100.0,
            s.how
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};
    use std::os::fd::AsRawFd;

    #[test]
    fn a_sparse_files_holes_are_its_unwritten_share() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sparse");
        let mut f = fs::File::create(&p).unwrap();
        f.set_len(16 << 20).unwrap();
        f.seek(SeekFrom::Start(4 << 20)).unwrap();
        f.write_all(&vec![7u8; 4 << 20]).unwrap();
        f.sync_all().unwrap();
        f.seek(SeekFrom::Start(123)).unwrap();
        let s = stored_share(f.as_raw_fd(), 0, 16 << 20).unwrap();
        // tmpfs and ext4 both report the written 4 MiB as data, the rest as holes.
        assert!((s.share - 0.25).abs() < 0.01, "{s:?}");
        assert_eq!(f.stream_position().unwrap(), 123, "the offset is put back");
        assert!(unwritten_note(&p, &s)
            .unwrap()
            .contains("25 % of it held written data"));
        let s = stored_share(f.as_raw_fd(), 4 << 20, 4 << 20).unwrap();
        assert_eq!(s.share, 1.0);
        assert_eq!(unwritten_note(&p, &s), None);
    }
}
