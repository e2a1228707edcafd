// SPDX-License-Identifier: MIT
/*
 * rt_calls.c - an instrumented program for the runtime's tests.
 *
 *   rt_calls calls N        call leaf() N times from caller(); prints the
 *                           addresses a test needs: "leaf SITE parent RET pid PID"
 *   rt_calls bytes          print leaf()'s 5 site bytes, as seen from inside
 *   rt_calls printk         trace_printk/trace_puts, then tracing_off() and 100 calls
 *   rt_calls printk-tail    trace_printk/trace_puts as tail calls (report_tail())
 *   rt_calls fork N         N calls in the parent, fork, N*2 calls in the child;
 *                           prints "child PID"
 *   rt_calls spin           call leaf() until killed
 *   rt_calls stress T FILE  T threads call leaf() in loops; FILE (shared, 4 ints:
 *                           request, done, stop, calls per request) asks them to
 *                           call counted() exactly K times each
 *   rt_calls signal N       N calls from inside a SIGUSR1 handler, then N calls with
 *                           every signal blocked
 *   rt_calls bench N        time N calls of leaf(): prints "ns/call X" (best of 5)
 *   rt_calls threads T N    T threads (besides main) call leaf() N times each, all at
 *                           once, then T more (reusing the first ones' stacks and TLS);
 *                           prints "leaf SITE pid PID rseq SIZE" (glibc's __rseq_size)
 *   rt_calls rename N       N calls, prctl(PR_SET_NAME, "renamed"), N calls
 *   rt_calls closefds N     close every descriptor above 2 (as daemons do), wait
 *                           until the runtime registered again, then N calls
 *   rt_calls dlopen SO N    dlopen SO, call its dso_fn() N times, dlclose, call it again
 *                           after a second dlopen; prints "dso_fn SITE"
 *   rt_calls dlloop SO N    N cycles of dlopen SO, one dso_fn() call, dlclose; then
 *                           dlopen, 100 calls; prints "dso_fn SITE first XX" (the
 *                           site's first byte: e8 when it was patched)
 *   rt_calls dlinit SO      dlopen SO (its constructors, and those of the objects it
 *                           needs, run inside), call its mod_open() as a Lua module's
 *                           luaopen_ function is called; print "ready", then wait
 *                           for the end of stdin with SO still loaded
 *   rt_calls avx N          N calls of avx_sum(__m256d, __m256d) in main and in two
 *                           new threads (their first event); prints "avx bad B of T"
 *                           (results that lost the ymm upper halves), or "noavx"
 */
#include <dlfcn.h>
#include <immintrin.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <utrace/utrace.h>

static volatile unsigned long sink;
static void *volatile leaf_ret;

__attribute__((noinline)) void leaf(unsigned long i)
{
	if (!leaf_ret)
		leaf_ret = __builtin_return_address(0);
	sink += i;
}

__attribute__((noinline)) void counted(unsigned long i)
{
	sink += i;
}

__attribute__((noinline)) void caller(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		leaf(i);
		sink++; /* no tail call: the parent is caller() */
	}
}

/* The site: after endbr64 when the build uses -fcf-protection. */
static const unsigned char *site_of(void (*fn)(unsigned long))
{
	const unsigned char *p = (const unsigned char *)fn;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	return p;
}

static int do_calls(unsigned long n)
{
	caller(n);
	printf("leaf %p parent %p pid %d\n", (void *)site_of(leaf), leaf_ret, (int)getpid());
	return 0;
}

static int do_bytes(void)
{
	const unsigned char *p = site_of(leaf);

	printf("%02x %02x %02x %02x %02x\n", p[0], p[1], p[2], p[3], p[4]);
	return 0;
}

/* At -O2 both calls are tail calls: the return address would name the caller. */
__attribute__((noinline)) void report_tail(int x)
{
	if (x > 1)
		trace_printk("tail x=%d\n", x);
	else
		trace_puts("tail puts\n");
}

