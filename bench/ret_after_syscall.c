/*
 * What one `ret` right after a system call costs on this CPU (issue 70): 4 KiB O_DIRECT
 * random preads of a device, three ways, interleaved in three rounds:
 *   inline    the `syscall` instruction in the loop itself (as t/io_uring's __do_syscall6)
 *   one ret   the same instruction in a function of its own: one `ret` after it
 *   glibc     pread(3), libc's wrapper
 * and the same for getppid (no I/O). On the AMD EPYC VM of issue 70 a zram pread costs
 * ~0.38 µs more with the one `ret` than inline, and glibc's pread the same: the
 * difference crates/engine/src/syscall.rs removes from iolab's hot path.
 *
 * build and run (root; reads only):  cc -O2 -o /tmp/ras bench/ret_after_syscall.c
 *                                    taskset -c 1 /tmp/ras /dev/zram0
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

static inline long sys4(long n, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

__attribute__((noinline)) long sys4_fn(long n, long a, long b, long c, long d)
{
	return sys4(n, a, b, c, d);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	unsigned long long x = 88172645463325252ULL, size = 0;
	const int n = 400000;
	void *buf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT | O_NOATIME);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 8192) {
		perror(argv[1]);
		return 2;
	}
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	long blocks = size / 4096 - 1;
#define NEXT (x ^= x << 13, x ^= x >> 7, x ^= x << 17, (long)(x % blocks) * 4096)
	for (int round = 0; round < 3; round++) {
		double t0 = now();
		for (int i = 0; i < n; i++)
			sys4(SYS_pread64, fd, (long)buf, 4096, NEXT);
		double t1 = now();
		for (int i = 0; i < n; i++)
			sys4_fn(SYS_pread64, fd, (long)buf, 4096, NEXT);
		double t2 = now();
		for (int i = 0; i < n; i++)
			pread(fd, buf, 4096, NEXT);
		double t3 = now();
		for (int i = 0; i < n; i++)
			sys4(SYS_getppid, 0, 0, 0, 0);
		double t4 = now();
		for (int i = 0; i < n; i++)
			sys4_fn(SYS_getppid, 0, 0, 0, 0);
		double t5 = now();
		printf("pread: inline %.0f ns, one ret %.0f ns, glibc %.0f ns;"
		       " getppid: inline %.0f ns, one ret %.0f ns\n",
		       (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9, (t3 - t2) / n * 1e9,
		       (t4 - t3) / n * 1e9, (t5 - t4) / n * 1e9);
	}
	return 0;
}
