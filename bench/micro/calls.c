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
 * Paired measurement (-p BLOCK): the host's state (another tenant on the same core, the
 * clock it grants) drifts over seconds and moves both builds' figures by a quarter or
 * more, so two separate runs can disagree by more than the overhead being measured.  With
 * -p, the timed loop is cut into blocks of BLOCK calls, and each block of bench_leaf() is
 * preceded by a block of the same number of calls to bench_ref(): the same two
 * instructions written in assembly, so that no compiler option instruments it and no
 * tracer sees it.  The two blocks of a pair run within a millisecond of each other under
 * the same conditions; the line then adds
 *
 *	ref_ns=1.234 paired_overhead=5.678
 *
 * the medians over the pairs of bench_ref's ns per call and of (bench_leaf - bench_ref)
 * ns per call.  ns_per_call stays the total time of bench_leaf's blocks over its calls.
 *
 * Built with -DBENCH_LTTNG (and calls_tp.c, -llttng-ust), bench_leaf() also fires an
 * LTTng-UST tracepoint on every call (calls_tp.h).
 *
 * Options (the scaling runs of issue 5 use -t):
 *	-n CALLS	calls per thread (default 10000000)
 *	-p BLOCK	paired measurement with blocks of BLOCK calls (single thread only)
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

#include "entry_bytes.h"

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
static long pair_block; /* -p: calls per block, 0 without -p */
static double pair_ref_ns, pair_overhead_ns;

/*
 * The function whose cost is measured.  noinline keeps the call, and the empty asm, which
 * claims to read and change x, stops the compiler from computing the result at compile
 * time or proving the call has no effect.  Being tiny, its own run time is a few cycles, so
 * what a tracer adds shows through.
 */
#ifdef BENCH_LTTNG
/*
 * The LTTng-UST build (bench/run.sh builds it with -DBENCH_LTTNG and calls_tp.c): the same
 * function with one tracepoint carrying what a function event carries, the function's
 * and its caller's addresses.  When no session enables the event the tracepoint is a
 * test of a flag and a branch not taken.
 */
#include "calls_tp.h"
#define BENCH_EVENT(x)                                                                  \
	lttng_ust_tracepoint(utrace_bench, leaf, (unsigned long)(void *)bench_leaf,      \
			     (unsigned long)__builtin_return_address(0))
#else
#define BENCH_EVENT(x) ((void)0)
#endif

__attribute__((noinline)) int bench_leaf(int x)
{
	BENCH_EVENT(x);
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* bench_leaf() as GCC -O2 builds it without instrumentation, out of every tracer's reach. */
int bench_ref(int x);
__asm__(".text\n"
	".globl bench_ref\n"
	".type bench_ref, @function\n"
	".p2align 4\n"
	"bench_ref:\n"
	"	leal 1(%rdi), %eax\n"
	"	ret\n"
	".size bench_ref, . - bench_ref\n");

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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * One loop for both functions of a pair: the same code at the same address calls either,
 * so that the placement of a loop (which alone moves a figure by half a nanosecond) is
 * not measured as a difference.  The call is indirect but always to the same target
 * within a block, which the branch predictor learns at once.
 */
__attribute__((noinline)) static int call_loop(int (*fn)(int), long n, int acc)
{
	long i;

	for (i = 0; i < n; i++)
		acc = fn(acc);
	return acc;
}

/*
 * The timed loop of -p: pairs of blocks, bench_ref's then bench_leaf's.  Returns the total
 * time of bench_leaf's blocks; *acc counts bench_leaf's calls as the plain loop does.
 */
static double run_paired(long calls, int *acc)
{
	long pairs = (calls + pair_block - 1) / pair_block, p, n, done = 0;
	double *ref = calloc(pairs, sizeof(*ref)), *diff = calloc(pairs, sizeof(*diff));
	double t0, t1, t2, leaf_total = 0;
	int r = 0;

	if (!ref || !diff) {
		fprintf(stderr, "calls: out of memory\n");
		exit(1);
	}
	for (p = 0; p < pairs; p++, done += n) {
		n = calls - done < pair_block ? calls - done : pair_block;
		t0 = now_ns();
		r = call_loop(bench_ref, n, r);
		t1 = now_ns();
		*acc = call_loop(bench_leaf, n, *acc);
		t2 = now_ns();
		ref[p] = (t1 - t0) / n;
		diff[p] = (t2 - t1) / n - ref[p];
		leaf_total += t2 - t1;
	}
	if (r != (int)calls)
		fprintf(stderr, "calls: bench_ref computed %d\n", r);
	pair_ref_ns = median(ref, pairs);
	pair_overhead_ns = median(diff, pairs);
	free(ref);
	free(diff);
	return leaf_total;
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
	if (pair_block) {
		w->ns = run_paired(w->calls, &acc);
		w->result = acc;
		return NULL;
	}
	t0 = now_ns();
	for (i = 0; i < w->calls; i++)
		acc = bench_leaf(acc);
	t1 = now_ns();
	w->ns = t1 - t0;
	w->result = acc;
	return NULL;
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

	while ((opt = getopt(argc, argv, "n:t:c:p:")) != -1) {
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
		case 'p':
			pair_block = parse_long(optarg, "block size", 1, 1L << 30);
			break;
		default:
			fprintf(stderr, "usage: calls [-n CALLS] [-t THREADS] [-c CPU] [-p BLOCK]\n");
			return 2;
		}
	}
	if (pair_block && threads > 1) {
		fprintf(stderr, "calls: -p measures one thread\n");
		return 2;
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
	printf("calls=%ld threads=%d ns_per_call=%.3f ", calls, threads, slowest / calls);
	if (pair_block)
		printf("ref_ns=%.3f paired_overhead=%.3f ", pair_ref_ns, pair_overhead_ns);
	printf("entry=");
	print_entry((const unsigned char *)(void *)bench_leaf);
	printf("\n");
	return 0;
}
