/*
 * bench/micro/calls.c - cost of one call to a small function, in nanoseconds.
 *
 * The program calls bench_leaf() N times (default ten million) in a tight loop, times the
 * loop with clock_gettime(CLOCK_MONOTONIC) and prints one line:
 *
 *	calls=10000000 threads=1 ns_per_call=1.234 entry=0f1f440000
 *
 * "entry" is the first five bytes of bench_leaf() (after an endbr64, if any) when the loop
 * ended: 9090909090 is GCC's five 1-byte NOPs untouched, 0f1f440000 one 5-byte NOP (what
 * libutrace.so turns them into before main), e8... a call to a tracer.  The harness uses
 * it to tell a working runtime from one that did nothing.
 *
 * bench/run.sh builds this one source several ways (plain, -fpatchable-function-entry=5,
 * -pg) and runs it under each tracer; the difference between two builds or two tracers is
 * the cost that the instrumentation adds to every call.  Only the loop is timed, so the
 * start-up of a runtime or a tracer (patching, connecting, writing files at exit) is not
 * counted here; patching time is a measurement of its own (issue 5).
 *
 * Options (the later scaling runs of issue 5 use -t):
 *	-n CALLS	calls per thread (default 10000000)
 *	-t THREADS	threads calling the function at once (default 1); ns_per_call is the
 *			wall time of the slowest thread divided by its calls
 *	-c CPU		pin the calling thread to CPU (thread i to CPU+i modulo the CPU count)
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_CALLS 10000000L
#define MAX_THREADS 64

struct worker {
	pthread_t thread;
	long calls;
	int cpu; /* -1: not pinned */
	double ns;
	int result;
};

static pthread_barrier_t start_line;

/*
 * The function whose cost is measured.  noinline keeps the call, and the empty asm, which
 * claims to read and change x, stops the compiler from computing the result at compile
 * time or proving the call has no effect.  Being tiny, its own run time is a few cycles, so
 * what a tracer adds shows through.
 */
__attribute__((noinline)) int bench_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	double t0, t1;
	int acc = 0, err;
	long i;

	if (w->cpu >= 0 && (err = pin_to(w->cpu)) < 0)
		fprintf(stderr, "calls: cannot pin to CPU %d: %s\n", w->cpu, strerror(-err));
	/* A short warm-up brings the code, the stack and any tracer buffer into the caches. */
	for (i = 0; i < w->calls / 100; i++)
		acc = bench_leaf(acc);
	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	for (i = 0; i < w->calls; i++)
		acc = bench_leaf(acc);
	t1 = now_ns();
	w->ns = t1 - t0;
	w->result = acc;
	return NULL;
}

static void print_entry(const unsigned char *p)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	int i;

	if (memcmp(p, endbr64, sizeof(endbr64)) == 0)
		p += sizeof(endbr64);
	for (i = 0; i < 5; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static long parse_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "calls: bad %s '%s' (%ld..%ld)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct worker workers[MAX_THREADS];
	long calls = DEFAULT_CALLS, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = 1, cpu = -1, opt, i;
	double slowest = 0;

	while ((opt = getopt(argc, argv, "n:t:c:")) != -1) {
		switch (opt) {
		case 'n':
			calls = parse_long(optarg, "call count", 1, 1L << 40);
			break;
		case 't':
			threads = parse_long(optarg, "thread count", 1, MAX_THREADS);
			break;
		case 'c':
			cpu = parse_long(optarg, "CPU", 0, ncpu > 0 ? ncpu - 1 : 0);
			break;
		default:
			fprintf(stderr, "usage: calls [-n CALLS] [-t THREADS] [-c CPU]\n");
			return 2;
		}
	}
	pthread_barrier_init(&start_line, NULL, threads);
	for (i = 0; i < threads; i++) {
		workers[i].calls = calls;
		workers[i].cpu = cpu < 0 ? -1 : (int)((cpu + i) % ncpu);
	}
	/*
	 * One thread runs in main() itself: a single-threaded program is the common case, and
	 * tracers that have a cheaper single-thread mode (uftrace --libmcount-single) are
	 * only correct when no second thread exists.
	 */
	if (threads == 1) {
		run_worker(&workers[0]);
	} else {
		for (i = 0; i < threads; i++) {
			if (pthread_create(&workers[i].thread, NULL, run_worker, &workers[i])) {
				fprintf(stderr, "calls: cannot create thread %d\n", i);
				return 1;
			}
		}
		for (i = 0; i < threads; i++)
			pthread_join(workers[i].thread, NULL);
	}
	for (i = 0; i < threads; i++) {
		if (workers[i].ns > slowest)
			slowest = workers[i].ns;
		if (workers[i].result != (int)(calls + calls / 100))
			fprintf(stderr, "calls: thread %d computed %d\n", i, workers[i].result);
	}
	printf("calls=%ld threads=%d ns_per_call=%.3f entry=", calls, threads, slowest / calls);
	print_entry((const unsigned char *)(void *)bench_leaf);
	return 0;
}
