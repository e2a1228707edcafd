// SPDX-License-Identifier: MIT
/*
 * e2e_sigstorm - traced code in threads and in a SIGALRM handler firing every
 * 200 us, for as long as a test switches tracers under it.
 *
 *   e2e_sigstorm SECONDS fill|empty
 *
 * "fill": the handler is installed with every signal blocked (SIGTRAP included,
 * as many programs do); "empty": nothing blocked, so the handler can also run
 * inside the runtime's SIGTRAP handler.  Prints "survived" at the end.  Exits 4
 * if its standard output is a socket (the runtime must keep its socket off 0-2).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

static volatile long sink;

__attribute__((noinline)) void storm_leaf(int i)
{
	sink += i;
	__asm__ volatile("");
}

__attribute__((noinline)) void storm_handler_leaf(int i)
{
	sink -= i;
	__asm__ volatile("");
}

static void on_alarm(int sig)
{
	for (int i = 0; i < 50; i++)
		storm_handler_leaf(i);
}

static void *spin(void *arg)
{
	for (;;)
		storm_leaf(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval it = {{0, 200}, {0, 200}};
	struct stat st;
	pthread_t t;

	if (argc != 3)
		return 2;
	if (fstat(1, &st) == 0 && S_ISSOCK(st.st_mode))
		return 4;
	if (strcmp(argv[2], "fill") == 0)
		sigfillset(&sa.sa_mask);
	else
		sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, spin, NULL);
	for (time_t end = time(NULL) + atoi(argv[1]); time(NULL) < end;)
		storm_leaf(2);
	printf("survived\n");
	return 0;
}
