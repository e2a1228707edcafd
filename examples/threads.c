// SPDX-License-Identifier: MIT
/*
 * threads.c - two threads doing a little work each, to show that every thread
 * of a traced program lands in the same trace, each line tagged with its
 * thread id (the PID of TASK-PID, as in the kernel) and the CPU it ran on.
 *
 *     cc $(utrace cflags) -O2 -pthread -o threads threads.c
 *     utrace record -p function -- ./threads
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static unsigned long checksum(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	const char *name = arg;
	unsigned long h = 0;

	for (int i = 0; i < 3; i++)
		h ^= checksum(name);
	return (void *)h;
}

int main(void)
{
	pthread_t t[2];
	static char *const names[2] = {"worker-a", "worker-b"};
	void *res;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, names[i])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &res);
		printf("%s: %lx\n", names[i], (unsigned long)res);
	}
	return 0;
}
