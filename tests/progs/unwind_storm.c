// SPDX-License-Identifier: MIT
/*
 * unwind_storm - stack traces taken by signal handlers that land anywhere in the
 * trampolines: mix() in a loop, and a SIGALRM handler every 200 us that calls
 * mix() too and walks its own stack (backtrace() and _Unwind_Backtrace, through
 * the signal frame into whatever instruction it interrupted).
 *
 *   unwind_storm SECONDS [CALLS]
 *
 * First raises SIGALRM once (a handler's stack trace a test can look at), then
 * runs until SECONDS have passed or CALLS calls of mix() were made (default
 * 2,000,000), then prints "survived: N signals".  What a test checks is that it
 * exits 0: a crash in an unwinder ends it with a signal.  The Makefile builds it
 * twice: as is (-O2, no frame pointers) and with frame pointers (unwind_storm_fp).
 */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unwind.h>

static volatile long sink;
static volatile long signals;

__attribute__((noinline)) long mix(long i)
{
	sink = sink * 31 + i;
	__asm__ volatile("");
	return sink;
}

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *ctx, void *arg)
{
	(*(int *)arg)++;
	return *(int *)arg < 64 ? _URC_NO_REASON : _URC_END_OF_STACK;
}

static void on_alarm(int sig)
{
	void *bt[64];
	int n = 0;

	mix(-1);
	backtrace(bt, 64);
	_Unwind_Backtrace(count_frame, &n);
	signals++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
	struct itimerval it = {{0, 200}, {0, 200}};
	double end;
	long calls = 2000000, i;
	void *warm[4];

	if (argc < 2)
		return 2;
	if (argc > 2)
		calls = atol(argv[2]);
	end = now() + atof(argv[1]);
	backtrace(warm, 4); /* glibc loads libgcc_s on the first call: not in a handler */
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGALRM); /* one handler at a known place: its stack traces are checked */
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < calls; i++) {
		mix(i);
		if ((i & 1023) == 0 && now() > end)
			break;
	}
	it = (struct itimerval){0};
	setitimer(ITIMER_REAL, &it, NULL);
	printf("survived: %ld signals\n", signals);
	return 0;
}
