//! `mmap`: every read or write is a memcpy between the I/O's buffer and a shared mapping of
//! the file, as fio's `engines/mmap.c`: the page cache's fault path instead of a system call
//! per I/O. As fio:
//! - a file is mapped whole when it fits the engine's 1 GiB budget (split evenly over the
//!   job's files), else a window of that size starting at the I/O;
//! - the mapping is advised random or sequential (`fadvise_hint`), then `MADV_DONTNEED`;
//! - `direct=1` is "not really direct" (fio's words): each I/O is followed by `msync` and
//!   `MADV_DONTNEED` of its range, so its pages leave the mapping;
//! - `thp=1` maps privately with `MADV_HUGEPAGE` (writes then never reach the file, as in fio);
//! - trims go to the file as every engine's do.
//!
//! A mapping hides one hazard the system-call engines do not have: a page past the file's
//! end (the file shrank under the job) raises SIGBUS on touch, which would kill the process
//! and every measurement with it. [`fault`] catches it for iolab's own mappings, puts a page
//! of zeros there so the copy finishes, and the I/O fails with EIO instead.

use std::os::fd::RawFd;

use crate::{
    syscall_result, AccessHint, Capabilities, Direction, EngineError, EngineOptions, EngineTarget,
    IoEngine, IoUnit, QueueStatus,
};

/// What `mmap` is, for the engine registry.
pub(crate) const DEF: crate::EngineDef = crate::EngineDef {
    kind: crate::EngineKind::Mmap,
    name: "mmap",
    synchronous: true,
    accepts: crate::Accepts::STORAGE,
    options: &["thp"],
    moves_data: true,
    directions: &Direction::ALL,
    read_write: false,
    extends_files: false,
    file_op: None,
};

/// fio's `MMAP_TOTAL_SZ`: what the engine maps at once, over all of a job's files.
const TOTAL_MAP: u64 = 1 << 30;

/// One file and the part of it mapped now.
struct Mapped {
    fd: RawFd,
    /// The file's size when opened: nothing past it is mapped.
    size: u64,
    prot: i32,
    ptr: *mut u8,
    /// The mapping's file offset and length (0: nothing mapped).
    off: u64,
    len: usize,
    /// Its slot in the fault registry while mapped.
    slot: Option<usize>,
}

pub struct Mmap {
    files: Vec<Mapped>,
    trimmer: crate::Trimmer,
    /// Mapped at most this much per file (fio's `mmap_map_size`).
    window: u64,
    direct: bool,
    thp: bool,
    access: AccessHint,
    page: u64,
}

/// The size of a regular file or a block device behind `fd`.
fn size_of(fd: RawFd) -> std::io::Result<u64> {
    // SAFETY: fstat writes into the zeroed stat we own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFBLK {
        return Ok(st.st_size as u64);
    }
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    let mut v: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 into v.
    if unsafe { libc::ioctl(fd, BLKGETSIZE64, &mut v) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(v)
}

/// The protection a descriptor allows: writable descriptors map read-write.
fn prot_of(fd: RawFd) -> i32 {
    // SAFETY: F_GETFL on the caller's descriptor.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    match fl & libc::O_ACCMODE {
        libc::O_RDWR => libc::PROT_READ | libc::PROT_WRITE,
        libc::O_WRONLY => libc::PROT_WRITE,
        _ => libc::PROT_READ,
    }
}

