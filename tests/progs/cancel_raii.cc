// SPDX-License-Identifier: MIT
/*
 * cancel_raii - a thread cancelled while it waits three traced calls deep, with an
 * object whose destructor must run in each of those frames.
 *
 *   cancel_raii
 *
 * cx_thread -> cx_outer -> cx_inner -> cx_wait (pause(), a cancellation point);
 * the first three hold a Guard each.  pthread_cancel's unwinding must run all
 * three destructors, under function_graph too (return addresses swapped).
 * Prints "destructors N" and exits 0 if N == 3.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

static volatile int destroyed, waiting;

struct Guard {
	int id;
	NOINL ~Guard() { __atomic_add_fetch(&destroyed, 1, __ATOMIC_RELEASE); }
};

NOINL void cx_wait(void)
{
	__atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
}

NOINL void cx_inner(void)
{
	Guard g{3};

	cx_wait();
	__asm__ volatile("" ::"r"(&g));
}

NOINL void cx_outer(void)
{
	Guard g{2};

	cx_inner();
	__asm__ volatile("" ::"r"(&g));
}

NOINL void *cx_thread(void *)
{
	Guard g{1};

	cx_outer();
	__asm__ volatile("" ::"r"(&g));
	return nullptr;
}

int main()
{
	struct timespec ms = {0, 1000000};
	pthread_t t;
	void *res;

	pthread_create(&t, nullptr, cx_thread, nullptr);
	/* in pause() within a minute, however loaded the machine */
	for (int i = 0; !__atomic_load_n(&waiting, __ATOMIC_ACQUIRE) && i < 60000; i++)
		nanosleep(&ms, nullptr);
	pthread_cancel(t);
	pthread_join(t, &res);
	printf("destructors %d%s\n", destroyed, res == PTHREAD_CANCELED ? "" : " (not cancelled)");
	return destroyed == 3 && res == PTHREAD_CANCELED ? 0 : 1;
}
