//! Trims (discards) for every engine that has a file to trim. As fio's `do_io_u_trim()`,
//! a trim is done synchronously inside `queue`, even by the asynchronous engines (fio's
//! libaio and io_uring do the same), so trim latencies compare with fio's.
//!
//! On a block device a trim is `BLKDISCARD`, as fio's `os_trim()`. On a regular file it is
//! a punched hole (`FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE`): the file keeps its size
//! and the range reads back as zeros. fio 3.33 sends `BLKDISCARD` to files too, which fails;
//! iolab does what a trim means on a file instead. Whether each file is a block device is
//! found once, at open, so a trim costs one system call.

use std::os::fd::RawFd;

/// `BLKDISCARD`: `_IO(0x12, 119)`.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// How each of an engine's files is trimmed.
#[derive(Debug, Clone, Default)]
pub struct Trimmer {
    /// Per file: a block device (`BLKDISCARD`), else a file (hole punch).
    block: Vec<bool>,
}

impl Trimmer {
    /// Looks at each file once (fstat); a file that cannot be looked at is taken as a
    /// regular file, whose hole punch then reports the kernel's error.
    pub fn new(fds: &[RawFd]) -> Trimmer {
        let block = fds
            .iter()
            .map(|&fd| {
                // SAFETY: fstat writes into the zeroed stat we own; fd is the caller's.
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                let ok = unsafe { libc::fstat(fd, &mut st) } == 0;
                ok && st.st_mode & libc::S_IFMT == libc::S_IFBLK
            })
            .collect();
        Trimmer { block }
    }

    /// Trims `len` bytes at `offset` of file `file` (its descriptor `fd`): `len`, or `-errno`.
    #[inline]
    pub fn trim(&self, file: usize, fd: RawFd, offset: u64, len: u32) -> i64 {
        let ret = if self.block.get(file).copied().unwrap_or(false) {
            let range: [u64; 2] = [offset, len as u64];
            // SAFETY: BLKDISCARD reads two u64s from the pointer, which points at `range`.
            unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) }
        } else {
            let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
            // SAFETY: plain system call on the caller's descriptor.
            unsafe { libc::fallocate(fd, mode, offset as i64, len as i64) }
        };
        match ret {
            0 => len as i64,
            _ => crate::syscall_result(-1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::fd::AsRawFd;

    #[test]
    fn a_trimmed_file_range_reads_back_as_zeros_and_keeps_the_size() {
        let dir = std::env::temp_dir().join(format!("iolab-trim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        f.write_all(&[0xAB; 16384]).unwrap();
        let t = Trimmer::new(&[f.as_raw_fd()]);
        let r = t.trim(0, f.as_raw_fd(), 4096, 8192);
        let mut back = vec![0u8; 16384];
        f.seek(SeekFrom::Start(0)).unwrap();
        f.read_exact(&mut back).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        if r == -(libc::EOPNOTSUPP as i64) {
            eprintln!("skipped: the temp dir's filesystem cannot punch holes");
            return;
        }
        assert_eq!(r, 8192);
        assert!(back[..4096].iter().all(|&b| b == 0xAB));
        assert!(back[4096..12288].iter().all(|&b| b == 0));
        assert!(back[12288..].iter().all(|&b| b == 0xAB));
    }
}
