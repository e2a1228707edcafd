// SPDX-License-Identifier: MIT
/*
 * e2e_calls - a traced program for the end-to-end tests.
 *
 *   e2e_calls [-n CALLS] [-t THREADS] [-w] [-l] [-c]
 *
 * Each thread calls outer() CALLS times; outer() calls work().  -w waits for SIGUSR1
 * before calling (so a test can set the tracer first), -l loops until SIGTERM, -c
 * checks at exit that both functions start with a 5-byte NOP again (exit 3 if not).
 * Prints "calls N" (total calls of work()) at the end.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;
static long calls = 1000;
static int loop;

__attribute__((noinline)) int work(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline)) int outer(int x)
{
	return work(x) * 2;
}

static void on_usr1(int sig)
{
	go = 1;
}

static void on_term(int sig)
{
	stop = 1;
}

static void *run(void *arg)
{
	long *done = arg;
	int acc = 0;

	for (long i = 0; loop ? !stop : i < calls; i++) {
		acc += outer((int)i);
		(*done)++;
	}
	return (void *)(long)acc;
}

static int starts_with_nop5(const void *fn)
{
	const unsigned char *p = fn;
	static const unsigned char nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4; /* endbr64 */
	return memcmp(p, nop5, sizeof(nop5)) == 0;
}

int main(int argc, char **argv)
{
	int threads = 1, wait_go = 0, check = 0, opt;

	while ((opt = getopt(argc, argv, "n:t:wlc")) != -1) {
		switch (opt) {
		case 'n': calls = atol(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'w': wait_go = 1; break;
		case 'l': loop = 1; break;
		case 'c': check = 1; break;
		default: return 2;
		}
	}
	signal(SIGUSR1, on_usr1);
	signal(SIGTERM, on_term);
	if (wait_go)
		while (!go)
			pause();

	pthread_t tid[64];
	long done[64] = {0}, total = 0;

	if (threads < 1 || threads > 64)
		return 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, run, &done[i]);
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += done[i];
	}
	printf("calls %ld\n", total);
	if (check && !(starts_with_nop5((void *)work) && starts_with_nop5((void *)outer))) {
		printf("site not restored\n");
		return 3;
	}
	return 0;
}
