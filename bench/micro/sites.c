/*
 * bench/micro/sites.c - a program with many patch sites that stays alive on command, for
 * the scaling runs of issue 5 (bench/scale.sh).
 *
 * bench/scale.sh generates a file of N small functions, site_0() ... site_<N-1>(), and
 * the table site_fns[] (site_count entries), and links it with this driver, all built
 * with -fpatchable-function-entry=5.  The program starts THREADS - 1 extra threads that
 * wait, prints "ready", then reads commands from standard input, one per line:
 *
 *	e		print the first five bytes of the first, middle and last site:
 *			"entries=0f1f440000,0f1f440000,0f1f440000" (see calls.c for the codes)
 *	g REPEAT	every thread (main included) calls every site REPEAT times; then "done"
 *
 * and exits at end of input.  Between commands nothing runs: the sites are registered and
 * idle, which is the state in which bench/scale.sh times `echo function > current_tracer`,
 * and the threads have touched whatever a tracer keeps per thread, which is the state in
 * which it reads the process's resident memory.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry_bytes.h"

extern int (*const site_fns[])(int);
extern const long site_count;

static pthread_barrier_t go, done;
static long repeat;
static volatile int sink;

static void call_all(long times)
{
	long r, i;
	int acc = 0;

	for (r = 0; r < times; r++)
		for (i = 0; i < site_count; i++)
			acc = site_fns[i](acc);
	sink = acc;
}

static void *worker(void *arg)
{
	for (;;) {
		pthread_barrier_wait(&go);
		if (repeat < 0)
			return NULL;
		call_all(repeat);
		pthread_barrier_wait(&done);
	}
	return arg;
}


int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1, i;
	pthread_t *tid;
	char line[64];

	if (threads < 1 || threads > 64 || site_count < 1) {
		fprintf(stderr, "usage: sites [THREADS (1..64)]\n");
		return 2;
	}
	tid = calloc(threads, sizeof(*tid));
	pthread_barrier_init(&go, NULL, threads);
	pthread_barrier_init(&done, NULL, threads);
	for (i = 1; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, worker, NULL)) {
			fprintf(stderr, "sites: cannot create thread %d\n", i);
			return 1;
		}
	}
	printf("ready sites=%ld threads=%d\n", site_count, threads);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'e') {
			printf("entries=");
			print_entry((const unsigned char *)(void *)site_fns[0]);
			putchar(',');
			print_entry((const unsigned char *)(void *)site_fns[site_count / 2]);
			putchar(',');
			print_entry((const unsigned char *)(void *)site_fns[site_count - 1]);
			putchar('\n');
		} else if (line[0] == 'g') {
			repeat = atol(line + 1);
			pthread_barrier_wait(&go);
			call_all(repeat);
			pthread_barrier_wait(&done);
			printf("done\n");
		}
		fflush(stdout);
	}
	repeat = -1;
	pthread_barrier_wait(&go);
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	return 0;
}
