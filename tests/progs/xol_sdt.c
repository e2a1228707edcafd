// SPDX-License-Identifier: MIT
/*
 * xol_sdt.c - a <sys/sdt.h> probe in the shape such probes have: guarded by its
 * semaphore, in a loop, built with -O2.  The compiler puts a je that skips the
 * probe's 1-byte nop right before it: the je lands on the byte after the nop,
 * inside any window that starts at the nop (runtime/xol_window.c).  Linked into
 * xol_prog (test_xol) and included by sdt_loop.c (111_sdt_window.sh).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short ut_loop_guarded_semaphore __attribute__((section(".probes"), used));

long guarded_loop(long n, long k);

/* the sum of i * k for i < n; the probe ut_loop:guarded sees i, k and the sum so far */
__attribute__((noinline)) long guarded_loop(long n, long k)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		__asm__ volatile("" ::: "memory");
		if (ut_loop_guarded_semaphore)
			STAP_PROBE3(ut_loop, guarded, i, k, sum);
		sum += i * k;
	}
	return sum;
}
