// SPDX-License-Identifier: MIT
/*
 * profile_prog - calls with known counts and known times for the function
 * profiler (tests/integration/103_profile.sh): prof_sleep sleeps 10 ms and is
 * called 3 times (30 ms of wall time, almost no CPU time); prof_leaf is called
 * 1000 times; prof_outer calls prof_spin once, which burns 20 ms of the
 * thread's CPU time (CPU time, not wall time: it grows with work only, so a
 * loaded machine cannot make prof_outer's own CPU time look long).
 */
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

static unsigned long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul + (unsigned long)ts.tv_nsec;
}

__attribute__((noinline, noipa)) void prof_sleep(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline, noipa)) unsigned long prof_leaf(unsigned long i)
{
	return sink + i;
}

__attribute__((noinline, noipa)) void prof_spin(void)
{
	unsigned long start = cpu_ns();

	while (cpu_ns() - start < 20ul * 1000 * 1000)
		sink++;
}

__attribute__((noinline, noipa)) void prof_outer(void)
{
	prof_spin();
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

int main(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < 3; i++)
		prof_sleep();
	for (unsigned long i = 0; i < 1000; i++)
		sum += prof_leaf(i);
	prof_outer();
	printf("profile_prog %lu\n", sum);
	return 0;
}
