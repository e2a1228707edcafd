/*
 * bench/micro/locks.c - cost of the primitives the latency tracers wrap: one
 * pthread_mutex_lock + pthread_mutex_unlock pair (-m mutex), or one
 * pthread_sigmask(SIG_BLOCK, all) + pthread_sigmask(SIG_SETMASK, old) pair
 * (-m sigmask), in nanoseconds per pair.
 *
 * Paired measurement, as bench/micro/calls.c's -p: the timed loop is cut into
 * blocks of BLOCK pairs, and each block through the program's own calls (which
 * libutrace.so's wrappers take when it is preloaded) is preceded by a block of the
 * same pairs through libc's functions themselves, looked up in libc.so.6, which no
 * wrapper sees.  The line printed:
 *
 *	mode=mutex pairs=1000000 ns_per_call=24.100 ref_ns=21.300 paired_overhead=2.750
 *
 * ns_per_call: the wrapped blocks' time over their pairs; ref_ns and
 * paired_overhead: the medians over the pairs of blocks of the reference's ns per
 * pair and of (wrapped - reference).  Without the runtime both go to libc and the
 * overhead is the method's noise.
 *
 * Options: -m mutex|sigmask, -n PAIRS (default 1000000), -p BLOCK (default 10000),
 * -c CPU (pin the thread).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*lock_fn)(pthread_mutex_t *);
typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static sigset_t all, old;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* n pairs through the functions given */
static void __attribute__((noinline)) run_block(int sig, long n, lock_fn lock, lock_fn unlock,
						mask_fn mask)
{
	for (long i = 0; i < n; i++) {
		if (sig) {
			mask(SIG_BLOCK, &all, &old);
			mask(SIG_SETMASK, &old, NULL);
		} else {
			lock(&mtx);
			unlock(&mtx);
		}
	}
}

int main(int argc, char **argv)
{
	long pairs = 1000000, block = 10000, nblocks;
	int sig = 0, cpu = -1, c;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	lock_fn ref_lock, ref_unlock;
	mask_fn ref_mask;
	double total = 0, *ref, *diff;

	while ((c = getopt(argc, argv, "m:n:p:c:")) != -1) {
		switch (c) {
		case 'm': sig = !strcmp(optarg, "sigmask"); break;
		case 'n': pairs = atol(optarg); break;
		case 'p': block = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: locks [-m mutex|sigmask] [-n PAIRS] [-p BLOCK] [-c CPU]\n");
			return 2;
		}
	}
	if (!libc || block <= 0 || pairs < block)
		return 1;
	ref_lock = (lock_fn)dlsym(libc, "pthread_mutex_lock");
	ref_unlock = (lock_fn)dlsym(libc, "pthread_mutex_unlock");
	ref_mask = (mask_fn)dlsym(libc, "pthread_sigmask");
	if (!ref_lock || !ref_unlock || !ref_mask)
		return 1;
	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	sigfillset(&all);
	nblocks = pairs / block;
	ref = calloc((size_t)nblocks, sizeof(*ref));
	diff = calloc((size_t)nblocks, sizeof(*diff));
	if (!ref || !diff)
		return 1;
	for (long b = 0; b < nblocks; b++) {
		double t0 = now_ns(), t1, t2;

		run_block(sig, block, ref_lock, ref_unlock, ref_mask);
		t1 = now_ns();
		/* the program's own references: the wrappers when libutrace.so is preloaded */
		run_block(sig, block, pthread_mutex_lock, pthread_mutex_unlock, pthread_sigmask);
		t2 = now_ns();
		total += t2 - t1;
		ref[b] = (t1 - t0) / block;
		diff[b] = (t2 - t1 - (t1 - t0)) / block;
	}
	printf("mode=%s pairs=%ld ns_per_call=%.3f ref_ns=%.3f paired_overhead=%.3f\n",
	       sig ? "sigmask" : "mutex", nblocks * block, total / (nblocks * block),
	       median(ref, nblocks), median(diff, nblocks));
	return 0;
}
