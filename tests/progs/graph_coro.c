// SPDX-License-Identifier: MIT
/*
 * graph_coro.c - coroutines with makecontext/swapcontext: one whose stack is an
 * array in main's frame (its slots lie between main's and run_task's), suspended
 * once and resumed to its end; one on a heap stack, a generator resumed three
 * times; the first one made again while it is suspended (the suspended one is
 * abandoned); then setcontext back into a context saved by getcontext.  The coroutine's
 * calls show inside the call that switched to it, the calls after a switch at
 * their true depth, and every function returns (no lost frame).
 * Expected tree: graph_coro.tree.
 *
 *   graph_coro raw   a fork child switches to the first coroutine with libc's own
 *                    swapcontext, which the runtime does not see (as a
 *                    hand-written stack switch): function_graph cannot follow and
 *                    stops the child, saying why on utracefs's console, never on the
 *                    program's stderr; prints "raw: signal N" (or "raw: exit N")
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "graph_common.h"

#define CO_STACK 65536

static ucontext_t main_ctx, co_ctx, gen_ctx, again_ctx;
static int (*swap)(ucontext_t *, const ucontext_t *) = swapcontext;

NOINL void task(int x)
{
	sink += x;
}

/* the coroutine suspends itself: back to whoever switched to it */
NOINL void yield_back(void)
{
	swap(&co_ctx, &main_ctx);
	sink++;
}

NOINL void co_body(void)
{
	task(1);
	yield_back();
	task(2);
}

NOINL void run_task(void)
{
	swap(&main_ctx, &co_ctx);
	sink++;
}

NOINL void after(void)
{
	sink++;
}

NOINL void yield_gen(void)
{
	swapcontext(&gen_ctx, &main_ctx);
	sink++;
}

NOINL void gen_body(void)
{
	for (int i = 0; i < 2; i++) {
		task(i);
		yield_gen();
	}
}

NOINL void run_gen(void)
{
	swapcontext(&main_ctx, &gen_ctx);
	sink++;
}

NOINL void jump_back(void)
{
	task(3);
	setcontext(&again_ctx);
}

int main(int argc, char **argv)
{
	char stack[CO_STACK]; /* inside main's frame */
	char *heap = malloc(CO_STACK);
	volatile int round = 0;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	int raw = argc > 1 && !strcmp(argv[1], "raw"), st;
	pid_t pid = raw ? fork() : 1;

	if (pid > 0 && raw) {
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		printf("raw: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	if (raw && libc)
		swap = (int (*)(ucontext_t *, const ucontext_t *))dlsym(libc, "swapcontext");

	if (!heap || getcontext(&co_ctx) || getcontext(&gen_ctx))
		return 1;
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof(stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	run_task();
	after();
	run_task(); /* resumes it: it ends, back through uc_link */
	after();
	if (raw)
		_exit(0);

	gen_ctx.uc_stack.ss_sp = heap;
	gen_ctx.uc_stack.ss_size = CO_STACK;
	gen_ctx.uc_link = &main_ctx;
	makecontext(&gen_ctx, gen_body, 0);
	for (int i = 0; i < 3; i++)
		run_gen();
	after();

	/* suspended in yield_back, then made anew in the same ucontext and stack */
	makecontext(&co_ctx, co_body, 0);
	run_task();
	makecontext(&co_ctx, co_body, 0);
	run_task();
	after();

	getcontext(&again_ctx);
	if (!round++)
		jump_back();
	after();
	free(heap);
	printf("graph_coro: ok\n");
	return 0;
}
