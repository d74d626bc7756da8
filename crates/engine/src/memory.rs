//! Where I/O buffers live (fio's `mem`/`iomem`): the heap, anonymous mappings (private,
//! shared, huge pages) or System V shared memory (plain or huge pages), and where in it the
//! first buffer starts (`mem_align`).

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Where every I/O buffer starts: O_DIRECT needs the logical block size, and a page (4 KiB)
/// covers every device iolab meets.
pub const BUFFER_ALIGN: usize = 4096;

/// fio's `mem` types that need no file: `malloc` (the default), `shm`, `shmhuge`, `mmap`,
/// `mmaphuge` and `mmapshared`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemKind {
    #[default]
    Malloc,
    Shm,
    ShmHuge,
    Mmap,
    MmapHuge,
    MmapShared,
    /// SPDK's DMA memory (hugepages it knows the bus addresses of): the `spdk` engine's
    /// buffers, whatever `mem` says, as SPDK's fio plugin allocates them. Not a fio `mem`.
    Dma,
}

/// How a job's buffers are allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    pub kind: MemKind,
    /// Bytes past a page boundary where the first buffer starts (fio's `mem_align`).
    pub align: usize,
    /// Huge-page size the huge kinds round up to (fio's `hugepage-size`, default 2 MiB).
    pub hugepage: usize,
}

impl Default for Memory {
    fn default() -> Memory {
        Memory {
            kind: MemKind::Malloc,
            align: 0,
            hugepage: 2 << 20,
        }
    }
}

/// An allocation of one of the kinds, freed the way it was made.
pub(crate) enum Backing {
    Heap(*mut u8, Layout),
    Mapped(*mut u8, usize),
    Shared(*mut u8),
    #[cfg(feature = "spdk")]
    Dma(*mut u8),
}

impl Backing {
    /// At least `bytes` zeroed bytes, page aligned, of `mem`'s kind.
    pub(crate) fn allocate(mem: &Memory, bytes: usize) -> std::io::Result<Backing> {
        let huge = matches!(mem.kind, MemKind::ShmHuge | MemKind::MmapHuge);
        let bytes = match huge {
            true => bytes.div_ceil(mem.hugepage.max(1)) * mem.hugepage.max(1),
            false => bytes,
        }
        .max(1);
        match mem.kind {
            MemKind::Malloc => {
                let layout =
                    Layout::from_size_align(bytes, BUFFER_ALIGN).map_err(std::io::Error::other)?;
                // SAFETY: the layout has a non-zero size.
                let p = unsafe { alloc_zeroed(layout) };
                match p.is_null() {
                    true => Err(std::io::Error::from_raw_os_error(libc::ENOMEM)),
                    false => Ok(Backing::Heap(p, layout)),
                }
            }
            MemKind::Mmap | MemKind::MmapHuge | MemKind::MmapShared => {
                let mut flags = libc::MAP_ANONYMOUS;
                flags |= match mem.kind {
                    MemKind::MmapShared => libc::MAP_SHARED,
                    _ => libc::MAP_PRIVATE,
                };
                if huge {
                    flags |= libc::MAP_HUGETLB;
                }
                let prot = libc::PROT_READ | libc::PROT_WRITE;
                // SAFETY: an anonymous mapping of `bytes`; no memory of ours is touched.
                let p = unsafe { libc::mmap(std::ptr::null_mut(), bytes, prot, flags, -1, 0) };
                match p == libc::MAP_FAILED {
                    true => Err(std::io::Error::last_os_error()),
                    false => Ok(Backing::Mapped(p.cast(), bytes)),
                }
            }
            MemKind::Dma => Self::dma(bytes),
            MemKind::Shm | MemKind::ShmHuge => {
                let mut flags = libc::IPC_CREAT | 0o600;
                if huge {
                    flags |= libc::SHM_HUGETLB;
                }
                // SAFETY: plain System V calls; the segment is marked for removal at once, so
                // it goes when detached, even if iolab dies.
                unsafe {
                    let id = libc::shmget(libc::IPC_PRIVATE, bytes, flags);
                    if id < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let p = libc::shmat(id, std::ptr::null(), 0);
                    let err = std::io::Error::last_os_error();
                    libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
                    match p as isize == -1 {
                        true => Err(err),
                        false => Ok(Backing::Shared(p.cast())),
                    }
                }
            }
        }
    }

    #[cfg(feature = "spdk")]
    fn dma(bytes: usize) -> std::io::Result<Backing> {
        iolab_spdk::driver::dma_alloc(bytes, BUFFER_ALIGN)
            .map(Backing::Dma)
            .map_err(std::io::Error::other)
    }

    #[cfg(not(feature = "spdk"))]
    fn dma(_bytes: usize) -> std::io::Result<Backing> {
        Err(std::io::Error::other(iolab_spdk::HOW_TO_BUILD))
    }

    pub(crate) fn base(&self) -> *mut u8 {
        match self {
            Backing::Heap(p, _) | Backing::Mapped(p, _) | Backing::Shared(p) => *p,
            #[cfg(feature = "spdk")]
            Backing::Dma(p) => *p,
        }
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        // SAFETY: each is freed as it was allocated, once.
        unsafe {
            match *self {
                Backing::Heap(p, layout) => dealloc(p, layout),
                Backing::Mapped(p, len) => {
                    libc::munmap(p.cast(), len);
                }
                Backing::Shared(p) => {
                    libc::shmdt(p.cast());
                }
                #[cfg(feature = "spdk")]
                Backing::Dma(p) => iolab_spdk::driver::dma_free(p),
            }
        }
    }
}

/// fio's `lockmem`: this much memory mapped and locked (`mlock`) for as long as it lives,
/// so the rest of the system runs with that much less.
pub struct LockedMemory {
    _held: Option<Backing>,
}

impl LockedMemory {
    pub fn lock(bytes: u64) -> std::io::Result<LockedMemory> {
        if bytes == 0 {
            return Ok(LockedMemory { _held: None });
        }
        let mem = Memory {
            kind: MemKind::Mmap,
            ..Memory::default()
        };
        let len = usize::try_from(bytes).map_err(std::io::Error::other)?;
        let b = Backing::allocate(&mem, len)?;
        // SAFETY: the mapping is `len` bytes long and ours.
        if unsafe { libc::mlock(b.base().cast(), len) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(LockedMemory { _held: Some(b) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_without_huge_pages_allocates_zeroed_memory() {
        for kind in [
            MemKind::Malloc,
            MemKind::Mmap,
            MemKind::MmapShared,
            MemKind::Shm,
        ] {
            let mem = Memory {
                kind,
                ..Memory::default()
            };
            let b = Backing::allocate(&mem, 8192).unwrap();
            // SAFETY: 8192 bytes were allocated.
            let s = unsafe { std::slice::from_raw_parts(b.base(), 8192) };
            assert!(s.iter().all(|&x| x == 0), "{kind:?}");
            assert_eq!(b.base() as usize % 4096, 0, "{kind:?}");
        }
    }

    #[test]
    fn lockmem_locks_and_unlocks() {
        let l = LockedMemory::lock(1 << 20);
        // Locking may be refused by RLIMIT_MEMLOCK for a non-root user; as root it works.
        if let Ok(l) = l {
            drop(l);
        }
    }
}