impl Mmap {
    pub fn open(target: EngineTarget<'_>, options: &EngineOptions) -> Result<Mmap, EngineError> {
        fault::install();
        let mut files = Vec::with_capacity(target.fds.len());
        for &fd in target.fds {
            let size = size_of(fd).map_err(|source| EngineError::Setup {
                engine: "mmap",
                op: "finding the file's size",
                source,
            })?;
            files.push(Mapped {
                fd,
                size,
                prot: prot_of(fd),
                ptr: std::ptr::null_mut(),
                off: 0,
                len: 0,
                slot: None,
            });
        }
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        let mut engine = Mmap {
            window: TOTAL_MAP / files.len().max(1) as u64,
            files,
            trimmer: crate::Trimmer::new(target.fds),
            direct: target.direct,
            thp: options.thp,
            access: target.access,
            page,
        };
        // A file that fits is mapped now, as fio maps it before the first I/O's clock.
        for i in 0..engine.files.len() {
            let f = &engine.files[i];
            if f.size > 0 && f.size <= engine.window {
                engine
                    .map(i, 0, f.size as usize)
                    .map_err(|source| EngineError::Setup {
                        engine: "mmap",
                        op: "mmap",
                        source,
                    })?;
            }
        }
        Ok(engine)
    }

    /// Maps `len` bytes of file `i` from `off` (page-aligned), replacing what was mapped.
    fn map(&mut self, i: usize, off: u64, len: usize) -> std::io::Result<()> {
        self.unmap(i);
        let (thp, access) = (self.thp, self.access);
        let f = &mut self.files[i];
        let shared = if thp {
            libc::MAP_PRIVATE
        } else {
            libc::MAP_SHARED
        };
        // SAFETY: a fresh mapping chosen by the kernel; nothing aliases it yet.
        let ptr =
            unsafe { libc::mmap(std::ptr::null_mut(), len, f.prot, shared, f.fd, off as i64) };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let advice = match access {
            AccessHint::None => None,
            AccessHint::Random => Some(libc::POSIX_MADV_RANDOM),
            AccessHint::Sequential => Some(libc::POSIX_MADV_SEQUENTIAL),
        };
        // SAFETY: advice on the mapping just made, within its length. fio ignores a failed
        // THP advice and fails on the others; so does iolab.
        unsafe {
            if thp {
                libc::madvise(ptr, len, libc::MADV_HUGEPAGE);
            }
            let failed = advice.is_some_and(|a| libc::posix_madvise(ptr, len, a) != 0)
                || libc::posix_madvise(ptr, len, libc::POSIX_MADV_DONTNEED) != 0;
            if failed {
                let e = std::io::Error::last_os_error();
                libc::munmap(ptr, len);
                return Err(e);
            }
        }
        f.ptr = ptr.cast();
        f.off = off;
        f.len = len;
        f.slot = fault::watch(f.ptr as usize, len);
        Ok(())
    }

    fn unmap(&mut self, i: usize) {
        let f = &mut self.files[i];
        if f.len == 0 {
            return;
        }
        if let Some(s) = f.slot.take() {
            fault::unwatch(s);
        }
        // SAFETY: the mapping this engine made and no one else holds.
        unsafe { libc::munmap(f.ptr.cast(), f.len) };
        f.ptr = std::ptr::null_mut();
        f.len = 0;
    }

    /// Where `len` bytes at `offset` of file `i` are in memory, mapping them first when the
    /// current mapping does not hold them; `Err(-errno)` when they cannot be.
    fn locate(&mut self, i: usize, offset: u64, len: u32) -> Result<*mut u8, i64> {
        let f = &self.files[i];
        let end = offset + len as u64;
        if f.len > 0 && offset >= f.off && end <= f.off + f.len as u64 {
            return Ok(f.ptr.wrapping_add((offset - f.off) as usize));
        }
        if end > f.size {
            // Past the end the file had: fio's mmap cannot extend a file either.
            return Err(-(libc::EIO as i64));
        }
        if len as u64 > self.window {
            return Err(-(libc::EIO as i64)); // fio: "bs too big for mmap engine"
        }
        let (off, span) = if f.size <= self.window {
            (0, f.size)
        } else {
            let start = offset & !(self.page - 1);
            (start, self.window.min(f.size - start))
        };
        self.map(i, off, span as usize)
            .map_err(|e| -(e.raw_os_error().unwrap_or(libc::EIO) as i64))?;
        let f = &self.files[i];
        Ok(f.ptr.wrapping_add((offset - f.off) as usize))
    }

