// SPDX-License-Identifier: MIT
/*
 * graph_threads.c - each thread has its own stack of calls: two threads return
 * normally, one leaves with pthread_exit() from two calls deep (running a cleanup
 * handler on the way), one is cancelled while blocked two calls deep (its cleanup
 * handler runs too).  Expected tree: graph_threads.tree.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#include "graph_common.h"

static sem_t blocked;

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void step(int id)
{
	leaf(id);
	leaf(id + 1);
	sink++;
}

NOINL void *worker(void *arg)
{
	step((int)(long)arg);
	leaf(0);
	return arg;
}

NOINL void cleanup(void *arg)
{
	sink += (int)(long)arg;
}

NOINL void exit_here(void)
{
	leaf(5);
	pthread_exit((void *)5);
}

NOINL void exit_body(void)
{
	pthread_cleanup_push(cleanup, (void *)1);
	exit_here();
	sink++;
	pthread_cleanup_pop(0);
}

NOINL void *exiter(void *arg)
{
	exit_body();
	return NULL;
}

/* Blocks in pause(), a cancellation point, until cancelled. */
NOINL void wait_here(void)
{
	leaf(6);
	sem_post(&blocked);
	for (;;)
		pause();
}

NOINL void cancel_body(void)
{
	pthread_cleanup_push(cleanup, (void *)2);
	wait_here();
	pthread_cleanup_pop(0);
}

NOINL void *cancelled(void *arg)
{
	cancel_body();
	return NULL;
}

NOINL int run_threads(void)
{
	pthread_t t[4];
	void *ret[4];
	int bad = 0;

	pthread_create(&t[0], NULL, worker, (void *)1);
	pthread_create(&t[1], NULL, worker, (void *)1);
	pthread_create(&t[2], NULL, exiter, NULL);
	pthread_create(&t[3], NULL, cancelled, NULL);
	sem_wait(&blocked);
	pthread_cancel(t[3]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], &ret[i]);
	bad |= ret[0] != (void *)1 || ret[1] != (void *)1;
	bad |= ret[2] != (void *)5;
	bad |= ret[3] != PTHREAD_CANCELED;
	leaf(9);
	return bad;
}

int main(void)
{
	sem_init(&blocked, 0, 0);
	if (run_threads()) {
		printf("graph_threads: FAIL (thread results)\n");
		return 1;
	}
	printf("graph_threads: ok\n");
	return 0;
}
