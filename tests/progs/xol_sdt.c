// SPDX-License-Identifier: MIT
/*
 * xol_sdt.c - a <sys/sdt.h> probe for xol_prog in the shape such probes have:
 * guarded by its semaphore, in a loop, built with -O2.  The compiler puts a je
 * that skips the probe's 1-byte nop right before it: the je lands on the byte
 * after the nop, inside any window that starts at the nop (xol_window.c).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short xol_loop_semaphore __attribute__((section(".probes"), used));

long xs_loop(long n, long k);

/* the sum of i * k for i < n; the probe xol:loop sees i, k and the sum so far */
__attribute__((noinline)) long xs_loop(long n, long k)
{
	long sum = 0;

	for (long i = 0; i < n; i++) {
		__asm__ volatile("" ::: "memory");
		if (xol_loop_semaphore)
			STAP_PROBE3(xol, loop, i, k, sum);
		sum += i * k;
	}
	return sum;
}
