//! Restartable sequences off on an I/O thread.
//!
//! glibc (2.35 and later) registers every thread it starts for rseq. The kernel then updates
//! the thread's rseq area each time the thread returns to user space after it was scheduled
//! out (`__rseq_handle_notify_resume`: reads and writes of user memory, with their fault
//! checks). A thread that sleeps for each completion pays that on every I/O: io_uring at
//! QD1 on a device io-wq must serve switches to the worker and back once per I/O. On this
//! project's machine it was 100 to 200 ns an I/O, and t/io_uring made 5 % more IOPS per
//! core at QD1 with `GLIBC_TUNABLES=glibc.pthread.rseq=0`.
//!
//! Nothing an I/O thread runs needs rseq: Rust's standard library does not use it, and
//! glibc's one user, `sched_getcpu()`, falls back to the system call when the area says
//! "not registered", which the kernel writes on unregistering. So each worker unregisters
//! its own thread, as the tunable would for the whole process; `--keep-rseq` keeps it.

use std::ffi::CStr;

/// The signature glibc registers with (`RSEQ_SIG`); the kernel checks it on unregistering.
#[cfg(target_arch = "x86_64")]
const RSEQ_SIG: u32 = 0x5305_3053;
#[cfg(target_arch = "aarch64")]
const RSEQ_SIG: u32 = 0xd428_bc00;

const RSEQ_FLAG_UNREGISTER: libc::c_int = 1;

/// What became of the calling thread's rseq registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rseq {
    /// Unregistered just now.
    Dropped,
    /// There was none: an older glibc or kernel, or `glibc.pthread.rseq=0`.
    None,
    /// The kernel refused (the reason is its errno); the thread keeps it.
    Kept(i32),
}

/// Unregisters the calling thread's rseq area, the one glibc registered when it started.
pub fn unregister_this_thread() -> Rseq {
    let Some((area, size)) = glibc_area() else {
        return Rseq::None;
    };
    // The kernel wants the length the area was registered with: 32 bytes (the original
    // `struct rseq`) up to glibc 2.39; later ones may register the larger size they export.
    let mut last = libc::EINVAL;
    for len in [32, size.next_multiple_of(32), size] {
        // SAFETY: unregistering only tells the kernel to stop writing to `area`; it reads
        // nothing through the pointer but compares it with the registered one.
        let r = unsafe { libc::syscall(libc::SYS_rseq, area, len, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) };
        if r == 0 {
            return Rseq::Dropped;
        }
        last = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL);
        if last != libc::EINVAL {
            break;
        }
    }
    Rseq::Kept(last)
}

/// The calling thread's rseq area and glibc's `__rseq_size`, when glibc registered one.
/// Looked up at run time, so iolab still runs on a glibc without the symbols.
fn glibc_area() -> Option<(*mut u8, u32)> {
    let offset = symbol::<isize>(c"__rseq_offset")?;
    let size = symbol::<u32>(c"__rseq_size")?;
    if size == 0 {
        return None;
    }
    let tp = thread_pointer()?;
    Some((tp.wrapping_offset(offset), size))
}

/// A glibc data symbol's value, if the running libc has it.
fn symbol<T: Copy>(name: &CStr) -> Option<T> {
    // SAFETY: dlsym with RTLD_DEFAULT looks the name up in the loaded objects; the symbols
    // asked for are glibc's read-only variables of the given types.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    // SAFETY: see above; a found symbol points to a live, initialized variable.
    (!p.is_null()).then(|| unsafe { *(p as *const T) })
}

/// The thread pointer, to which glibc's `__rseq_offset` is relative.
#[cfg(target_arch = "x86_64")]
fn thread_pointer() -> Option<*mut u8> {
    let tp: *mut u8;
    // SAFETY: on x86-64 glibc, %fs:0 holds the thread control block's own address.
    unsafe {
        std::arch::asm!("mov {}, fs:0", out(reg) tp, options(nostack, readonly, preserves_flags))
    };
    Some(tp)
}

#[cfg(target_arch = "aarch64")]
fn thread_pointer() -> Option<*mut u8> {
    let tp: *mut u8;
    // SAFETY: reading the thread-ID register has no effect.
    unsafe {
        std::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nostack, nomem, preserves_flags))
    };
    Some(tp)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn thread_pointer() -> Option<*mut u8> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the kernel says of the thread's registration: registering the same area again
    /// gives EBUSY while it is registered, and succeeds (then is undone) once it is not.
    fn still_registered() -> bool {
        let (area, _) = glibc_area().expect("glibc registered rseq");
        // SAFETY: a registration with the same area and signature as glibc's, which either
        // fails (EBUSY: registered) or is undone at once below.
        let r = unsafe { libc::syscall(libc::SYS_rseq, area, 32, 0, RSEQ_SIG) };
        if r == 0 {
            unregister_this_thread();
            return false;
        }
        // EBUSY, or EINVAL where glibc registered a longer area than 32 bytes.
        let e = std::io::Error::last_os_error().raw_os_error();
        assert!(
            matches!(e, Some(libc::EBUSY | libc::EINVAL)),
            "registering again: {e:?}"
        );
        true
    }

    #[test]
    fn a_thread_drops_its_rseq_and_sched_getcpu_still_works() {
        std::thread::spawn(|| {
            if glibc_area().is_none() {
                eprintln!("skipped: this glibc or kernel registers no rseq area");
                return;
            }
            assert!(still_registered());
            assert_eq!(unregister_this_thread(), Rseq::Dropped);
            assert!(!still_registered());
            // glibc's rseq reader now takes the system call, which still answers.
            // SAFETY: no arguments.
            let cpu = unsafe { libc::sched_getcpu() };
            assert!(cpu >= 0, "sched_getcpu gave {cpu}");
            // A second time there is nothing to drop: the kernel says so.
            assert_eq!(unregister_this_thread(), Rseq::Kept(libc::EINVAL));
        })
        .join()
        .unwrap();
    }
}
