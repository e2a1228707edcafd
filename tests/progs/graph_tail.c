// SPDX-License-Identifier: MIT
/*
 * graph_tail.c - tail calls.  At -O2 tail_a jumps to tail_b, which jumps to
 * tail_c, and is_even/is_odd jump to each other: no frame of the caller stays on
 * the stack.  The graph still nests them, as the kernel's does: each entry saw the
 * return address its caller left (the trampoline, once the caller was hooked), so
 * the returns unwind the shadow stack one by one.  The tree is the same at -O0
 * where they are real calls.  Expected tree: graph_tail.tree.
 */
#include <stdio.h>

#include "graph_common.h"

NOINL int leaf(int x)
{
	sink += x;
	return x;
}

NOINL int tail_c(int x)
{
	return leaf(x) + 1; /* not a tail call: the sum comes after */
}

NOINL int tail_b(int x)
{
	sink++;
	return tail_c(x * 2);
}

NOINL int tail_a(int x)
{
	sink++;
	return tail_b(x + 1);
}

NOINL int is_odd(int n);

NOINL int is_even(int n)
{
	sink++;
	return n == 0 ? 1 : is_odd(n - 1);
}

NOINL int is_odd(int n)
{
	sink++;
	return n == 0 ? 0 : is_even(n - 1);
}

int main(void)
{
	int a = tail_a(1), e = is_even(4);

	leaf(0);
	if (a != 5 || e != 1) {
		printf("graph_tail: FAIL (%d %d)\n", a, e);
		return 1;
	}
	printf("graph_tail: ok\n");
	return 0;
}
