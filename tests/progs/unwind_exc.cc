// SPDX-License-Identifier: MIT
/*
 * unwind_exc - C++ exceptions in flight under a signal storm: every call of
 * round() throws through two frames with destructors (so libgcc's unwinder runs
 * _Unwind_RaiseException and, from their landing pads, _Unwind_Resume), while a
 * SIGALRM handler every 200 us calls the traced exc_handler_work(): with
 * func_stack_trace on, the runtime takes a stack trace inside a handler that may
 * have interrupted libgcc's unwinder.
 *
 *   unwind_exc SECONDS
 *
 * Prints "survived: N signals, M exceptions"; a crash ends it with a signal.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile long sink;
static volatile long signals;

struct guard {
	~guard() { sink = sink + 1; }
};

extern "C" __attribute__((noinline)) void exc_handler_work(long i)
{
	sink = sink * 7 + i;
	__asm__ volatile("");
}

__attribute__((noinline)) void exc_throw(long i)
{
	guard g;
	if (i >= 0)
		throw i;
}

__attribute__((noinline)) void exc_middle(long i)
{
	guard g;
	exc_throw(i);
}

__attribute__((noinline)) void exc_round(long i)
{
	guard g;
	exc_middle(i);
}

static void on_alarm(int)
{
	exc_handler_work(-1);
	signals = signals + 1;
}

static double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {};
	struct itimerval it = {{0, 200}, {0, 200}};
	long caught = 0;

	if (argc < 2)
		return 2;
	double end = now() + atof(argv[1]);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, nullptr);
	setitimer(ITIMER_REAL, &it, nullptr);
	for (long i = 0;; i++) {
		try {
			exc_round(i);
		} catch (long) {
			caught++;
		}
		if ((i & 255) == 0 && now() > end)
			break;
	}
	it = {};
	setitimer(ITIMER_REAL, &it, nullptr);
	printf("survived: %ld signals, %ld exceptions\n", (long)signals, caught);
	return 0;
}
