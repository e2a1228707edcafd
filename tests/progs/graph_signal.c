// SPDX-License-Identifier: MIT
/*
 * graph_signal.c - signal handlers interrupt traced functions and call traced
 * functions themselves: a handler run by raise() inside a nest, a timer signal that
 * lands in a busy loop, a handler that raises another signal (handlers nest).
 * They show inside the interrupted function, one level deeper, as interrupts do in
 * the kernel's graph.  Expected tree: graph_signal.tree.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "graph_common.h"

static volatile sig_atomic_t alarmed;

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void on_usr1(int sig)
{
	leaf(sig);
}

NOINL void on_usr2(int sig)
{
	leaf(sig);
	raise(SIGUSR1);
	sink++;
}

NOINL void on_alrm(int sig)
{
	leaf(sig);
	alarmed = 1;
}

NOINL void inner(void)
{
	raise(SIGUSR1);
	leaf(2);
}

NOINL void with_raise(void)
{
	inner();
	sink++;
}

/* The timer is armed from inside the loop's function, so that it fires there. */
NOINL int spin(void)
{
	struct sigevent sev;
	struct itimerspec its = {.it_value.tv_nsec = 5 * 1000 * 1000};
	timer_t tm;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = gettid(); /* this thread, not the runtime's */
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL))
		return -1;
	while (!alarmed)
		sink++;
	timer_delete(tm);
	return 0;
}

NOINL void nested(void)
{
	raise(SIGUSR2);
	sink++;
}

HELPER void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	handle(SIGUSR1, on_usr1);
	handle(SIGUSR2, on_usr2);
	handle(SIGALRM, on_alrm);
	with_raise();
	if (spin()) {
		printf("graph_signal: FAIL (timer)\n");
		return 1;
	}
	nested();
	leaf(3);
	printf("graph_signal: ok\n");
	return 0;
}