static int do_printk(void)
{
	trace_printk("hello %d from %s\n", 42, "printk");
	trace_puts("a constant string\n");
	caller(10);
	tracing_off();
	caller(100);
	printf("leaf %p is_on %d\n", (void *)site_of(leaf), tracing_is_on());
	return 0;
}

static int do_fork(unsigned long n)
{
	pid_t pid;
	int st;

	caller(n);
	pid = fork();
	if (pid == 0) {
		caller(2 * n);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("leaf %p child %d parent %d\n", (void *)site_of(leaf), (int)pid, (int)getpid());
	return 0;
}

struct stress_ctl {
	volatile int request, done, stop, per;
};
static struct stress_ctl *sc;

static void *stress_thread(void *arg)
{
	int seen = 0;

	while (!sc->stop) {
		for (int i = 0; i < 50; i++)
			leaf((unsigned long)i);
		if (sc->request != seen) {
			seen = sc->request;
			for (int i = 0; i < sc->per; i++)
				counted((unsigned long)i);
			__atomic_fetch_add(&sc->done, 1, __ATOMIC_SEQ_CST);
		}
		usleep(20);
	}
	return NULL;
}

static int do_stress(int nthreads, const char *file)
{
	FILE *f = fopen(file, "r+");
	pthread_t th[64];

	if (!f || nthreads > 64)
		return 2;
	sc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
	if (sc == MAP_FAILED)
		return 2;
	printf("leaf %p counted %p\n", (void *)site_of(leaf), (void *)site_of(counted));
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, stress_thread, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static unsigned long sig_n;

static void on_usr1(int sig)
{
	caller(sig_n);
}

static int do_signal(unsigned long n)
{
	sigset_t all, old;

	sig_n = n;
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	caller(n);
	sigprocmask(SIG_SETMASK, &old, NULL);
	caller(n);
	printf("leaf %p\n", (void *)site_of(leaf));
	return 0;
}

static int do_dlopen(const char *so, unsigned long n)
{
	void *h = dlopen(so, RTLD_NOW);
	void (*fn)(unsigned long);

	if (!h)
		return 3;
	fn = (void (*)(unsigned long))dlsym(h, "dso_fn");
	if (!fn)
		return 4;
	for (unsigned long i = 0; i < n; i++)
		fn(i);
	printf("dso_fn %p\n", (void *)site_of(fn));
	dlclose(h);
	return 0;
}

static int do_dlloop(const char *so, unsigned long n)
{
	void (*fn)(unsigned long);
	void *h;

	for (unsigned long i = 0; i <= n; i++) {
		h = dlopen(so, RTLD_NOW);
		if (!h)
			return 3;
		fn = (void (*)(unsigned long))dlsym(h, "dso_fn");
		if (!fn)
			return 4;
		for (unsigned long k = 0; k < (i < n ? 1 : 100); k++)
			fn(k);
		if (i == n)
			printf("dso_fn %p first %02x\n", (void *)site_of(fn), *site_of(fn));
		dlclose(h);
	}
	return 0;
}

static int do_dlinit(const char *so)
{
	void *h = dlopen(so, RTLD_NOW);
	int (*open_fn)(void);
	char c;

	if (!h)
		return 3;
	open_fn = (int (*)(void))dlsym(h, "mod_open");
	if (!open_fn)
		return 4;
	printf("ready %d\n", open_fn());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

static int do_rename(unsigned long n)
{
	caller(n);
	prctl(PR_SET_NAME, "renamed", 0, 0, 0);
	return do_calls(n);
}

static int do_closefds(unsigned long n)
{
	int i;

	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* the runtime notices (tracing_is_on() is 0 while detached) and registers again */
	for (i = 0; i < 200 && tracing_is_on(); i++)
		usleep(10 * 1000);
	for (i = 0; i < 1000 && !tracing_is_on(); i++)
		usleep(10 * 1000);
	return do_calls(n);
}

static unsigned long threads_n;
static pthread_barrier_t threads_go;

static void *calls_thread(void *arg)
{
	pthread_barrier_wait(&threads_go); /* all threads run at the same time */
	caller(threads_n);
	return NULL;
}

static int do_threads(int nthreads, unsigned long n)
{
	pthread_t th[64];

	if (nthreads < 1 || nthreads > 64)
		return 2;
	threads_n = n;
	pthread_barrier_init(&threads_go, NULL, (unsigned int)nthreads);
	for (int wave = 0; wave < 2; wave++) {
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, calls_thread, NULL);
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
	}
	printf("leaf %p pid %d rseq %u\n", (void *)site_of(leaf), (int)getpid(), __rseq_size);
	return 0;
}

/* Its arguments arrive in ymm0 and ymm1: the trampoline must keep all 256 bits. */
__attribute__((noinline, target("avx"))) double avx_sum(__m256d a, __m256d b)
{
	double r[4];

	_mm256_storeu_pd(r, _mm256_add_pd(a, b));
	return r[0] + r[1] + r[2] + r[3];
}

static unsigned long avx_n;

__attribute__((target("avx"))) static void *avx_thread(void *arg)
{
	uintptr_t bad = 0;

	for (unsigned long i = 0; i < avx_n; i++) {
		double x = (double)i;
		__m256d a = _mm256_set_pd(x, 3, 2, 1), b = _mm256_set_pd(40, 30 * x, 20, 10);

		if (avx_sum(a, b) != 76 + 31 * x) /* elements 2 and 3: the upper halves */
			bad++;
	}
	return (void *)bad;
}

static int do_avx(unsigned long n)
{
	uintptr_t bad;
	pthread_t th[2];
	void *r;

	if (!__builtin_cpu_supports("avx")) {
		printf("noavx\n");
		return 0;
	}
	avx_n = n;
	bad = (uintptr_t)avx_thread(NULL);
	for (int i = 0; i < 2; i++) {
		pthread_create(&th[i], NULL, avx_thread, NULL);
		pthread_join(th[i], &r);
		bad += (uintptr_t)r;
	}
	printf("avx bad %lu of %lu\n", (unsigned long)bad, 3 * n);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int do_bench(unsigned long n)
{
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = now_ns();

		caller(n);
		double t = (now_ns() - t0) / (double)n;

		if (t < best)
			best = t;
	}
	printf("ns/call %.2f\n", best);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "calls"))
		return do_calls(n);
	if (!strcmp(mode, "threads"))
		return do_threads((int)n, argc > 3 ? strtoul(argv[3], NULL, 0) : 1000);
	if (!strcmp(mode, "bytes"))
		return do_bytes();
	if (!strcmp(mode, "printk"))
		return do_printk();
	if (!strcmp(mode, "printk-tail")) {
		report_tail(7);
		report_tail(1);
		return 0;
	}
	if (!strcmp(mode, "fork"))
		return do_fork(n);
	if (!strcmp(mode, "spin")) {
		printf("leaf %p\n", (void *)site_of(leaf));
		for (;;)
			caller(1000);
	}
	if (!strcmp(mode, "stress") && argc > 3)
		return do_stress((int)n, argv[3]);
	if (!strcmp(mode, "dlinit") && argc > 2)
		return do_dlinit(argv[2]);
	if (!strcmp(mode, "dlopen") && argc > 3)
		return do_dlopen(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(mode, "dlloop") && argc > 3)
		return do_dlloop(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(mode, "rename"))
		return do_rename(n);
	if (!strcmp(mode, "closefds"))
		return do_closefds(n);
	if (!strcmp(mode, "bench"))
		return do_bench(n);
	if (!strcmp(mode, "signal"))
		return do_signal(n);
	if (!strcmp(mode, "avx"))
		return do_avx(n);
	fprintf(stderr,
		"usage: rt_calls calls|bytes|printk|printk-tail|dlinit|fork|spin|stress|signal|bench|dlopen|dlloop|avx ...\n");
	return 2;
}
