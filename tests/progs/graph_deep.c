// SPDX-License-Identifier: MIT
/*
 * graph_deep.c - recursion deeper than the tracer's shadow stack (1024 frames),
 * and recursion that overflows the real stack:
 *
 *   - rec() recurses 3000 deep, then returns; the calls after it are at their depth.
 *   - In a thread with a 256 KB stack, ovf_small() (small frames, thousands deep)
 *     and ovf_big() (4 KB frames, a few dozen deep) recurse until the stack
 *     overflows; the SIGSEGV handler, on a sigaltstack, calls segv_note() and
 *     siglongjmps back.  The program must behave as it does untraced.
 *
 * Expected tree: graph_deep.tree, where "name+" stands for a run of recursive
 * calls, each one level deeper (how many depends on the limit and the stack).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_common.h"

static __thread sigjmp_buf ovf_env;
static __thread volatile int ovf_depth;
static volatile int ovf_noted;
static volatile int ovf_limit = 1 << 30; /* never reached: keeps the recursion finite */

/* The whole array escapes, so that the compiler cannot shrink the frame. */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

NOINL void leaf(int x)
{
	sink += x;
}

/* Not a tail call, so that every level keeps its frame. */
NOINL int rec(int n)
{
	int r;

	sink++;
	if (!n)
		return 0;
	r = rec(n - 1);
	sink += r;
	return r + 1;
}

NOINL void finish(void)
{
	sink--;
}

NOINL void segv_note(void)
{
	ovf_noted++;
}

NOINL void on_segv(int sig)
{
	segv_note();
	siglongjmp(ovf_env, 1);
}

NOINL int ovf_small(int n)
{
	volatile char pad[16];
	int r;

	pad[0] = (char)n;
	ESCAPE(pad);
	ovf_depth = n;
	if (n > ovf_limit)
		return 0;
	r = ovf_small(n + 1);
	return r + pad[0];
}

NOINL int ovf_big(int n)
{
	volatile char pad[4096];
	int r;

	pad[0] = (char)n;
	pad[4095] = 0;
	ESCAPE(pad);
	ovf_depth = n;
	if (n > ovf_limit)
		return 0;
	r = ovf_big(n + 1);
	return r + pad[0] + pad[4095];
}

NOINL void after_ovf(void)
{
	leaf(ovf_depth > 0);
}

NOINL void *ovf_thread(void *arg)
{
	static char altstack[256 * 1024];
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	int *depths = arg;

	if (sigaltstack(&ss, NULL))
		return NULL;
	if (!sigsetjmp(ovf_env, 1))
		ovf_small(0);
	depths[0] = ovf_depth;
	after_ovf();
	if (!sigsetjmp(ovf_env, 1))
		ovf_big(0);
	depths[1] = ovf_depth;
	after_ovf();
	return arg;
}

NOINL int deep_start(void)
{
	return rec(2999);
}

int main(void)
{
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t t;
	int depths[2] = {0, 0};
	void *ret = NULL;

	if (deep_start() != 2999) {
		printf("graph_deep: FAIL (recursion)\n");
		return 1;
	}
	leaf(1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&t, &attr, ovf_thread, depths) || pthread_join(t, &ret) ||
	    ret != depths) {
		printf("graph_deep: FAIL (overflow thread)\n");
		return 1;
	}
	/* Both overflowed, the big frames sooner, and the handler ran each time. */
	if (depths[0] < 1000 || depths[1] < 10 || depths[1] > 64 || ovf_noted != 2) {
		printf("graph_deep: FAIL (depths %d %d, handler ran %d times)\n", depths[0],
		       depths[1], ovf_noted);
		return 1;
	}
	finish();
	printf("graph_deep: ok\n");
	return 0;
}
