// SPDX-License-Identifier: MIT
/*
 * graph_fork.c - fork, vfork + exec, exec:
 *
 *   graph_fork             fork two calls deep: the child returns through the frames
 *                          it inherited and goes on calling; then vfork + exec of this
 *                          program ("exec-child"); then exec of it from two calls deep
 *                          ("exec-final"), which prints the result
 *   graph_fork exec-child  the image a vfork child runs: a short nest
 *   graph_fork exec-final OK
 *
 * Expected tree: graph_fork.tree (the parent's process id keeps its tree across the
 * final exec: the new image starts again at depth 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graph_common.h"

static const char *self;

NOINL void leaf(int x)
{
	sink += x;
}

NOINL pid_t fork_here(void)
{
	pid_t pid;

	sink++;
	pid = fork();
	sink++;
	return pid;
}

NOINL void child_work(void)
{
	leaf(1);
}

NOINL void parent_work(void)
{
	leaf(2);
}

NOINL void child_tail(void)
{
	sink++;
}

/* Returns 1 in the child, 0 in the parent after the child exited with 0, -1 on error. */
NOINL int do_fork(void)
{
	pid_t pid = fork_here();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		child_work();
		return 1;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	parent_work();
	return 0;
}

NOINL int do_vfork_exec(void)
{
	pid_t pid = vfork();
	int status;

	if (!pid) {
		execl(self, self, "exec-child", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	leaf(3);
	return 0;
}

NOINL void exec_here(int ok)
{
	leaf(4);
	execl(self, self, "exec-final", ok ? "1" : "0", (char *)NULL);
	perror("graph_fork: exec");
	exit(1);
}

NOINL void do_exec(int ok)
{
	exec_here(ok);
	sink++;
}

NOINL void exec_child_work(void)
{
	leaf(5);
}

NOINL int final_work(const char *ok)
{
	leaf(6);
	return strcmp(ok, "1") != 0;
}

int main(int argc, char **argv)
{
	int rc;

	self = argv[0];
	if (argc > 1 && !strcmp(argv[1], "exec-child")) {
		exec_child_work();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "exec-final")) {
		rc = final_work(argv[2]);
		printf("graph_fork: %s\n", rc ? "FAIL" : "ok");
		return rc;
	}
	rc = do_fork();
	if (rc == 1) {
		child_tail();
		return 0;
	}
	do_exec(rc == 0 && do_vfork_exec() == 0);
	return 1;
}
