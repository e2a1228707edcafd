// SPDX-License-Identifier: MIT
/*
 * lib_names_b.c - built as lib_names_b.so, dlopen'ed by names_dl after
 * lib_names_a.so was closed, usually at the same address: b_entry calls b_one
 * and b_two.
 */
#define NOINL __attribute__((noinline))

volatile int names_b_sink;

NOINL void b_one(void)
{
	names_b_sink++;
}

NOINL void b_two(void)
{
	names_b_sink += 2;
}

NOINL void b_entry(void)
{
	b_one();
	b_two();
	names_b_sink++;
}
