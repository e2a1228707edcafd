// SPDX-License-Identifier: MIT
/*
 * lib_names_plain.c - a library built without the flags of `utrace cflags` (no
 * patch site, Makefile), as one the user did not rebuild: utracefs learns of it
 * only from the process (names_dl.c, 42_names.sh).
 */
volatile int plain_sink;

/* Calls back into the program: its frame is in the callback's stack traces. */
__attribute__((noinline)) void plain_call(void (*cb)(void))
{
	cb();
	plain_sink++; /* not a tail call: the return address is in here */
}
