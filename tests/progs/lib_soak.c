// SPDX-License-Identifier: MIT
/*
 * lib_soak.c - built as lib_soak.so, dlopen'ed and closed over and over by
 * soak_worker chaos (tests/soak/soak.sh): a small traced call tree.
 */
#define NOINL __attribute__((noinline))

volatile int soak_lib_sink;

NOINL static void soak_lib_leaf(void)
{
	soak_lib_sink++;
}

NOINL void soak_lib_entry(int n)
{
	for (int i = 0; i < n; i++)
		soak_lib_leaf();
}
