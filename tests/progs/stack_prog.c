// SPDX-License-Identifier: MIT
/*
 * stack_prog.c - a traced program with stacks of known depth, for the stack
 * tracer's test (tests/integration/104_stack.sh).
 *
 * recurse(n) calls itself down to depth n, each frame holding a 512-byte array
 * it uses (so every frame is at least 512 bytes); shallow() is a leaf called from
 * main.  Commands on stdin (-l), each answered by "done":
 *   m N   recurse(N) in the main thread, then shallow()
 *   t N   recurse(N) in a new thread (joined)
 *   a N   recurse(N) inside a SIGUSR1 handler running on a 64 KiB sigaltstack
 *   c N   recurse(N) in a coroutine on a 256 KiB stack of malloc (makecontext)
 *   s     "recurse XX" and "shallow XX": the first byte of each site (site_byte.h)
 * The program prints "pid P" first.  Without -l: stack_prog N runs "m N".
 */
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "site_byte.h"

#define NI __attribute__((noinline, noclone))

static volatile int sink;

NI int recurse(int n)
{
	volatile char buf[512];

	memset((char *)buf, n, sizeof(buf));
	if (n > 1)
		buf[n % 512] = (char)recurse(n - 1); /* used after the call: no tail call */
	return buf[0] + buf[511];
}

NI void shallow(void)
{
	sink++;
}

static void *thread_run(void *arg)
{
	sink += recurse((int)(long)arg);
	return NULL;
}

static int alt_depth;

static void on_usr1(int sig)
{
	(void)sig;
	sink += recurse(alt_depth);
}

static void on_altstack(int n)
{
	static char mem[65536];
	stack_t ss = {.ss_sp = mem, .ss_size = sizeof(mem)};
	struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = SA_ONSTACK};

	alt_depth = n;
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
}

static ucontext_t co_main, co_ctx;
static int co_depth;

static void co_run(void)
{
	sink += recurse(co_depth);
}

/* recurse(n) on a stack of the heap, as a coroutine library runs its tasks */
static void on_coroutine(int n)
{
	size_t size = 256 * 1024;
	char *stack = malloc(size);

	if (!stack || getcontext(&co_ctx))
		exit(3);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = size;
	co_ctx.uc_link = &co_main;
	co_depth = n;
	makecontext(&co_ctx, co_run, 0);
	swapcontext(&co_main, &co_ctx);
	free(stack);
}

static void *lookup(const char *name)
{
	return !strcmp(name, "recurse")	  ? (void *)recurse
	       : !strcmp(name, "shallow") ? (void *)shallow
					  : NULL;
}

static void command(char c, int n)
{
	pthread_t t;

	switch (c) {
	case 'm':
		sink += recurse(n);
		shallow();
		break;
	case 't':
		pthread_create(&t, NULL, thread_run, (void *)(long)n);
		pthread_join(t, NULL);
		break;
	case 'a':
		on_altstack(n);
		break;
	case 'c':
		on_coroutine(n);
		break;
	case 's':
		print_site("recurse");
		print_site("shallow");
		break;
	}
}

int main(int argc, char **argv)
{
	char line[64];

	if (argc == 2 && strcmp(argv[1], "-l")) {
		command('m', atoi(argv[1]));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: stack_prog N | -l\n");
		return 2;
	}
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		command(line[0], line[0] ? atoi(line + 1) : 0);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}
