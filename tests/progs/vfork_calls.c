// SPDX-License-Identifier: MIT
/*
 * vfork_calls - a vfork child that calls traced functions before it execs or exits.
 *
 *   vfork_calls exec|exit
 *
 * The parent calls vf_parent_work before and after; the child calls vf_child_work
 * (which calls vf_child_leaf) twice, then execs /bin/true or calls _exit(0).
 * Prints "parent ok" when the child ended with status 0 and the parent's own
 * calls went on normally.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))

static volatile long sink;

NOINL void vf_child_leaf(int i)
{
	sink += i;
	__asm__ volatile("");
}

NOINL int vf_child_work(int n)
{
	for (int i = 0; i < n; i++)
		vf_child_leaf(i);
	return n;
}

NOINL void vf_parent_work(void)
{
	sink++;
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	int status = -1, do_exec;
	pid_t pid;

	if (argc != 2)
		return 2;
	do_exec = !strcmp(argv[1], "exec");
	vf_parent_work();
	pid = vfork();
	if (pid == 0) {
		vf_child_work(3);
		vf_child_work(2);
		if (do_exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	vf_parent_work();
	printf("parent ok\n");
	return 0;
}