    /// fio's "not really direct": the I/O's pages written back and dropped from the mapping.
    fn drop_pages(&self, at: *mut u8, len: u32) -> i64 {
        let start = (at as u64) & !(self.page - 1);
        let span = (at as u64 + len as u64 - start) as usize;
        // SAFETY: the range lies within the live mapping `at` points into (page-rounded
        // down to its start, which is page-aligned).
        unsafe {
            if libc::msync(start as *mut libc::c_void, span, libc::MS_SYNC) != 0
                || libc::posix_madvise(start as *mut libc::c_void, span, libc::POSIX_MADV_DONTNEED)
                    != 0
            {
                return syscall_result(-1);
            }
        }
        len as i64
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        for i in 0..self.files.len() {
            self.unmap(i);
        }
    }
}

impl IoEngine for Mmap {
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.direct {
            notes.push(
                "mmap with direct=1 is not O_DIRECT: as fio's, each I/O is followed by msync \
                 and MADV_DONTNEED of its pages, and a page still in the page cache is read \
                 from there"
                    .to_string(),
            );
        }
        if self.thp {
            notes.push("mmap thp=1: a private mapping; writes never reach the file".to_string());
        }
        notes
    }

    #[inline]
    unsafe fn queue(&mut self, io: &IoUnit) -> Result<QueueStatus, EngineError> {
        let i = io.file as usize;
        if io.dir == Direction::Trim {
            let fd = self.files[i].fd;
            return Ok(QueueStatus::Completed(
                self.trimmer.trim(i, fd, io.offset, io.len),
            ));
        }
        let at = match self.locate(i, io.offset, io.len) {
            Ok(at) => at,
            Err(e) => return Ok(QueueStatus::Completed(e)),
        };
        let before = fault::count();
        // SAFETY: `at` points at `io.len` mapped bytes (locate checked the range); io.buf at
        // `io.len` bytes of the worker's buffer; the two never overlap. A page past the
        // file's end faults into `fault`'s handler, which maps zeros there.
        unsafe {
            match io.dir {
                Direction::Read => std::ptr::copy_nonoverlapping(at, io.buf, io.len as usize),
                _ => std::ptr::copy_nonoverlapping(io.buf, at, io.len as usize),
            }
        }
        if fault::count() != before {
            // The file shrank under the mapping: the copy touched zeros, not the file.
            self.unmap(i);
            self.files[i].size = size_of(self.files[i].fd).unwrap_or(0);
            return Ok(QueueStatus::Completed(-(libc::EIO as i64)));
        }
        let done = if self.direct {
            self.drop_pages(at, io.len)
        } else {
            io.len as i64
        };
        Ok(QueueStatus::Completed(done))
    }
}

/// Catching SIGBUS from iolab's own mappings. The handler looks the faulting address up in
/// a fixed table of watched ranges (atomics only, nothing that allocates or locks); inside
/// one it maps a private page of zeros over the address, so the faulting copy resumes, and
/// counts the fault for the faulting thread. Outside every watched range it restores the
/// default action and returns, so the fault recurs and kills the process as it would have.
mod fault {
    use std::sync::atomic::{compiler_fence, AtomicU64, AtomicUsize, Ordering};
    use std::sync::Once;

    const SLOTS: usize = 256;
    static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static END: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

    thread_local! {
        /// Faults caught on this thread (const-initialised: safe to touch in the handler).
        static FAULTS: AtomicU64 = const { AtomicU64::new(0) };
    }

    /// Faults caught on this thread so far. The fences keep the compiler from moving the
    /// read across the copy the handler interrupts.
    pub(super) fn count() -> u64 {
        compiler_fence(Ordering::SeqCst);
        let n = FAULTS.with(|c| c.load(Ordering::Relaxed));
        compiler_fence(Ordering::SeqCst);
        n
    }

