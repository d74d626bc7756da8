//! The system calls on an engine's hot path (`io_uring_enter`, `io_submit`,
//! `io_getevents`), made by an inline `syscall` instruction rather than through libc's
//! `syscall()`, as fio's `t/io_uring` does (`__do_syscall6`, `FIO_ARCH_HAS_SYSCALL`).
//!
//! Why: libc's wrapper is a function, so a `ret` follows the instruction. On return from a
//! system call that switched tasks, the kernel has refilled the return stack buffer (its
//! RSB filling on a context switch), and that `ret` is mispredicted. On the AMD EPYC VM of
//! issue 70 (Linux 6.18, zram, QD1 io_uring reads pinned to one CPU, where every I/O
//! switches to an io-wq worker and back), that one return cost about 0.6 µs per I/O:
//! 152k IOPS through libc against 170k with the instruction inline (a Rust loop alone,
//! BENCHMARKS.md "issue 70"), and t/io_uring itself ran at 156k once its call went
//! through libc. Without a switch it still costs ~48 ns per call (getppid: 165 against
//! 116 ns). So the call is inlined here, and every frame between a worker's loop and this
//! call is `#[inline(always)]` (an outer `ret` would be mispredicted the same way).
//!
//! Results are the kernel's: a negative value is `-errno` (no `errno` is set).

/// Whether [`syscall6`] is the inline instruction here (named in the engines' setup line).
pub(crate) const INLINE: bool = cfg!(target_arch = "x86_64");

/// `syscall(nr, a..f)` without libc; `-errno` on failure.
///
/// # Safety
/// As the system call `nr` with these arguments: pointers must be valid for what it reads
/// and writes.
#[inline(always)]
pub(crate) unsafe fn syscall6(nr: i64, a: i64, b: i64, c: i64, d: i64, e: i64, f: i64) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        let r: i64;
        // SAFETY: the x86-64 system call convention (rax nr and result; rdi, rsi, rdx, r10,
        // r8, r9 arguments; rcx and r11 clobbered by the instruction); memory the call
        // touches is the caller's contract, so no `nomem`/`readonly`.
        unsafe {
            std::arch::asm!(
                "syscall",
                inlateout("rax") nr => r,
                in("rdi") a,
                in("rsi") b,
                in("rdx") c,
                in("r10") d,
                in("r8") e,
                in("r9") f,
                lateout("rcx") _,
                lateout("r11") _,
                options(nostack),
            );
        }
        r
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Measured on x86-64 only: elsewhere libc's wrapper, its result made the same.
        // SAFETY: as the caller's.
        let [a, b, c, d, e, f] = [a, b, c, d, e, f].map(|v| v as libc::c_long);
        let r = unsafe { libc::syscall(nr as libc::c_long, a, b, c, d, e, f) } as i64;
        if r < 0 {
            -(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64)
        } else {
            r
        }
    }
}

/// The error a negative [`syscall6`] result stands for.
pub(crate) fn error(r: i64) -> std::io::Error {
    std::io::Error::from_raw_os_error((-r) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_result_and_minus_errno() {
        // SAFETY: getpid takes no argument.
        let pid = unsafe { syscall6(libc::SYS_getpid, 0, 0, 0, 0, 0, 0) };
        assert_eq!(pid, std::process::id() as i64);
        // close(-1) fails with EBADF.
        // SAFETY: close takes an integer.
        let r = unsafe { syscall6(libc::SYS_close, -1, 0, 0, 0, 0, 0) };
        assert_eq!(r, -(libc::EBADF as i64));
        assert_eq!(error(r).raw_os_error(), Some(libc::EBADF));
    }

    #[test]
    fn passes_six_arguments_and_memory() {
        // pread64(fd, buf, count, offset) on a file with known bytes: the kernel writes
        // into the buffer through the pointer argument.
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, b"0123456789").unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f) as i64;
        let mut buf = [0u8; 4];
        // SAFETY: buf is valid for 4 bytes.
        let r = unsafe { syscall6(libc::SYS_pread64, fd, buf.as_mut_ptr() as i64, 4, 3, 0, 0) };
        assert_eq!(r, 4);
        assert_eq!(&buf, b"3456");
    }
}
