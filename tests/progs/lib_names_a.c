// SPDX-License-Identifier: MIT
/*
 * lib_names_a.c - built as lib_names_a.so, dlopen'ed and closed by names_dl:
 * a_entry calls a_leaf.  lib_names_b.so has the same size, so that it is loaded
 * where this one was.
 */
#define NOINL __attribute__((noinline))

volatile int names_a_sink;

NOINL void a_leaf(void)
{
	names_a_sink++;
}

NOINL void a_entry(void)
{
	a_leaf();
	names_a_sink++;
}
