// SPDX-License-Identifier: MIT
/*
 * abc - main calls a, a calls b, b calls c: a call tree to find again in a trace
 * (tests/progs/launch execs it, so that utracefs meets it only after a filter is set).
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline, noipa)) void c(void)
{
	sink++;
}

__attribute__((noinline, noipa)) void b(void)
{
	c();
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

__attribute__((noinline, noipa)) void a(void)
{
	b();
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	a();
	printf("abc %d\n", sink);
	return 0;
}
