// SPDX-License-Identifier: MIT
/*
 * rt_notrace.c - a program with its own free() on top of glibc's (as allocators
 * that wrap it do).  libc calls it too, from wherever it frees memory: from the
 * runtime's own work as well (the control thread it starts again in a fork
 * child).  Only the program's calls may be in the trace.
 *
 *   rt_notrace      own_frees() calls free() 3 times; fork; the child calls
 *                   own_frees() once more and exits; the parent waits for it
 *                   and prints "parent PID" and "child PID"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern void __libc_free(void *p);

static volatile int sink;
static void *volatile nothing; /* free(NULL) written out would be optimized away */

__attribute__((noinline)) void free(void *p)
{
	sink++;
	__libc_free(p);
}

__attribute__((noinline)) void own_frees(int n)
{
	for (int i = 0; i < n; i++) {
		free(nothing);
		sink++; /* no tail call: the parent is own_frees() */
	}
}

int main(void)
{
	pid_t pid;
	int st;

	own_frees(3);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		own_frees(1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("parent %d\nchild %d\n", (int)getpid(), (int)pid);
	return 0;
}
