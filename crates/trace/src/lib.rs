//! The kernel's side of iolab's latency split (`lat_split`).
//!
//! fio's `slat`/`clat` stop at the system call; this crate sees what happens below it. A small
//! eBPF program (`bpf/lat_split.bpf.c`, built by `bpf/build.sh` and embedded here) stamps
//! every block request on the watched disks when it is issued to the driver and when the block
//! layer completes it. [`Probe`] loads it with aya (CO-RE against the kernel's BTF), attaches it
//! to the two raw tracepoints and hands back one [`KernelRecord`] per request. [`Placement`]
//! says where a target's bytes sit on its disk (`FIEMAP` for a file), so the runner can join
//! each of its I/Os with the request that carried it.
//!
//! Nothing here guesses: when the kernel, the permissions or the device cannot give the
//! events, the answer is an [`Unavailable`] that names the reason in one line.

mod placement;
mod probe;
mod record;
mod unavailable;

pub use placement::{DiskPos, Placement};
pub use probe::{Probe, DEFAULT_BTF};
pub use record::KernelRecord;
pub use unavailable::Unavailable;

/// Where the loader reads the kernel's BTF: `$IOLAB_BTF` (to check how a kernel without it is
/// answered), else [`DEFAULT_BTF`].
pub fn btf_path() -> std::path::PathBuf {
    std::env::var_os("IOLAB_BTF")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(DEFAULT_BTF))
}

/// Whether `path`'s I/O can be split here, checked as the probe and the join would check it
/// (root, the kernel's BTF, a request-based disk under it) without loading anything. A path
/// not made yet is judged by its directory's disk.
pub fn can_split(path: &std::path::Path) -> Result<(), Unavailable> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Unavailable::NotRoot);
    }
    let btf = btf_path();
    if !btf.exists() {
        return Err(Unavailable::NoBtf(btf));
    }
    let name = path.display().to_string();
    let meta = std::fs::metadata(path)
        .or_else(|_| std::fs::metadata(path.parent().unwrap_or(std::path::Path::new("."))))
        .map_err(|e| Unavailable::NoMap(name.clone(), e.to_string()))?;
    placement::disk_of(&meta, &name).map(|_| ())
}

/// The kernel's `dev_t` encoding in block tracepoints and `struct gendisk` (`MKDEV`: major in
/// the top 12 bits, minor in the low 20), not glibc's.
pub fn kernel_dev(major: u32, minor: u32) -> u32 {
    (major << 20) | minor
}
