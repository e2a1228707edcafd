// SPDX-License-Identifier: MIT
/*
 * soak_worker.cc - the traced processes of the soak test (tests/soak/soak.sh).
 *
 *   soak_worker count CALLS THREADS OUT   exact counting: the process forks one child
 *       first, then each process runs THREADS threads that call soak_leaf CALLS times
 *       each, plus CALLS/16 calls from a SIGUSR1 handler (raise()d, so synchronous).
 *       soak_leaf is the only function the driver selects, so under function_graph
 *       every call writes exactly two events.  Each process appends one line
 *       "PID CALLS" to OUT (O_APPEND, one write) after its threads are joined.
 *   soak_worker chaos LIB SELF ROUNDS     churn: threads, fork, exec of SELF, dlopen/
 *       dlclose of LIB, C++ throw and longjmp through traced frames, signals between
 *       threads, pthread_exit and exit from inside traced functions.  Exit status 0
 *       unless something went wrong (the driver treats a signal death as a crash).
 *   soak_worker leaf                      a few traced calls and exit (what chaos execs).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

static volatile long sink;

extern "C" NOINL void soak_leaf(void)
{
	sink++;
}

/* ---- count ----------------------------------------------------------------------------- */

static long count_calls;
static long handler_calls; /* raise() is synchronous: only the raising thread adds */

static void count_handler(int sig)
{
	(void)sig;
	soak_leaf();
	__atomic_add_fetch(&handler_calls, 1, __ATOMIC_RELAXED);
}

static void *count_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < count_calls; i++) {
		soak_leaf();
		if (i % 16 == 0)
			raise(SIGUSR1);
	}
	return NULL;
}

static int count_main(long calls, int threads, const char *out)
{
	pthread_t t[64];
	char line[64];
	pid_t child;
	int fd, n;

	count_calls = calls;
	signal(SIGUSR1, count_handler);
	child = fork();
	if (threads > 64)
		threads = 64;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, count_thread, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	fd = open(out, O_WRONLY | O_APPEND | O_CREAT, 0644);
	n = snprintf(line, sizeof(line), "%d %ld\n", (int)getpid(), calls * threads + handler_calls);
	if (fd < 0 || write(fd, line, n) != n)
		return 2;
	close(fd);
	if (child > 0) {
		int st;

		if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
			return 3;
	}
	return 0;
}

/* ---- chaos ----------------------------------------------------------------------------- */

static jmp_buf jb;
static __thread int depth;
static const char *self_path, *lib_path;

NOINL static void deep(int n, int how)
{
	depth++;
	if (n > 0) {
		deep(n - 1, how);
	} else if (how == 0) {
		throw 42;
	} else if (how == 1) {
		longjmp(jb, 1);
	} else if (how == 2) {
		pthread_exit(NULL);
	}
	soak_leaf();
}

NOINL static void thrower(int n)
{
	try {
		deep(n, 0);
	} catch (int) {
		soak_leaf();
	}
}

NOINL static void jumper(int n)
{
	if (!setjmp(jb))
		deep(n, 1);
	soak_leaf();
}

static void chaos_handler(int sig)
{
	(void)sig;
	soak_leaf();
}

static void *chaos_thread(void *arg)
{
	long k = (long)arg;

	for (int i = 0; i < 50; i++) {
		soak_leaf();
		thrower(i % 7);
	}
	if (k % 3 == 0)
		deep(5, 2); /* pthread_exit from inside traced frames */
	return NULL;
}

NOINL static int dl_round(void)
{
	void *h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	void (*f)(int);

	if (!h)
		return -1;
	f = (void (*)(int))dlsym(h, "soak_lib_entry");
	if (f)
		f(20);
	dlclose(h);
	return f ? 0 : -1;
}

NOINL static int fork_round(int r)
{
	pid_t p = fork();
	int st;

	if (p < 0)
		return 0; /* out of processes: not what we test */
	if (p == 0) {
		thrower(3);
		if (r % 2)
			execl(self_path, self_path, "leaf", (char *)NULL);
		deep(2, 3);
		exit(0);
	}
	if (waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int chaos_main(int rounds)
{
	signal(SIGUSR1, chaos_handler);
	for (int r = 0; r < rounds; r++) {
		pthread_t t[4];

		for (long i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, chaos_thread, (void *)(r * 4 + i));
		for (int i = 0; i < 4; i++)
			pthread_kill(t[i], SIGUSR1); /* may find it gone: ESRCH is fine */
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		jumper(r % 5);
		if (dl_round() || fork_round(r))
			return 1;
	}
	deep(3, 3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "count"))
		return count_main(atol(argv[2]), atoi(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "chaos")) {
		lib_path = argv[2];
		self_path = argv[3];
		return chaos_main(atoi(argv[4]));
	}
	if (argc == 2 && !strcmp(argv[1], "leaf")) {
		for (int i = 0; i < 100; i++)
			soak_leaf();
		return 0;
	}
	fprintf(stderr, "usage: soak_worker count CALLS THREADS OUT | chaos LIB SELF ROUNDS | leaf\n");
	return 2;
}
