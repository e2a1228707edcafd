// SPDX-License-Identifier: MIT
/*
 * probe_prog.c - a traced program for the function probe tests
 * (tests/integration/82_probe.sh).
 *
 *   probe_prog N          N rounds of tick(i) then after(i)
 *   probe_prog -t K N     the same in K threads at once
 *   probe_prog -f K N     the same in K processes at once (fork)
 *   probe_prog -s         print "NAME XX" (site_byte.h) for tick and after
 *   probe_prog -w         print "ready", then wait for the end of stdin
 *   probe_prog -l         commands on stdin, each answered by "done": a number N
 *                         runs N rounds; exits at EOF
 *
 * tick and after are separate functions that do almost nothing, so that a probe
 * on tick and the trace of after show what the probe did between them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "site_byte.h"

#define NI __attribute__((noinline, noclone))

static volatile unsigned long sink;

NI void tick(int i)
{
	sink += (unsigned long)i;
}

NI void after(int i)
{
	sink -= (unsigned long)i;
}

static int rounds;

NI static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		tick(i);
		after(i);
	}
	return NULL;
}

static void *lookup(const char *name)
{
	if (!strcmp(name, "tick"))
		return (void *)tick;
	if (!strcmp(name, "after"))
		return (void *)after;
	return NULL;
}

int main(int argc, char **argv)
{
	int k = 1;

	if (argc == 2 && !strcmp(argv[1], "-w")) {
		char buf[64];

		printf("ready\n");
		fflush(stdout);
		while (fread(buf, 1, sizeof(buf), stdin) > 0)
			;
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		char line[64];

		while (fgets(line, sizeof(line), stdin)) {
			rounds = atoi(line);
			run(NULL);
			printf("done\n");
			fflush(stdout);
		}
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "-s")) {
		print_site("tick");
		print_site("after");
		return 0;
	}
	if (argc == 4 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-f"))) {
		k = atoi(argv[2]);
		rounds = atoi(argv[3]);
	} else if (argc == 2) {
		rounds = atoi(argv[1]);
	} else {
		fprintf(stderr, "usage: probe_prog [-t K | -f K] N | -s\n");
		return 2;
	}
	if (argc == 4 && argv[1][1] == 't') {
		pthread_t t[64];

		if (k < 1 || k > 64)
			return 2;
		for (int j = 0; j < k; j++)
			pthread_create(&t[j], NULL, run, NULL);
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	} else if (argc == 4) {
		for (int j = 0; j < k; j++)
			if (fork() == 0) {
				run(NULL);
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
	} else {
		run(NULL);
	}
	return 0;
}
