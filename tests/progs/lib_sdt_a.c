// SPDX-License-Identifier: MIT
/*
 * lib_sdt_a.c - a library linked with sdt_prog: an SDT probe with a semaphore,
 * at two sites that share it (the program computes the argument only while the
 * semaphore says somebody listens).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short ut_sdt_lib_counted_semaphore __attribute__((section(".probes"), used));
static int computed;

static __attribute__((noinline)) long expensive(int v)
{
	computed++;
	return v * 1000L;
}

void lib_sdt_fire(int v)
{
	if (ut_sdt_lib_counted_semaphore)
		STAP_PROBE1(ut_sdt_lib, counted, expensive(v));
	if (ut_sdt_lib_counted_semaphore)
		STAP_PROBE1(ut_sdt_lib, counted, expensive(v + 1));
}

int lib_sdt_semaphore(void)
{
	return ut_sdt_lib_counted_semaphore;
}

int lib_sdt_computed(void)
{
	return computed;
}
