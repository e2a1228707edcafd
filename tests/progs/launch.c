// SPDX-License-Identifier: MIT
/*
 * launch - forks and execs a program, waits for it, exits with its status:
 *
 *   launch PROGRAM [ARG...]
 *
 * A traced program that starts another one, as a shell script or a build does.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: launch PROGRAM [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
