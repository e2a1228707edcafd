/*
 * bench/micro/events.c - what a trace event costs the program that fires it
 * (bench/events.sh).
 *
 * The event: four integers and a 16-byte string (15 characters and the NUL), a utrace
 * event (include/utrace/event.h) or, built with -DBENCH_LTTNG, an LTTng-UST tracepoint
 * with the same payload (events_tp.h), or, built with -DBENCH_SDT, a <sys/sdt.h> probe
 * with the same arguments (the string's address).  The measurement is paired in the process
 * (bench/method.md): blocks of BLOCK iterations alternate between a loop that fires the
 * event and the same loop without it, and the overhead of an event is the median over
 * pairs of (event block - plain block) / BLOCK.  Prints
 *
 *	blocks=200 block=100000 event_ns=12.345 plain_ns=0.456 overhead_ns=11.889 enabled=1
 *
 * Options:
 *	-b BLOCK	iterations per block (default 100000)
 *	-n PAIRS	pairs of blocks (default 200)
 *	-c CPU		pin to CPU
 *	-w		wait (at most 10 s) until the utrace event (the SDT probe) is enabled
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef BENCH_LTTNG
#include "events_tp.h"
#define FIRE(a, b, c, d, s) lttng_ust_tracepoint(utrace_bench, ev, a, b, c, d, s)
#define ENABLED() 1
#elif defined(BENCH_SDT)
/*
 * A <sys/sdt.h> probe with the same arguments (the string as its address: an SDT
 * probe carries integers).  It is fired unconditionally, a nop while disabled; its
 * semaphore only tells -w when the runtime has armed it.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short utrace_bench_sdt_semaphore __attribute__((section(".probes"), used));
#define FIRE(a, b, c, d, s) STAP_PROBE5(utrace_bench, sdt, a, b, c, d, s)
#define ENABLED() (utrace_bench_sdt_semaphore != 0)
#else
#include <utrace/event.h>

UTRACE_EVENT(utrace_bench, ev,
	TP_PROTO(int a, int b, long c, long d, const char *s),
	TP_ARGS(a, b, c, d, s),
	TP_STRUCT__entry(
		__field(int, a)
		__field(int, b)
		__field(long, c)
		__field(long, d)
		__string(s, s)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		__entry->d = d;
		__assign_str(s);
	),
	TP_printk("a=%d b=%d c=%ld d=%ld s=%s", __entry->a, __entry->b, __entry->c, __entry->d,
		  __get_str(s))
);
#define FIRE(a, b, c, d, s) trace_ev(a, b, c, d, s)
#define ENABLED() trace_ev_enabled()
#endif

static const char *const payload = "fifteen-chars.."; /* 16 bytes with its NUL */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

__attribute__((noinline)) static double block(long n, int fire)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		__asm__ volatile("" ::: "memory");
		if (fire)
			FIRE((int)i, 2, i, 4, payload);
	}
	return now_ns() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = 100000, pairs = 200;
	int opt, wait = 0;
	cpu_set_t set;
	double *ev, *pl, *d, se = 0, sp = 0;

	while ((opt = getopt(argc, argv, "b:n:c:w")) != -1) {
		switch (opt) {
		case 'b':
			n = atol(optarg);
			break;
		case 'n':
			pairs = atol(optarg);
			break;
		case 'c':
			CPU_ZERO(&set);
			CPU_SET(atoi(optarg), &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				perror("events: sched_setaffinity");
			break;
		case 'w':
			wait = 1;
			break;
		default:
			fprintf(stderr, "usage: events [-b BLOCK] [-n PAIRS] [-c CPU] [-w]\n");
			return 2;
		}
	}
	for (int i = 0; wait && i < 10000 && !ENABLED(); i++)
		usleep(1000);
	ev = calloc((size_t)pairs, sizeof(*ev));
	pl = calloc((size_t)pairs, sizeof(*pl));
	d = calloc((size_t)pairs, sizeof(*d));
	if (!ev || !pl || !d || n <= 0 || pairs <= 0)
		return 1;
	block(n, 1); /* warm up */
	block(n, 0);
	for (long p = 0; p < pairs; p++) {
		/* alternate which goes first, so that a drift falls on both alike */
		if (p & 1) {
			pl[p] = block(n, 0);
			ev[p] = block(n, 1);
		} else {
			ev[p] = block(n, 1);
			pl[p] = block(n, 0);
		}
		d[p] = (ev[p] - pl[p]) / n;
		se += ev[p];
		sp += pl[p];
	}
	qsort(d, (size_t)pairs, sizeof(*d), cmp);
	qsort(ev, (size_t)pairs, sizeof(*ev), cmp);
	qsort(pl, (size_t)pairs, sizeof(*pl), cmp);
	printf("blocks=%ld block=%ld event_ns=%.3f plain_ns=%.3f overhead_ns=%.3f enabled=%d\n",
	       pairs, n, ev[pairs / 2] / n, pl[pairs / 2] / n, d[pairs / 2], ENABLED() ? 1 : 0);
	return 0;
}