    /// Watches `[start, start + len)`; `None` when the table is full (then a fault there
    /// is not caught, as without this table).
    pub(super) fn watch(start: usize, len: usize) -> Option<usize> {
        for s in 0..SLOTS {
            if START[s]
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                END[s].store(start + len, Ordering::Release);
                return Some(s);
            }
        }
        None
    }

    pub(super) fn unwatch(slot: usize) {
        END[slot].store(0, Ordering::Release);
        START[slot].store(0, Ordering::Release);
    }

    pub(super) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: a zeroed sigaction with our handler, SA_SIGINFO; installed once.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
            }
        });
    }

    extern "C" fn handler(_sig: i32, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo for SA_SIGINFO handlers; only atomics,
        // mmap and sigaction (system calls) are used below.
        unsafe {
            let addr = (*info).si_addr() as usize;
            let watched = (0..SLOTS).any(|s| {
                let start = START[s].load(Ordering::Acquire);
                start != 0 && addr >= start && addr < END[s].load(Ordering::Acquire)
            });
            if !watched {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                return;
            }
            let page = addr & !4095;
            libc::mmap(
                page as *mut libc::c_void,
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            );
            FAULTS.with(|c| c.fetch_add(1, Ordering::Relaxed));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    fn unit(dir: Direction, offset: u64, buf: &mut [u8]) -> IoUnit {
        IoUnit {
            slot: 0,
            file: 0,
            dir,
            offset,
            len: buf.len() as u32,
            buf: buf.as_mut_ptr(),
            ioprio: 0,
            prio_index: 0,
        }
    }

    fn target(fds: &[RawFd], access: AccessHint) -> EngineTarget<'_> {
        EngineTarget {
            fds,
            access,
            pins: &[],
            pass_bytes: &[],
            donor: None,
            direct: false,
            polled_device: false,
            name: "f",
            logical_block_size: 512,
        }
    }

    #[test]
    fn writes_reach_the_file_and_reads_see_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; 65536]).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let fds = [f.as_raw_fd()];
        let opts = EngineOptions::default();
        let mut e = Mmap::open(target(&fds, AccessHint::Random), &opts).unwrap();
        let mut data = vec![0x5Au8; 4096];
        let w = unsafe { e.queue(&unit(Direction::Write, 8192, &mut data)).unwrap() };
        assert_eq!(w, QueueStatus::Completed(4096));
        let mut back = vec![0u8; 4096];
        let r = unsafe { e.queue(&unit(Direction::Read, 8192, &mut back)).unwrap() };
        assert_eq!(r, QueueStatus::Completed(4096));
        assert_eq!(back, data);
        drop(e);
        let on_disk = std::fs::read(&path).unwrap();
        assert!(on_disk[8192..12288].iter().all(|&b| b == 0x5A));
        assert!(on_disk[..8192].iter().all(|&b| b == 0));
    }

    #[test]
    fn a_file_shrunk_under_the_mapping_fails_the_io_instead_of_the_process() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 65536]).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let fds = [f.as_raw_fd()];
        let mut e = Mmap::open(target(&fds, AccessHint::None), &EngineOptions::default()).unwrap();
        f.set_len(4096).unwrap();
        let mut buf = vec![0u8; 4096];
        let r = unsafe { e.queue(&unit(Direction::Read, 32768, &mut buf)).unwrap() };
        assert_eq!(r, QueueStatus::Completed(-(libc::EIO as i64)));
        // The engine saw the new size: the next I/O past it fails without touching memory,
        // and one inside it still works.
        let r = unsafe { e.queue(&unit(Direction::Read, 32768, &mut buf)).unwrap() };
        assert_eq!(r, QueueStatus::Completed(-(libc::EIO as i64)));
        let r = unsafe { e.queue(&unit(Direction::Read, 0, &mut buf)).unwrap() };
        assert_eq!(r, QueueStatus::Completed(4096));
        assert!(buf.iter().all(|&b| b == 7));
    }
}
