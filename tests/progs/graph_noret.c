// SPDX-License-Identifier: MIT
/*
 * graph_noret.c - functions that never return: a forked child calls abort() two
 * calls deep; the parent then calls exit() two calls deep, and its atexit
 * handler runs inside exit(), one level below the caller of exit().
 * Expected tree: graph_noret.tree.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graph_common.h"

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void at_exit(void)
{
	leaf(1);
}

NOINL void ab2(void)
{
	leaf(2);
	abort();
}

NOINL void ab1(void)
{
	ab2();
	sink++;
}

/* Returns 0 when the child died of SIGABRT. */
NOINL int abort_child(void)
{
	struct rlimit no_core = {0, 0};
	pid_t pid = fork();
	int status;

	if (!pid) {
		setrlimit(RLIMIT_CORE, &no_core);
		ab1();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return !(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

NOINL void exit_mid(void)
{
	leaf(3);
	exit(0);
}

NOINL void exit_deep(void)
{
	exit_mid();
	sink++;
}

int main(void)
{
	atexit(at_exit);
	if (abort_child()) {
		printf("graph_noret: FAIL (child did not abort)\n");
		return 1;
	}
	printf("graph_noret: ok\n");
	exit_deep();
	return 1;
}
