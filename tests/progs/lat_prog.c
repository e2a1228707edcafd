// SPDX-License-Identifier: MIT
/*
 * lat_prog.c - a traced program with sections of known length, for the latency
 * tracers' test (tests/integration/105_irqsoff.sh).
 *
 * Commands on stdin (-l), each run in a new thread (joined), which prints
 * "worker TID" and is answered by "done":
 *   i MS   thread "lat_irq": hold_irqs() blocks every signal, inside_work(),
 *          at least MS ms pass, release_irqs() puts the mask back; then outside_work()
 *   l MS   thread "lat_lock": take_lock() locks a mutex, inside_work(), at least MS
 *          ms, drop_lock() unlocks it; then outside_work()
 *   n MS   thread "lat_nest": a mutex and a spinlock nested for MS ms (unlock order
 *          reversed): one section from take_lock() to drop_outer()
 *   h MS   thread "lat_sig": a SIGUSR1 handler, on_usr1(), runs for at least MS ms
 *   s      "inside_work XX" and "outside_work XX": the first byte of each site
 * The program prints "pid P" first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pass_ms.h"
#include "site_byte.h"

/* each primitive's caller must be the function named (no tail call into it) */
#define NI __attribute__((noinline, noclone, optimize("no-optimize-sibling-calls")))

static volatile int sink;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static sigset_t saved;

NI void inside_work(void)
{
	sink++;
}

NI void outside_work(void)
{
	sink--;
}

NI void hold_irqs(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
}

NI void release_irqs(void)
{
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

NI void take_lock(void)
{
	pthread_mutex_lock(&mtx);
}

NI void drop_lock(void)
{
	pthread_mutex_unlock(&mtx);
}

NI void take_inner(void)
{
	pthread_spin_lock(&spin);
}

NI void drop_outer(void)
{
	pthread_spin_unlock(&spin);
}

static int usr1_ms;

NI void on_usr1(int sig)
{
	(void)sig;
	inside_work();
	pass_ms(usr1_ms);
}

struct job {
	char cmd;
	int ms;
};

static void *worker(void *arg)
{
	const struct job *j = arg;
	const char *name = j->cmd == 'i'   ? "lat_irq"
			   : j->cmd == 'l' ? "lat_lock"
			   : j->cmd == 'h' ? "lat_sig"
					   : "lat_nest";

	pthread_setname_np(pthread_self(), name);
	printf("worker %ld\n", (long)syscall(SYS_gettid));
	outside_work();
	if (j->cmd == 'i') {
		hold_irqs();
		inside_work();
		pass_ms(j->ms);
		release_irqs();
	} else if (j->cmd == 'h') {
		usr1_ms = j->ms;
		pthread_kill(pthread_self(), SIGUSR1);
	} else if (j->cmd == 'l') {
		take_lock();
		inside_work();
		pass_ms(j->ms);
		drop_lock();
	} else {
		take_lock();
		take_inner();
		inside_work();
		pass_ms(j->ms);
		pthread_mutex_unlock(&mtx); /* the spinlock is still held */
		drop_outer();
	}
	outside_work();
	return NULL;
}

static void *lookup(const char *name)
{
	return !strcmp(name, "inside_work")    ? (void *)inside_work
	       : !strcmp(name, "outside_work") ? (void *)outside_work
					       : NULL;
}

int main(int argc, char **argv)
{
	char line[64];

	if (argc != 2 || strcmp(argv[1], "-l")) {
		fprintf(stderr, "usage: lat_prog -l\n");
		return 2;
	}
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	signal(SIGUSR1, on_usr1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		struct job j = {line[0], atoi(line + 1)};
		pthread_t t;

		if (j.cmd == 's') {
			print_site("inside_work");
			print_site("outside_work");
		} else if (strchr("ilnh", j.cmd) && !pthread_create(&t, NULL, worker, &j)) {
			pthread_join(t, NULL);
		}
		printf("done\n");
	}
	return 0;
}
