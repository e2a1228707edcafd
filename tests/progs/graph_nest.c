// SPDX-License-Identifier: MIT
/*
 * graph_nest.c - plain nesting: loops of leaves, a call through a pointer, a short
 * non-tail recursion.  The expected tree is graph_nest.tree.
 */
#include <stdio.h>

#include "graph_common.h"

NOINL void leaf(int x)
{
	sink += x;
}

NOINL void inner(int n)
{
	for (int i = 0; i < n; i++)
		leaf(i);
}

NOINL void outer(void)
{
	inner(3);
	leaf(7);
	sink++;
}

NOINL void by_pointer(void)
{
	sink--;
}

/* Not a tail call: the result is used after the call returns. */
NOINL int rec(int n)
{
	int r;

	sink++;
	if (n <= 1)
		return 1;
	r = rec(n - 1);
	sink += r;
	return r + 1;
}

int main(void)
{
	void (*volatile fp)(void) = by_pointer;

	outer();
	fp();
	if (rec(3) != 3)
		return 1;
	leaf(1);
	printf("graph_nest: ok\n");
	return 0;
}
