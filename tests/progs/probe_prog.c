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
 *   probe_prog -F K       two threads call tick without end while K children are
 *                         forked one after the other; each child waits 0.3 s (its
 *                         own selection comes), dlopen()s libm and exits; prints
 *                         "forks K ok N", N the children that exited by themselves
 *                         within 5 s (a child stuck in the runtime is killed)
 *   probe_prog -c         after 0.3 s, close every descriptor from 3 on (the runtime's too), open
 *                         /dev/null 253 times (the numbers the runtime had among
 *                         them), wait 2 s (the runtime notices its socket is gone
 *                         and attaches again) and print "fds ok", or "fd N is PATH"
 *                         for one of ours that no longer is /dev/null
 *
 * tick and after are separate functions that do almost nothing, so that a probe
 * on tick and the trace of after show what the probe did between them.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

static volatile int stop_spin;

static void *spin(void *arg)
{
	(void)arg;
	while (!stop_spin)
		tick(1);
	return NULL;
}

/* -F K: forks while other threads run through a probed function. */
static int fork_while_probed(int k)
{
	pthread_t t[2];
	int ok = 0;

	for (int j = 0; j < 2; j++)
		pthread_create(&t[j], NULL, spin, NULL);
	for (int j = 0; j < k; j++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			struct timespec ts = {0, 300000000};

			alarm(5);
			nanosleep(&ts, NULL);
			if (!dlopen("libm.so.6", RTLD_NOW))
				_exit(3);
			after(1);
			_exit(0);
		}
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
			ok++;
	}
	stop_spin = 1;
	for (int j = 0; j < 2; j++)
		pthread_join(t[j], NULL);
	printf("forks %d ok %d\n", k, ok);
	return 0;
}

/* -c: the program owns its descriptors, whatever the runtime had there before. */
static int close_and_reuse(void)
{
	struct timespec ts = {0, 300000000};
	char path[64], target[256];
	int bad = 0, ours[253];

	nanosleep(&ts, NULL); /* the runtime's control thread is waiting by now */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* the runtime may take a number meanwhile (it attaches again): ours are these */
	for (int i = 0; i < 253; i++)
		if ((ours[i] = open("/dev/null", O_RDONLY)) < 0)
			return 1;
	sleep(2);
	for (int i = 0; i < 253; i++) {
		int fd = ours[i];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		if (strcmp(target, "/dev/null")) {
			printf("fd %d is %s\n", fd, target);
			bad = 1;
		}
	}
	if (!bad)
		printf("fds ok\n");
	return 0;
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
	if (argc == 2 && !strcmp(argv[1], "-c"))
		return close_and_reuse();
	if (argc == 3 && !strcmp(argv[1], "-F"))
		return fork_while_probed(atoi(argv[2]));
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
