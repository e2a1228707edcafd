/*
 * bench/micro/locks.c - cost of the primitives the latency tracers wrap: one
 * pthread_mutex_lock + pthread_mutex_unlock pair (-m mutex), or one
 * pthread_sigmask(SIG_BLOCK, all) + pthread_sigmask(SIG_SETMASK, old) pair
 * (-m sigmask), or one round trip of a condition variable between this thread and
 * a partner (-m cond: each hands the turn over with pthread_cond_signal and waits
 * for it back in pthread_cond_wait, so a round trip is two signal/wait pairs), in
 * nanoseconds per pair (round trip).
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
 * Options: -m mutex|sigmask|cond, -n PAIRS (default 1000000), -p BLOCK (default 10000),
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
typedef int (*cwait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*csig_fn)(pthread_cond_t *);

/* one set of the functions a block calls: libc's own, or the program's references */
struct fns {
	lock_fn lock, unlock;
	mask_fn mask;
	cwait_fn wait;
	csig_fn signal;
};

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sigset_t all, old;
static int turn; /* -m cond: 1 the partner's, 0 this thread's (under mtx) */
static int stop;
/* the set the partner uses: the current block's */
static const struct fns *volatile cur;

/* -m cond: waits for the turn, gives it back, until stop */
static void *partner(void *arg)
{
	(void)arg;
	for (;;) {
		const struct fns *f = cur;

		f->lock(&mtx);
		while (!turn && !stop)
			f->wait(&cv, &mtx);
		if (stop) {
			f->unlock(&mtx);
			return NULL;
		}
		turn = 0;
		f->signal(&cv);
		f->unlock(&mtx);
	}
}

/* -m cond: one round trip */
static void cond_trip(const struct fns *f)
{
	f->lock(&mtx);
	turn = 1;
	f->signal(&cv);
	while (turn)
		f->wait(&cv, &mtx);
	f->unlock(&mtx);
}

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

/* n pairs through the functions given (mode: 0 mutex, 1 sigmask, 2 cond) */
static void __attribute__((noinline)) run_block(int mode, long n, const struct fns *f)
{
	cur = f;
	for (long i = 0; i < n; i++) {
		if (mode == 1) {
			f->mask(SIG_BLOCK, &all, &old);
			f->mask(SIG_SETMASK, &old, NULL);
		} else if (mode == 2) {
			cond_trip(f);
		} else {
			f->lock(&mtx);
			f->unlock(&mtx);
		}
	}
}

int main(int argc, char **argv)
{
	long pairs = 1000000, block = 10000, nblocks;
	int mode = 0, cpu = -1, c;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	static const char *const modes[] = {"mutex", "sigmask", "cond"};
	struct fns ref, own = {pthread_mutex_lock, pthread_mutex_unlock, pthread_sigmask,
			       pthread_cond_wait, pthread_cond_signal};
	pthread_t part;
	double total = 0, *refns, *diff;

	while ((c = getopt(argc, argv, "m:n:p:c:")) != -1) {
		switch (c) {
		case 'm': mode = !strcmp(optarg, "sigmask") ? 1 : !strcmp(optarg, "cond") ? 2 : 0; break;
		case 'n': pairs = atol(optarg); break;
		case 'p': block = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr,
				"usage: locks [-m mutex|sigmask|cond] [-n PAIRS] [-p BLOCK] [-c CPU]\n");
			return 2;
		}
	}
	if (!libc || block <= 0 || pairs < block)
		return 1;
	ref.lock = (lock_fn)dlsym(libc, "pthread_mutex_lock");
	ref.unlock = (lock_fn)dlsym(libc, "pthread_mutex_unlock");
	ref.mask = (mask_fn)dlsym(libc, "pthread_sigmask");
	/* the versions programs built today call */
	ref.wait = (cwait_fn)dlvsym(libc, "pthread_cond_wait", "GLIBC_2.3.2");
	ref.signal = (csig_fn)dlvsym(libc, "pthread_cond_signal", "GLIBC_2.3.2");
	if (!ref.lock || !ref.unlock || !ref.mask || !ref.wait || !ref.signal)
		return 1;
	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	sigfillset(&all);
	nblocks = pairs / block;
	refns = calloc((size_t)nblocks, sizeof(*refns));
	diff = calloc((size_t)nblocks, sizeof(*diff));
	if (!refns || !diff)
		return 1;
	cur = &ref;
	if (mode == 2 && pthread_create(&part, NULL, partner, NULL))
		return 1;
	for (long b = 0; b < nblocks; b++) {
		double t0 = now_ns(), t1, t2;

		run_block(mode, block, &ref);
		t1 = now_ns();
		/* the program's own references: the wrappers when libutrace.so is preloaded */
		run_block(mode, block, &own);
		t2 = now_ns();
		total += t2 - t1;
		refns[b] = (t1 - t0) / block;
		diff[b] = (t2 - t1 - (t1 - t0)) / block;
	}
	if (mode == 2) {
		pthread_mutex_lock(&mtx);
		stop = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mtx);
		pthread_join(part, NULL);
	}
	printf("mode=%s pairs=%ld ns_per_call=%.3f ref_ns=%.3f paired_overhead=%.3f\n",
	       modes[mode], nblocks * block, total / (nblocks * block), median(refns, nblocks),
	       median(diff, nblocks));
	return 0;
}
